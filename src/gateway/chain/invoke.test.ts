/**
 * The pipeline's spans with the OpenTelemetry SDK's own in-memory exporter: one call makes
 * `skillmesh.call` → `skillmesh.registry.lookup` + `skillmesh.forward` → the skill's handler
 * span, all in one trace (the caller's, when it sent a `traceparent`). The skill Worker (a Hono
 * app) runs in Node behind a URL endpoint so one provider sees both sides; the same chain across
 * two workerd isolates is checked in test/tracing.test.ts.
 */
import { serve } from "@hono/node-server";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import subtract from "../../../test/fixtures/skills/subtract/index.js";
import { gatewayRuntime } from "./runtime.js";
import { invoke } from "./invoke.js";
import { FULL_ACCESS } from "../../identity/auth/index.js";
import { callScopeOf } from "./scope.js";

const exporter = new InMemorySpanExporter();
let server: ReturnType<typeof serve>;
const env = { SKILLMESH_STORE: "memory", SKILLMESH_STORE_PREFIX: "otel-test:" };

beforeAll(async () => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  await new Promise<void>((resolve) => (server = serve({ fetch: subtract.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve())));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  await gatewayRuntime(env).registry.register({ manifest: subtract.manifest, endpoint: { url }, registrationId: "r" }, Date.now());
});
afterAll(() => {
  trace.disable();
  server?.close();
});
beforeEach(() => exporter.reset());

const call = async (method: string, headers: Record<string, string> = {}) =>
  invoke(
    { jsonrpc: "2.0", method, params: [42, 23], id: 1 },
    { index: 0, batch: false },
    callScopeOf(new Headers(headers), { id: "anonymous", access: FULL_ACCESS, limits: { identifier: "anonymous" } }, () => {}, FULL_ACCESS),
    gatewayRuntime(env),
    env,
  );
const named = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name)!;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

it("chains call → lookup + forward → the skill's span in the caller's trace", async () => {
  const callerTrace = "0af7651916cd43dd8448eb211c80319c";
  expect(await call("subtract", { traceparent: `00-${callerTrace}-b7ad6b7169203331-01`, "x-user-group": "beta" })).toBe(19);
  const [callSpan, lookup, forward, skill] = ["skillmesh.call subtract", "skillmesh.registry.lookup", "skillmesh.forward", "skill subtract"].map(named);
  expect(new Set([callSpan, lookup, forward, skill].map((s) => s!.spanContext().traceId))).toEqual(new Set([callerTrace]));
  expect(parentOf(callSpan!)).toBe("b7ad6b7169203331");
  expect(parentOf(lookup!)).toBe(callSpan!.spanContext().spanId);
  expect(parentOf(forward!)).toBe(callSpan!.spanContext().spanId);
  expect(parentOf(skill!)).toBe(forward!.spanContext().spanId);
  expect(callSpan!.attributes).toMatchObject({
    "rpc.method": "subtract",
    "skillmesh.skill": "subtract",
    "skillmesh.version": "1.0.0",
    "skillmesh.group": "beta",
    "skillmesh.outcome": "ok",
    "skillmesh.degraded": false,
    "skillmesh.replayed": false,
  });
  expect(forward!.attributes).toMatchObject({ "skillmesh.deployment": "subtract@1.0.0", "skillmesh.role": "stable" });
});

it("starts a new trace when the caller sent none, and still chains the skill's span", async () => {
  await call("subtract");
  const callSpan = named("skillmesh.call subtract");
  expect(callSpan.parentSpanContext).toBeUndefined();
  expect(named("skill subtract").spanContext().traceId).toBe(callSpan.spanContext().traceId);
});

it("marks the call span as an error when the call fails", async () => {
  await expect(call("nope")).rejects.toThrow();
  expect(named("skillmesh.call nope").status.code).toBe(2);
});
