/**
 * The skill SDK: `defineSkill({...})` turns one typed handler into a Worker module (a Hono app)
 * that serves JSON-RPC 2.0 on `POST /` and its manifest on `GET /manifest`.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { progressRelay } from "../protocols/progress/index.js";
import { LOG_LEVEL_HEADER, LOG_METHOD, LogLevelSchema, atLeast } from "../protocols/logging/index.js";
import { SSE_HEADERS, acceptsEventStream, sseStream } from "../protocols/sse/index.js";
import { ErrorCode, type JsonRpcParams, RpcError } from "../protocols/jsonrpc/index.js";
import { answerJson, bodyText, drainUnreadBody, jsonBodyGuard, toHttpResponse } from "../protocols/jsonrpc/http.js";
import { SKILL_CANCEL_METHOD, SKILL_RPC_METHOD, type SkillRpcCall } from "../protocols/hop/rpc.js";
import { strictInputOf } from "./strict.js";
import { DEFAULT_TIMEOUT_MS, RegisteredManifestSchema, type SkillManifest } from "./manifest.js";
import { anySignal } from "../lib/signal/index.js";
import { type Delivery, SkillAnswerer } from "./answerer.js";
import type { SkillAnnotations, SkillContext, SkillDefinition } from "./definition.js";
import { rpcReceiverOf } from "./rpc-receiver.js";

export { z } from "zod";
export { ErrorCode, RpcError } from "../protocols/jsonrpc/index.js";
export type { SkillManifest } from "./manifest.js";
export type { SkillAnnotations, SkillContext, SkillDefinition } from "./definition.js";

/**
 * Thrown by a handler when the input is the problem, not the skill: it cannot be parsed, it
 * names something that does not exist, it asks for more than the skill does. The caller gets
 * -32602 with the message (and `data`), and the gateway never counts it against the skill's
 * circuit breaker. Anything else a handler throws is -32603, the skill's own failure.
 * @example throw new InputError("frame is not hex: 0x4G", { field: "frame" })
 */
export class InputError extends RpcError {
  constructor(message: string, data?: unknown) {
    super(ErrorCode.InvalidParams, message, data);
    this.name = "InputError";
  }
}

/**
 * `ctx.log` for a streaming call: each message at or above the level the gateway asked for
 * (`X-Skillmesh-Log-Level`) as a `notifications/message` on the stream (checked and bounded again
 * where the gateway relays it); none asked for, a no-op.
 */
function skillLogOf(stream: { notify(message: unknown): boolean }, asked: string | null): SkillContext["log"] {
  const minimum = LogLevelSchema.safeParse(asked);
  if (!minimum.success) return () => {};
  return (level, data, logger) => {
    if (LogLevelSchema.safeParse(level).success && atLeast(level, minimum.data))
      stream.notify({ jsonrpc: "2.0", method: LOG_METHOD, params: { level, ...(logger ? { logger: String(logger).slice(0, 128) } : {}), data } });
  };
}

/** Where a skill module keeps its definition and its Hono app: a symbol, which Workers RPC cannot name. */
const PARTS = Symbol("skillmesh.skill");

/**
 * The Worker module `defineSkill` returns: `fetch` (its Hono app: JSON-RPC on `POST /`, the
 * manifest on `GET /manifest`), the gateway's RPC hop (`skillmeshCall`, `skillmeshCancel`:
 * src/protocols/hop/rpc.ts) and its manifest (public data). A bound Worker may call any string-named
 * property of a module over RPC, so the definition (its handler, unchecked) and the app are kept
 * under a symbol: `definitionOf(skill)` and `appOf(skill)` (routes of a skill's own:
 * `appOf(skill).get("/health", …)`). A Worker that wraps `fetch` keeps the rest of the module:
 * `export default { ...skill, fetch }`.
 */
export type SkillWorker<Env extends object = object, Input extends z.ZodType = z.ZodType, Output extends z.ZodType = z.ZodType> = {
  /** Workers RPC calls a module's method with the Worker's env and context after the caller's arguments. */
  [SKILL_RPC_METHOD]: (call: SkillRpcCall, env: Env, ctx: ExecutionContext) => Promise<string>;
  [SKILL_CANCEL_METHOD]: (cancelId: unknown) => Promise<void>;
  fetch: Hono<{ Bindings: Env }>["fetch"];
  manifest: SkillManifest;
  [PARTS]: { definition: SkillDefinition<Input, Output, Env>; app: Hono<{ Bindings: Env }> };
};

