/**
 * Traces across Workers, in workerd: the gateway and a skill each register the OpenTelemetry
 * SDK with an in-memory exporter (as an operator's provider would), a call goes through the
 * gateway, and the spans of both isolates form one trace: the caller's → `skillmesh.call` →
 * `skillmesh.forward` → the skill's handler span. Then the writing-skills guide's @microlabs/otel-cf-workers
 * gateway exports the same chain over OTLP to a collector the test runs.
 */
import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, TRACING_FIXTURES, eventually } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

interface ExportedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  attributes: Record<string, unknown>;
}

let mesh: Mesh;
beforeAll(async () => {
  mesh = await startMesh({ gateway: TRACING_FIXTURES.gateway, skills: [TRACING_FIXTURES.skill, TRACING_FIXTURES.pipeline], adminToken: ADMIN_TOKEN });
});
afterAll(() => mesh?.dispose());

const spansOf = async (url: string) => (await (await fetch(`${url}/__spans`)).json()) as ExportedSpan[];

it("puts a code-mode script and its tool calls in one tree: each call's span a child of the script's, both naming the execution", async () => {
  const callerTrace = "5cf92f3577b34da6a3ce929d0e0e4737";
  const answer = await wireOf(mesh.gatewayUrl).rpc(
    "code.execute",
    { code: "async () => { await test.traced({}); await test.traced({}); return 2; }" },
    { headers: { traceparent: `00-${callerTrace}-00f067aa0ba902b8-01` } },
  );
  expect(answer.json.result, JSON.stringify(answer.json)).toMatchObject({ result: 2, calls: 2 });
  const spans = await eventually(
    async () => (await spansOf(mesh.gatewayUrl)).filter((s) => s.traceId === callerTrace),
    (found) => found.filter((s) => s.name === "skillmesh.call test.traced").length === 2,
  );
  const script = spans.find((s) => s.name === "skillmesh.call code.execute")!;
  expect(script.parentSpanId).toBe("00f067aa0ba902b8");
  expect(script.attributes).toMatchObject({ "skillmesh.operation": "execute", "skillmesh.execution": answer.json.result.execution });
  for (const inner of spans.filter((s) => s.name === "skillmesh.call test.traced")) {
    expect(inner.parentSpanId).toBe(script.spanId);
    expect(inner.attributes).toMatchObject({ "skillmesh.execution": answer.json.result.execution, "skillmesh.outcome": "ok" });
  }
});

it("joins the gateway's spans and the skill's span into the caller's trace", async () => {
  const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
  const answer = await wireOf(mesh.gatewayUrl).rpc("test.traced", undefined, {
    headers: { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01`, "x-user-group": "beta" },
  });
  expect(answer.json.result.traceparent).toMatch(new RegExp(`^00-${callerTrace}-[0-9a-f]{16}-01$`));

  const gatewaySpans = (await spansOf(mesh.gatewayUrl)).filter((s) => s.traceId === callerTrace);
  const skillSpans = (await spansOf(mesh.skills[0]!.url)).filter((s) => s.traceId === callerTrace);
  const call = gatewaySpans.find((s) => s.name === "skillmesh.call test.traced")!;
  const lookup = gatewaySpans.find((s) => s.name === "skillmesh.registry.lookup" && s.parentSpanId === call.spanId);
  const forward = gatewaySpans.find((s) => s.name === "skillmesh.forward")!;
  const handler = skillSpans.find((s) => s.name === "skill test.traced")!;

  expect(call.parentSpanId).toBe("00f067aa0ba902b7");
  expect(lookup).toBeDefined();
  expect(forward.parentSpanId).toBe(call.spanId);
  expect(handler.parentSpanId).toBe(forward.spanId);
  // The skill was told the forward span's id: its ctx.traceparent names its parent.
  expect(answer.json.result.traceparent.split("-")[2]).toBe(forward.spanId);
  expect(call.attributes).toMatchObject({
    "rpc.method": "test.traced",
    "skillmesh.skill": "test.traced",
    "skillmesh.version": "1.0.0",
    "skillmesh.group": "beta",
    "skillmesh.outcome": "ok",
    "skillmesh.degraded": false,
    "skillmesh.replayed": false,
  });
});

it("starts one trace per call when the caller sends none, still joined across Workers", async () => {
  const answer = await wireOf(mesh.gatewayUrl).rpc("test.traced");
  const [, traceId, parentId] = answer.json.result.traceparent.split("-");
  const forward = (await spansOf(mesh.gatewayUrl)).find((s) => s.spanId === parentId)!;
  expect(forward).toMatchObject({ name: "skillmesh.forward", traceId });
  const handler = (await spansOf(mesh.skills[0]!.url)).find((s) => s.parentSpanId === parentId)!;
  expect(handler).toMatchObject({ name: "skill test.traced", traceId });
});

it("hangs a pipeline's steps under its call, and each step's gateway call under its step", async () => {
  const callerTrace = "5ce0e9a56015fec5aadfa328ae398115";
  const answer = await wireOf(mesh.gatewayUrl).rpc("test.traced-pipeline", {}, { headers: { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` } });
  expect(answer.json.result).toEqual({ first: expect.stringContaining(callerTrace), second: expect.stringContaining(callerTrace) });

  const pipelineUrl = mesh.skills.find((s) => s.manifest.name === "test.traced-pipeline")!.url;
  const pipelineSpans = (await spansOf(pipelineUrl)).filter((s) => s.traceId === callerTrace);
  const gatewaySpans = (await spansOf(mesh.gatewayUrl)).filter((s) => s.traceId === callerTrace);
  const handler = pipelineSpans.find((s) => s.name === "skill test.traced-pipeline")!;
  const pipelineCall = gatewaySpans.find((s) => s.name === "skillmesh.call test.traced-pipeline")!;
  const pipelineForward = gatewaySpans.find((s) => s.name === "skillmesh.forward" && s.parentSpanId === pipelineCall.spanId)!;
  expect(pipelineCall.parentSpanId).toBe("00f067aa0ba902b7");
  expect(handler.parentSpanId).toBe(pipelineForward.spanId);
  for (const step of ["first", "second"]) {
    const span = pipelineSpans.find((s) => s.name === `pipeline.step ${step}`)!;
    expect(span).toMatchObject({ parentSpanId: handler.spanId, attributes: { "skillmesh.step": step, "skillmesh.skill": "test.traced" } });
    // The gateway's call for this step is a child of the step's span.
    expect(gatewaySpans.find((s) => s.name === "skillmesh.call test.traced" && s.parentSpanId === span.spanId)).toBeDefined();
  }
});

