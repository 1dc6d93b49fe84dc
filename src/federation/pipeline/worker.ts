/**
 * A pipeline as a skill Worker: `definePipeline(yaml)` reads `pipeline.yaml` and answers like
 * any skill (manifest, JSON-RPC, progress, cancellation), its steps calling skills through the
 * gateway (the `GATEWAY` service binding) as the pipeline's caller — the delegation token the
 * gateway handed it — so every step gets routing, canary, breaker and fallback, grants and audit.
 */
import { z } from "zod";
import { ErrorCode, RpcError } from "../../protocols/jsonrpc/index.js";
import { type SkillContext, type SkillWorker, defineSkill } from "../../skill/index.js";
import { SpanKind, inSpan, outgoingTraceparent, trace } from "../../protocols/tracing/index.js";
import { PipelineStepError, StepCallError, type StepCaller, parsePipelineSpec, placedSteps, runPipeline } from "./index.js";

const tracer = trace.getTracer("skillmesh-pipeline");

/** What a pipeline Worker needs bound: the gateway. */
export interface PipelineEnv {
  GATEWAY?: { fetch: typeof fetch };
}

const AnswerSchema = z.union([
  z.object({ result: z.unknown() }),
  z.object({ error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }) }),
]);

/**
 * The Worker of a pipeline.
 * @example import spec from "./pipeline.yaml"; export default definePipeline(spec);
 */
export function definePipeline(yamlText: string): SkillWorker<PipelineEnv, z.ZodType, z.ZodType> {
  const spec = parsePipelineSpec(yamlText);
  // Every skill a step may call, its onError fallback included: the gateway lets its steps reach these and no others.
  const steps = [
    ...new Set(
      placedSteps(spec).flatMap(({ step }) => [step.skill, ...(typeof step.onError === "object" && "fallback" in step.onError ? [step.onError.fallback] : [])]),
    ),
  ];
  return defineSkill<z.ZodType, z.ZodType, PipelineEnv>({
    name: spec.name,
    version: spec.version,
    description: spec.description,
    tags: spec.tags,
    input: z.fromJSONSchema(spec.input as never),
    output: spec.outputSchema ? z.fromJSONSchema(spec.outputSchema as never) : z.unknown(),
    // Safe to repeat only when the author says every step is (the static check holds them to it).
    idempotent: spec.idempotent,
    timeoutMs: 60_000,
    pipeline: { steps },
    handler: async (input, ctx) => {
      try {
        return await runPipeline(spec, input, { call: gatewayCaller(ctx), progress: ctx.progress, signal: ctx.signal });
      } catch (error) {
        if (!(error instanceof PipelineStepError)) throw error;
        throw new RpcError(error.failure.code, error.message, {
          step: error.step,
          skill: error.skill,
          error: { code: error.failure.code, message: error.failure.message, data: error.failure.data },
        });
      }
    },
  });
}

/** Calls a step's skill through the gateway as the pipeline's caller. */
function gatewayCaller(ctx: SkillContext<PipelineEnv>): StepCaller {
  const gateway = ctx.env.GATEWAY;
  return (skill, params, { step, key, timeoutMs }) => {
    if (!gateway) throw new RpcError(ErrorCode.SkillUnavailable, "This pipeline has no GATEWAY service binding to call its steps through");
    // Each step is a span under the pipeline's call; the gateway's spans of the step hang under it.
    const parent = ctx.trace;
    const attributes = { "skillmesh.step": step, "skillmesh.skill": skill };
    return inSpan(tracer, `pipeline.step ${step}`, parent, { kind: SpanKind.CLIENT, attributes }, (span) =>
      callStep(gateway, ctx, skill, params, { key, timeoutMs, traceparent: outgoingTraceparent(span, parent) }),
    );
  };
}

/** One step call: JSON-RPC to the gateway as the caller, its answer or its error as a StepCallError. */
async function callStep(
  gateway: { fetch: typeof fetch },
  ctx: SkillContext<PipelineEnv>,
  skill: string,
  params: unknown,
  options: { key: string; timeoutMs?: number; traceparent: string },
): Promise<unknown> {
  const { key, timeoutMs } = options;
  const headers: Record<string, string> = { "content-type": "application/json", traceparent: options.traceparent };
  if (ctx.delegation) headers.authorization = `Bearer ${ctx.delegation}`;
  if (ctx.userId) headers["x-user-id"] = ctx.userId;
  if (ctx.group) headers["x-user-group"] = ctx.group;
  if (timeoutMs) headers["x-timeout-ms"] = String(timeoutMs);
  // Each step's own key, derived from the call's: a retried pipeline replays what succeeded.
  if (ctx.callKey) headers["idempotency-key"] = `${ctx.callKey}/${key}`.slice(0, 255);
  const response = await gateway.fetch("https://gateway/rpc", {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", method: skill, params, id: 1 }),
    signal: ctx.signal,
  });
  const answer = AnswerSchema.safeParse(await response.json().catch(() => undefined));
  if (!answer.success) throw new StepCallError(ErrorCode.SkillUnavailable, `the gateway answered HTTP ${response.status} without a JSON-RPC answer`);
  if ("error" in answer.data) throw new StepCallError(answer.data.error.code, answer.data.error.message, answer.data.error.data);
  return answer.data.result;
}