/**
 * A skill's definition, for tools and benchmarks that host the same logic elsewhere.
 * @example const { handler, input } = definitionOf(modbus)
 */
export function definitionOf<Env extends object, Input extends z.ZodType, Output extends z.ZodType>(
  skill: SkillWorker<Env, Input, Output>,
): SkillDefinition<Input, Output, Env> {
  return skill[PARTS].definition;
}

/**
 * A skill's Hono app, where routes of its own go (they are served by its `fetch`).
 * @example appOf(skill).get("/health", (c) => c.text("ok"))
 */
export function appOf<Env extends object>(skill: SkillWorker<Env>): Hono<{ Bindings: Env }> {
  return skill[PARTS].app;
}

/**
 * Defines a skill and returns its Worker module.
 * @example
 * export default defineSkill({
 *   name: "math.subtract", version: "1.0.0", description: "a - b", tags: ["math"],
 *   input: z.object({ minuend: z.number(), subtrahend: z.number() }), output: z.number(),
 *   idempotent: true,
 *   handler: ({ minuend, subtrahend }) => minuend - subtrahend,
 * })
 */
export function defineSkill<Input extends z.ZodType, Output extends z.ZodType, Env extends object = object>(
  declared: SkillDefinition<Input, Output, Env>,
): SkillWorker<Env, Input, Output> {
  // Undeclared input fields are refused (and the published schema says so) unless the skill opts out.
  const definition = declared.strictInput === false ? declared : { ...declared, input: strictInputOf(declared.input) };
  const manifest = manifestOf(definition);
  const answerer = new SkillAnswerer<Env>(definition as SkillDefinition<z.ZodType, z.ZodType, Env>, manifest, positionalMapper(definition.input));
  const versionHeader = { "x-skill-version": answerer.deploymentId };
  const app = new Hono<{ Bindings: Env }>();

  app.use(drainUnreadBody());
  app.get("/manifest", (c) => c.json(manifest));
  app.post("/", jsonBodyGuard(), async (c) => {
    const headers = c.req.raw.headers;
    const waitUntil = (p: Promise<unknown>) => executionCtxOf(c)?.waitUntil(p);
    const delivery: Delivery<Env> = {
      body: await bodyText(c),
      headers,
      method: c.req.method,
      pathOf: () => new URL(c.req.url).pathname,
      env: c.env as Env,
      waitUntil,
    };
    const refusal = await answerer.refusalOf(delivery);
    if (refusal) return c.json(refusal, 401);
    if (!acceptsEventStream(headers))
      return toHttpResponse(
        await answerer.answer(
          delivery,
          () => c.req.raw.signal,
          () => {},
        ),
        versionHeader,
      );
    // A streaming caller: progress notifications and log messages as the handler sends them, then the response.
    const stream = sseStream(async (sse) => {
      const report = progressRelay(sse);
      const processed = await answerer.answer(
        delivery,
        () => anySignal([c.req.raw.signal, sse.signal]),
        (progress, total, message) => report({ progress, total, message }),
        skillLogOf(sse, headers.get(LOG_LEVEL_HEADER)),
      );
      if (processed !== undefined) sse.sendJson(answerJson(processed));
    });
    return new Response(stream, { headers: { ...SSE_HEADERS, ...versionHeader } });
  });
  app.notFound((c) => c.json({ error: { message: "Not found: POST / for JSON-RPC, GET /manifest" } }, 404));
  app.onError((err, c) => {
    if (err instanceof HTTPException) return err.getResponse();
    answerer.logError("unhandled error", err);
    return c.json({ jsonrpc: "2.0", error: { code: ErrorCode.InternalError, message: "Internal error" }, id: null }, 500);
  });

  const receiver = rpcReceiverOf(answerer);
  return { fetch: app.fetch, [SKILL_RPC_METHOD]: receiver.call, [SKILL_CANCEL_METHOD]: receiver.cancel, manifest, [PARTS]: { definition, app } };
}

