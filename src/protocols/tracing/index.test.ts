import { ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { formatTraceparent, inSpan, isRecording, outgoingTraceparent, parentContextOf, spanContextOf } from "./index.js";

const CALLER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

describe("traceparent", () => {
  it("reads a valid W3C traceparent and writes it back the same", () => {
    expect(formatTraceparent(spanContextOf(CALLER)!)).toBe(CALLER);
  });
  it("drops what is not a valid version-00 traceparent", () => {
    const zeroSpan = "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01";
    const upper = CALLER.toUpperCase(); // W3C: lower-case hex only
    for (const bad of [
      "",
      "nonsense",
      "00-00000000000000000000000000000000-b7ad6b7169203331-01",
      zeroSpan,
      upper,
      "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      `${CALLER}-x`,
    ]) {
      expect(spanContextOf(bad)).toBeUndefined();
    }
  });
});

describe("outgoingTraceparent without a tracer provider", () => {
  // With only the API, spans are no-ops that carry their parent's ids.
  const tracer = trace.getTracer("test");
  it("keeps the caller's trace and flags with a fresh span id", () => {
    const parent = parentContextOf(CALLER);
    const out = outgoingTraceparent(tracer.startSpan("s", {}, parent), parent).split("-");
    expect(out[1]).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(out[2]).toMatch(/^[0-9a-f]{16}$/);
    expect(out[2]).not.toBe("b7ad6b7169203331");
    expect(out[3]).toBe("01");
  });
  it("starts a valid new trace when the caller sent none", () => {
    const out = outgoingTraceparent(tracer.startSpan("s", {}, ROOT_CONTEXT), ROOT_CONTEXT);
    expect(spanContextOf(out)).toBeDefined();
  });
});

describe("inSpan", () => {
  const parent = parentContextOf(CALLER);

  it("without a provider runs the work with a no-op span that carries the parent's ids", async () => {
    expect(isRecording()).toBe(false);
    const seen = await inSpan(trace.getTracer("test"), "s", parent, {}, async (span, context) => ({
      span: span.spanContext(),
      isRecording: span.isRecording(),
      same: context === parent,
    }));
    expect(seen).toEqual({ span: spanContextOf(CALLER), isRecording: false, same: true });
  });

  it("with a provider records the span as a child of the caller's trace, and ends it", async () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    try {
      expect(isRecording()).toBe(true);
      await inSpan(trace.getTracer("test"), "recorded", parent, {}, async (span) => expect(span.isRecording()).toBe(true));
      const [span] = exporter.getFinishedSpans();
      expect(span?.name).toBe("recorded");
      expect(span?.spanContext().traceId).toBe(spanContextOf(CALLER)!.traceId);
    } finally {
      trace.disable();
    }
    expect(isRecording()).toBe(false);
  });
});