describe("export with @microlabs/otel-cf-workers (the writing-skills guide's example)", () => {
  interface OtlpSpan {
    traceId: string;
    spanId: string;
    parentSpanId?: string;
    name: string;
  }
  const received: OtlpSpan[] = [];
  /** The span ids above `span` in its trace, nearest first. */
  const ancestorsOf = (span: OtlpSpan | undefined): string[] => {
    const parent = span?.parentSpanId ? received.find((s) => s.traceId === span.traceId && s.spanId === span.parentSpanId) : undefined;
    return span?.parentSpanId ? [span.parentSpanId, ...ancestorsOf(parent)] : [];
  };
  const collector = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const payload = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const resource of payload.resourceSpans) for (const scope of resource.scopeSpans) received.push(...scope.spans);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  let otelMesh: Mesh;
  beforeAll(async () => {
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
    const endpoint = `http://127.0.0.1:${(collector.address() as { port: number }).port}/v1/traces`;
    otelMesh = await startMesh({
      gateway: TRACING_FIXTURES.otelGateway,
      skills: [TRACING_FIXTURES.skill, TRACING_FIXTURES.otelSkill],
      adminToken: ADMIN_TOKEN,
      gatewayVars: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_HEADERS: "x-team=test" },
      skillVars: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
    });
  });
  afterAll(async () => {
    await otelMesh?.dispose();
    collector.close();
  });

  it("exports the gateway's spans in the caller's trace, and the skill's span nests under the forward", async () => {
    const callerTrace = "5bf92f3577b34da6a3ce929d0e0e4737";
    const answer = await wireOf(otelMesh.gatewayUrl).rpc("test.traced", undefined, { headers: { traceparent: `00-${callerTrace}-00f067aa0ba902b8-01` } });
    expect(answer.json.result.traceparent).toMatch(new RegExp(`^00-${callerTrace}-`));
    const deadline = Date.now() + 10_000;
    while (!received.some((s) => s.name === "skillmesh.forward") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));

    const inTrace = received.filter((s) => s.traceId === callerTrace);
    const call = inTrace.find((s) => s.name === "skillmesh.call test.traced")!;
    const forward = inTrace.find((s) => s.name === "skillmesh.forward")!;
    expect(call).toBeDefined();
    expect(forward.parentSpanId).toBe(call.spanId);
    // The call span sits under otel-cf-workers' own request span, which continues the caller's.
    expect(ancestorsOf(call)).toContain("00f067aa0ba902b8");
    // The skill's handler span (in-memory exporter there) descends from the forward span.
    const handler = (await spansOf(otelMesh.skills[0]!.url)).find((s) => s.traceId === callerTrace && s.name === "skill test.traced")!;
    const handlerParent = received.find((s) => s.traceId === callerTrace && s.spanId === handler.parentSpanId);
    expect([handler.parentSpanId, ...ancestorsOf(handlerParent)]).toContain(forward.spanId);
  });

  it("exports a wrapped skill's span too, in the same trace, under the gateway's forward", async () => {
    const callerTrace = "6bf92f3577b34da6a3ce929d0e0e4738";
    await wireOf(otelMesh.gatewayUrl).rpc("test.otel", undefined, { headers: { traceparent: `00-${callerTrace}-00f067aa0ba902b9-01` } });
    const deadline = Date.now() + 10_000;
    const skillSpan = () => received.find((s) => s.traceId === callerTrace && s.name === "skill test.otel");
    while (!(skillSpan() && received.some((s) => s.traceId === callerTrace && s.name === "skillmesh.forward")) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const forward = received.find((s) => s.traceId === callerTrace && s.name === "skillmesh.forward")!;
    expect(ancestorsOf(skillSpan())).toContain(forward.spanId);
  });
});