/**
 * Builds and checks the manifest as the gateway will (a bad or reserved name, a bad version, a
 * schema too deep or too large fails at module load, not at registration).
 */
function manifestOf(definition: Omit<SkillDefinition<z.ZodType, z.ZodType, never>, "handler">): SkillManifest {
  return RegisteredManifestSchema.parse({
    name: definition.name,
    version: definition.version,
    description: definition.description,
    tags: definition.tags,
    idempotent: definition.idempotent ?? false,
    ...(definition.title ? { title: definition.title } : {}),
    ...annotationsOf(definition),
    degraded: definition.degraded ?? false,
    timeoutMs: definition.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(definition.idempotencyTtlSeconds ? { idempotencyTtlSeconds: definition.idempotencyTtlSeconds } : {}),
    ...(definition.maxDurationMs ? { maxDurationMs: definition.maxDurationMs } : {}),
    ...(definition.jobOnly ? { jobOnly: true } : {}),
    ...(definition.pipeline ? { pipeline: definition.pipeline } : {}),
    ...(definition.cost ? { cost: definition.cost } : {}),
    ...(definition.reliability ? { reliability: definition.reliability } : {}),
    ...(definition.breaker ? { breaker: definition.breaker } : {}),
    ...(definition.egress ? { egress: definition.egress } : {}),
    ...(definition.limits ? { limits: definition.limits } : {}),
    ...(definition.guardrails ? { guardrails: definition.guardrails } : {}),
    ...(definition.ui ? { ui: definition.ui } : {}),
    ...(definition.resources?.length ? { resources: definition.resources.map(({ read: _read, ...declared }) => declared) } : {}),
    ...(definition.resourceTemplates?.length ? { resourceTemplates: definition.resourceTemplates.map(({ read: _read, ...declared }) => declared) } : {}),
    ...(definition.prompts?.length ? { prompts: definition.prompts.map(({ get: _get, ...declared }) => declared) } : {}),
    inputSchema: z.toJSONSchema(definition.input, { io: "input", unrepresentable: "any" }),
    outputSchema: z.toJSONSchema(definition.output, { io: "output", unrepresentable: "any" }),
  });
}

/** The hints a skill declares, as its manifest holds them: `idempotentHint` is only ever its `idempotent` (the listing adds it). */
function annotationsOf(definition: { annotations?: SkillAnnotations }): { annotations?: SkillAnnotations } {
  const { readOnlyHint, destructiveHint, openWorldHint } = definition.annotations ?? {};
  const hints = Object.fromEntries(Object.entries({ readOnlyHint, destructiveHint, openWorldHint }).filter(([, hint]) => hint !== undefined));
  return Object.keys(hints).length ? { annotations: hints } : {};
}

/**
 * Maps `params` onto what the input schema expects: by-name params pass through; by-position
 * params fill an object schema's keys in declaration order, or pass through to an array schema.
 * Missing params are `{}` (or `[]`).
 */
export function positionalMapper(input: z.ZodType): (params: JsonRpcParams | undefined) => unknown {
  if (input instanceof z.ZodObject) {
    const keys = Object.keys(input.shape);
    return (params) => {
      if (params === undefined) return {};
      if (!Array.isArray(params)) return params;
      if (params.length > keys.length) {
        throw new RpcError(ErrorCode.InvalidParams, `Invalid params: expected at most ${keys.length} positional params (${keys.join(", ")})`);
      }
      return Object.fromEntries((params as unknown[]).map((value, i): [string, unknown] => [keys[i]!, value]));
    };
  }
  if (input instanceof z.ZodArray || input instanceof z.ZodTuple) {
    return (params) => {
      if (params === undefined) return [];
      if (!Array.isArray(params)) throw new RpcError(ErrorCode.InvalidParams, "Invalid params: this method takes positional params (an array)");
      return params;
    };
  }
  return (params) => params;
}

function executionCtxOf(c: { executionCtx: ExecutionContext }): ExecutionContext | undefined {
  try {
    return c.executionCtx; // throws outside a Worker (e.g. app.request in a unit test)
  } catch {
    return undefined;
  }
}
