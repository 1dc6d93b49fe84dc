/**
 * The pipeline's OpenTelemetry spans: with a tracer provider registered (here a tiny recording
 * one), a call produces `skillmesh.call`, `skillmesh.registry.lookup` and `skillmesh.forward`.
 * The skill runs in Node (a skill Worker is a Hono app) behind a URL endpoint.
 */
import { serve } from "@hono/node-server";
import { type Span, type Tracer, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, expect, it } from "vitest";
import subtract from "../../test/fixtures/skills/subtract/index.js";
import { gatewayRuntime } from "./runtime.js";
import { invoke } from "./pipeline.js";

interface Recorded { name: string; attributes: Record<string, unknown>; ended: boolean; error: boolean }
const recorded: Recorded[] = [];

/** The least a Tracer must do for the pipeline: make spans that remember what was done to them. */
function recordingSpan(name: string, attributes: Record<string, unknown> = {}): Span {
  const entry: Recorded = { name, attributes: { ...attributes }, ended: false, error: false };
  recorded.push(entry);
  const span = {
    spanContext: () => ({ traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 1 }),
    setAttribute: (k: string, v: unknown) => ((entry.attributes[k] = v), span),
    setAttributes: (a: Record<string, unknown>) => (Object.assign(entry.attributes, a), span),
    addEvent: () => span, addLink: () => span, addLinks: () => span, recordException: () => {},
    setStatus: (status: { code: number }) => ((entry.error = status.code === 2), span),
    updateName: () => span, isRecording: () => true,
    end: () => void (entry.ended = true),
  };
  return span as unknown as Span;
}
const tracer = {
  startSpan: (name: string, options?: { attributes?: Record<string, unknown> }) => recordingSpan(name, options?.attributes),
  startActiveSpan: (name: string, ...rest: unknown[]) => {
    const fn = rest.at(-1) as (span: Span) => unknown;
    const options = rest.length > 1 ? (rest[0] as { attributes?: Record<string, unknown> }) : undefined;
    return fn(recordingSpan(name, options?.attributes));
  },
} as unknown as Tracer;

let server: ReturnType<typeof serve>;
let url: string;
const env = { SKILLMESH_STORE: "memory", SKILLMESH_STORE_PREFIX: "otel-test:" };

beforeAll(async () => {
  trace.setGlobalTracerProvider({ getTracer: () => tracer });
  await new Promise<void>((resolve) => (server = serve({ fetch: subtract.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve())));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  await gatewayRuntime(env).registry.register({ manifest: subtract.manifest, endpoint: { url }, registrationId: "r" }, Date.now());
});
afterAll(() => {
  trace.disable();
  server?.close();
});

const scope = () => ({ context: { caller: "anonymous" }, answeredBy: new Set<string>(), waitUntil: () => {} });

it("records a call, its registry lookup and its forward, all ended", async () => {
  recorded.length = 0;
  const result = await invoke({ jsonrpc: "2.0", method: "subtract", params: [42, 23], id: 1 }, { index: 0, batch: false }, scope(), gatewayRuntime(env), env);
  expect(result).toBe(19);
  expect(recorded.map((s) => s.name)).toEqual(["skillmesh.call subtract", "skillmesh.registry.lookup", "skillmesh.forward"]);
  expect(recorded.find((s) => s.name === "skillmesh.forward")!.attributes).toEqual({ "skillmesh.deployment": "subtract@1.0.0" });
  expect(recorded.every((s) => s.ended)).toBe(true);
});

it("marks the call span as an error when the call fails", async () => {
  recorded.length = 0;
  await expect(invoke({ jsonrpc: "2.0", method: "nope", id: 1 }, { index: 0, batch: false }, scope(), gatewayRuntime(env), env)).rejects.toThrow();
  expect(recorded[0]).toMatchObject({ name: "skillmesh.call nope", error: true, ended: true });
});
