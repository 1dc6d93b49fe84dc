/**
 * Tracing through `@opentelemetry/api` only: spans are no-ops until the operator registers a
 * provider, and the W3C `traceparent` is read and written here (the API alone has no
 * propagator). Contexts are passed explicitly, because workerd has no context manager unless
 * the operator's SDK installs one; when one does (e.g. `@microlabs/otel-cf-workers`), its
 * active span is the parent and each span is made active around its work, so auto-instrumented
 * fetches nest under it.
 */
import {
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  INVALID_SPANID,
  INVALID_SPAN_CONTEXT,
  INVALID_TRACEID,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  context as contextApi,
  trace,
} from "@opentelemetry/api";
import { errorText } from "../jsonrpc/index.js";
import { randomHex } from "../../lib/hash/index.js";

export type { Attributes, Context, Span } from "@opentelemetry/api";

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** W3C: an id of all zeros is invalid. */
const isValidIds = (traceId: string, spanId: string) => traceId !== INVALID_TRACEID && spanId !== INVALID_SPANID;

/**
 * Whether a `traceparent` header is a valid W3C version-00 value: one regex and two compares
 * (the API's validators ran two more regexes; every call reads a traceparent on both hops).
 * @example isTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01") // true
 */
export function isTraceparent(value: string | null | undefined): value is string {
  return !!value && TRACEPARENT.test(value) && isValidIds(value.slice(3, 35), value.slice(36, 52));
}

/**
 * The span context a `traceparent` header names, if it is a valid W3C version-00 value.
 * @example spanContextOf("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")?.traceId // "0af7…319c"
 */
export function spanContextOf(traceparent: string | null | undefined): SpanContext | undefined {
  if (!isTraceparent(traceparent)) return undefined;
  return { traceId: traceparent.slice(3, 35), spanId: traceparent.slice(36, 52), traceFlags: parseInt(traceparent.slice(53, 55), 16), isRemote: true };
}

/**
 * The context to start a request's first span in: the span an operator's instrumentation made
 * active for this request (it already continues the caller's trace); else the caller's trace
 * when a valid `traceparent` came in; else a new root.
 * @example const parent = parentContextOf(request.headers.get("traceparent"))
 */
export function parentContextOf(traceparent: string | null | undefined): Context {
  const active = contextApi.active();
  if (trace.getSpan(active)) return active;
  const spanContext = spanContextOf(traceparent);
  return spanContext ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT;
}

/** A span context as a `traceparent` header value. @example formatTraceparent(span.spanContext()) */
export function formatTraceparent({ traceId, spanId, traceFlags }: SpanContext): string {
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}

/**
 * The `traceparent` for a call leaving through `span`: the span's own context when a provider
 * records it; without one (the API's no-op span carries its parent's ids), the parent's trace
 * with a fresh span id, or a new trace. Either way the next hop gets a span id of its own.
 * @example headers.set("traceparent", outgoingTraceparent(forwardSpan, parent))
 */
export function outgoingTraceparent(span: Span, parent: Context): string {
  const own = span.spanContext();
  const found = trace.getSpanContext(parent);
  // The API's spans carry well-formed ids or the all-zero ones (its no-op span's, without a parent).
  const inherited = found && isValidIds(found.traceId, found.spanId) ? found : undefined;
  if (isValidIds(own.traceId, own.spanId) && own.spanId !== inherited?.spanId) return formatTraceparent(own);
  return formatTraceparent({ traceId: inherited?.traceId ?? randomHex(16), spanId: randomHex(8), traceFlags: inherited?.traceFlags ?? 1 });
}

/** The API's own no-op provider: a proxy provider delegates to it until an SDK is registered. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether spans record: a tracer provider was registered (`trace.setGlobalTracerProvider`, as an
 * SDK or `@microlabs/otel-cf-workers` does). Asked per span: an operator's SDK may register late.
 * @example if (isRecording()) span.setAttributes(expensiveAttributes())
 */
export function isRecording(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
}

/** The no-op span of a call without a caller's trace: one for all (it holds nothing). */
const NO_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Runs `work` inside a span that is a child of `parent`, ends it, and marks it failed when
 * `work` throws. `work` gets the span and the context for its own children.
 * @example await inSpan(tracer, "skillmesh.forward", parent, { kind: SpanKind.CLIENT }, (span, ctx) => send(ctx))
 */
export async function inSpan<T>(
  tracer: ReturnType<typeof trace.getTracer>,
  name: string,
  parent: Context,
  options: { kind?: SpanKind; attributes?: Attributes },
  work: (span: Span, context: Context) => Promise<T>,
): Promise<T> {
  // No provider: the span would be the API's no-op one, carrying its parent's ids, and its
  // children's parent the same — so the work runs with such a span and no more (a trivial call
  // starts four spans across its two hops).
  if (!isRecording()) {
    const spanContext = trace.getSpanContext(parent);
    return work(spanContext ? trace.wrapSpanContext(spanContext) : NO_SPAN, parent);
  }
  const span = tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent);
  const context = trace.setSpan(parent, span);
  try {
    return await contextApi.with(context, () => work(span, context));
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorText(error) });
    throw error;
  } finally {
    span.end();
  }
}

export { SpanKind, trace } from "@opentelemetry/api";
