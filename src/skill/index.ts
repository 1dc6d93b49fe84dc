/**
 * The skill SDK: `defineSkill({...})` turns one typed handler into a Worker module (a Hono app)
 * that serves JSON-RPC 2.0 on `POST /` and its manifest on `GET /manifest`.
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { CONTEXT_HEADER, type CallerContext, readContext } from "../context/index.js";
import { progressRelay } from "../progress/index.js";
import { SSE_HEADERS, acceptsEventStream, sseStream } from "../sse/index.js";
import { ErrorCode, type JsonRpcFailure, type JsonRpcParams, type JsonRpcRequest, type ProcessedBody, RpcError, describeIssues, failure, parseParams, processJsonRpc } from "../jsonrpc/index.js";
import { answerJson, bodyText, drainUnreadBody, jsonBodyGuard, toHttpResponse } from "../jsonrpc/http.js";
import { BINDING_PATH, CALL_KEY_HEADER, DELEGATION_HEADER, RETIRED_HOP_SECRET, SIGNATURE_HEADER, hopRefusal, publicKeyList } from "../hop/index.js";
import { ABORT_AFTER_TIMEOUT_MS, type HeaderLookup, SKILL_CANCEL_METHOD, SKILL_RPC_METHOD, type SkillRpcCall, SkillRpcCallSchema, headerLookupOf } from "../hop/rpc.js";
import { MAX_ANSWER_BYTES, answerTooLargeMessage } from "../body/index.js";
import { type Context, SpanKind, inSpan, isRecording, parentContextOf, trace } from "../tracing/index.js";
import { strictInputOf } from "./strict.js";
import { DEFAULT_TIMEOUT_MS, RegisteredManifestSchema, type SkillManifest } from "./manifest.js";
import { Cancellation, anySignal } from "../signal/index.js";

const tracer = trace.getTracer("skillmesh-skill");

export { z } from "zod";
export { ErrorCode, RpcError } from "../jsonrpc/index.js";
export type { SkillManifest } from "./manifest.js";

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

/** What a handler gets besides its input: the caller context, the Worker's env and waitUntil. */
export type SkillContext<Env = object> = CallerContext & {
  env: Env;
  /** The JSON-RPC id of the call (undefined for a notification). */
  requestId: string | number | null | undefined;
  /** Keeps work going after the response (Workers `ctx.waitUntil`). */
  waitUntil: (promise: Promise<unknown>) => void;
  /**
   * Reports how far the call has got, to a caller that streams (the gateway asks for it when its
   * own caller wants progress); a no-op otherwise. `done` must grow from one report to the next.
   */
  progress: (done: number, total?: number, message?: string) => void;
  /** Aborted when the caller gives up: it disconnected or cancelled, or the gateway's timeout passed. */
  signal: AbortSignal;
  /**
   * The OpenTelemetry context of the handler's span: the parent of spans the handler starts
   * (Workers have no context manager, so `context.active()` does not find it).
   */
  trace: Context;
  /** A pipeline's token to call the gateway as its caller (set only for pipelines, src/pipeline/worker.ts). */
  delegation?: string;
  /** A pipeline's call key: its steps' `Idempotency-Key`s derive from it (set only for pipelines). */
  callKey?: string;
};

/** What a handler's `ctx` holds besides the caller context and its two getters. */
type CallFields<Env> = Pick<SkillContext<Env>, "env" | "requestId" | "waitUntil" | "progress" | "delegation" | "callKey">;

/**
 * A handler's `ctx`. `trace` and `signal` are getters of the class, made when first read: an
 * object literal with getters took ~2.7 µs to build, more than the rest of a trivial call's
 * context together (so `{ ...ctx }` leaves those two out: pass `ctx` itself along). Fields are
 * assigned one by one: `Object.assign` of a spread literal onto the instance cost ~1.8 µs too.
 * An optional field is set only when it has a value, as the object spread it replaces did
 * (`declare`: no class field definitions, which would make every one an own key).
 */
class HandlerContext<Env> implements SkillContext<Env> {
  declare userId?: string;
  declare group?: string;
  declare session?: string;
  declare caller: string;
  declare traceparent?: string;
  declare env: Env;
  declare requestId: SkillContext["requestId"];
  declare waitUntil: SkillContext["waitUntil"];
  declare progress: SkillContext["progress"];
  declare delegation?: string;
  declare callKey?: string;
  readonly #traceOf: () => Context;
  readonly #signalOf: () => AbortSignal;

  constructor(context: CallerContext, call: CallFields<Env>, traceOf: () => Context, signalOf: () => AbortSignal) {
    if (context.userId !== undefined) this.userId = context.userId;
    if (context.group !== undefined) this.group = context.group;
    if (context.session !== undefined) this.session = context.session;
    this.caller = context.caller;
    if (context.traceparent !== undefined) this.traceparent = context.traceparent;
    this.env = call.env;
    this.requestId = call.requestId;
    this.waitUntil = call.waitUntil;
    this.progress = call.progress;
    if (call.delegation !== undefined) this.delegation = call.delegation;
    if (call.callKey !== undefined) this.callKey = call.callKey;
    this.#traceOf = traceOf;
    this.#signalOf = signalOf;
  }

  get trace(): Context {
    return this.#traceOf();
  }

  get signal(): AbortSignal {
    return this.#signalOf();
  }
}

/** Everything a skill declares (README, "Write a new skill"). */
export interface SkillDefinition<Input extends z.ZodType, Output extends z.ZodType, Env> {
  name: string;
  version: string;
  /** Shown to models: say what the skill does and when to use it. */
  description: string;
  tags: string[];
  /** An object schema (its key order is the positional order) or an array/tuple schema. */
  input: Input;
  output: Output;
  /** Pure or safe to repeat: the gateway may retry it on its own. Default false. */
  idempotent?: boolean;
  /** True: this deployment is only the fallback of `name`. Default false. */
  degraded?: boolean;
  /** Gateway-side timeout for one call. Default 10 s. */
  timeoutMs?: number;
  /** How long one call may run when it is asked for as an async job; beyond `timeoutMs`. Default `timeoutMs`. */
  maxDurationMs?: number;
  /** Set by `definePipeline` (src/pipeline/worker.ts): the skills the steps call. */
  pipeline?: { steps: string[] };
  /** What a call costs, e.g. `{ currency: "USD", perCall: 0.002 }` (shown beside the observed numbers). */
  cost?: SkillManifest["cost"];
  /** What the skill promises, e.g. `{ successRate: 0.999, p95Ms: 300 }` (shown beside the observed numbers). */
  reliability?: SkillManifest["reliability"];
  /** Circuit-breaker overrides, e.g. `{ consecutiveFailures: 3, openMs: 10_000 }`. */
  breaker?: SkillManifest["breaker"];
  /** How long the gateway keeps this skill's answers for `Idempotency-Key` replays. Default 1 h. */
  idempotencyTtlSeconds?: number;
  /**
   * Default true: a field the input does not declare (at any depth) is refused with -32602
   * naming it, and the published schema says `additionalProperties: false` (./strict.ts). False:
   * such fields are dropped, as JSON Schema's open default allows.
   */
  strictInput?: boolean;
  handler: (input: z.output<Input>, ctx: SkillContext<Env>) => z.input<Output> | Promise<z.input<Output>>;
}

/** Where a skill module keeps its definition and its Hono app: a symbol, which Workers RPC cannot name. */
const PARTS = Symbol("skillmesh.skill");

/**
 * The Worker module `defineSkill` returns: `fetch` (its Hono app: JSON-RPC on `POST /`, the
 * manifest on `GET /manifest`), the gateway's RPC hop (`skillmeshCall`, `skillmeshCancel`:
 * src/hop/rpc.ts) and its manifest (public data). A bound Worker may call any string-named
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
export function definitionOf<Env extends object, Input extends z.ZodType, Output extends z.ZodType>(skill: SkillWorker<Env, Input, Output>): SkillDefinition<Input, Output, Env> {
  return skill[PARTS].definition;
}

/**
 * A skill's Hono app, where routes of its own go (they are served by its `fetch`).
 * @example appOf(skill).get("/health", (c) => c.text("ok"))
 */
export function appOf<Env extends object>(skill: SkillWorker<Env>): Hono<{ Bindings: Env }> {
  return skill[PARTS].app;
}

/** A JSON-RPC body as it reached the skill, by HTTP or by the gateway's RPC hop. */
interface Delivery<Env> {
  body: string;
  /** Its headers: the request's, or the RPC hop's record (`headerLookupOf`: no Headers object built for it). */
  headers: HeaderLookup;
  /** The method and path the signature covers (the RPC hop signs as a `POST` to `BINDING_PATH`); the path is read only when a signature is checked. */
  method: string;
  pathOf: () => string;
  env: Env;
  waitUntil: (promise: Promise<unknown>) => void;
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
  const toInput = positionalMapper(definition.input);
  const deploymentId = `${manifest.name}@${manifest.version}`;
  const versionHeader = { "x-skill-version": deploymentId };
  const app = new Hono<{ Bindings: Env }>();

  app.use(drainUnreadBody());
  app.get("/manifest", (c) => c.json(manifest));
  app.post("/", jsonBodyGuard(), async (c) => {
    const headers = c.req.raw.headers;
    const waitUntil = (p: Promise<unknown>) => executionCtxOf(c)?.waitUntil(p);
    const delivery: Delivery<Env> = { body: await bodyText(c), headers, method: c.req.method, pathOf: () => new URL(c.req.url).pathname, env: c.env as Env, waitUntil };
    const refusal = await refusalOf(delivery);
    if (refusal) return c.json(refusal, 401);
    if (!acceptsEventStream(headers)) return toHttpResponse(await answer(delivery, () => c.req.raw.signal, () => {}), versionHeader);
    // A streaming caller: progress notifications as the handler reports them, then the response.
    const stream = sseStream(async (sse) => {
      const report = progressRelay(sse);
      const processed = await answer(delivery, () => anySignal([c.req.raw.signal, sse.signal]), (progress, total, message) => report({ progress, total, message }));
      if (processed !== undefined) sse.sendJson(answerJson(processed));
    });
    return new Response(stream, { headers: { ...SSE_HEADERS, ...versionHeader } });
  });
  app.notFound((c) => c.json({ error: { message: "Not found: POST / for JSON-RPC, GET /manifest" } }, 404));
  app.onError((err, c) => {
    if (err instanceof HTTPException) return err.getResponse();
    console.error(`[${manifest.name}@${manifest.version}]`, err);
    return c.json({ jsonrpc: "2.0", error: { code: ErrorCode.InternalError, message: "Internal error" }, id: null }, 500);
  });

  /** Calls of this isolate that the gateway may cancel, by their `cancelId`. */
  const cancellable = new Map<string, Cancellation>();

  /** The gateway's RPC hop: the same body and headers as a `POST /`, the answer as text. */
  async function skillmeshCall(received: SkillRpcCall, env: Env, ctx: ExecutionContext): Promise<string> {
    const checked = SkillRpcCallSchema.safeParse(received);
    if (!checked.success) return JSON.stringify(failure(null, ErrorCode.InvalidRequest, "Invalid Request: not a call of the gateway's RPC hop", { issues: describeIssues(checked.error) }));
    const call = checked.data;
    const delivery: Delivery<Env> = { body: call.body, headers: headerLookupOf(call.headers), method: "POST", pathOf: () => BINDING_PATH, env, waitUntil: (p) => ctx.waitUntil(p) };
    const refusal = await refusalOf(delivery);
    if (refusal) return JSON.stringify(refusal);
    // A call with a signal of its caller's, or that streams, comes over HTTP (src/hop/rpc.ts):
    // this one's aborts are the gateway's timeout, kept here, and with a cancelId the gateway's
    // cancel (skillmeshCancel, another request: polled) — timers only for a handler that asks.
    const deadline = Date.now() + call.timeoutMs + ABORT_AFTER_TIMEOUT_MS;
    const cancellation = call.cancelId ? new Cancellation() : undefined;
    if (cancellation) cancellable.set(call.cancelId!, cancellation);
    let watched: ReturnType<Cancellation["watch"]> | undefined;
    let answered = false;
    const signalOf = () => {
      const timeout = AbortSignal.timeout(Math.max(0, deadline - Date.now()));
      // Read first after the answer (by work the handler left in waitUntil): no poll is left running.
      watched = answered ? undefined : cancellation?.watch();
      return watched ? anySignal([timeout, watched.signal]) : timeout;
    };
    let processed: ProcessedBody;
    try {
      processed = await answer(delivery, signalOf, () => {});
    } finally {
      answered = true;
      watched?.stop();
      if (cancellation) cancellable.delete(call.cancelId!);
    }
    const text = processed === undefined ? "" : answerJson(processed);
    if (text.length <= MAX_ANSWER_BYTES) return text;
    console.error(`[${manifest.name}@${manifest.version}] an answer of ${text.length} characters is past the ${MAX_ANSWER_BYTES} the gateway reads`);
    return JSON.stringify(failure(null, ErrorCode.InternalError, answerTooLargeMessage(manifest.name)));
  }

  /** The gateway's cancel of a call it made with a `cancelId` (in a request of its own): the call's `ctx.signal` aborts. */
  async function skillmeshCancel(cancelId: unknown): Promise<void> {
    if (typeof cancelId === "string") await cancellable.get(cancelId)?.cancel();
  }

  /** With the gateway's public key, only calls the gateway signed for this deployment are served: the refusal for one that is not. */
  async function refusalOf(delivery: Delivery<Env>): Promise<JsonRpcFailure | undefined> {
    const verifier = hopVerifierOf(delivery.env);
    if (!verifier) return undefined;
    if ("misconfigured" in verifier) {
      console.error(`[${manifest.name}@${manifest.version}] ${verifier.misconfigured}`);
      return failure(null, ErrorCode.Unauthorized, "Unauthorized: this skill cannot check who calls it (its hop settings are wrong; see its log)");
    }
    const { body, headers, method, pathOf } = delivery;
    const header = (name: string) => headers.get(name) ?? "";
    const parts = { method, path: pathOf(), deployment: deploymentId, body, context: header(CONTEXT_HEADER), delegation: header(DELEGATION_HEADER), callKey: header(CALL_KEY_HEADER) };
    const refusal = await hopRefusal(verifier.publicKeys, headers.get(SIGNATURE_HEADER), parts);
    return refusal ? failure(null, ErrorCode.Unauthorized, `Unauthorized: ${refusal}`) : undefined;
  }

  /**
   * Every request of a delivered body through `invoke`, each in a span continuing the caller's
   * trace; `signalOf` makes the call's signal the first time a handler reads `ctx.signal`.
   */
  function answer(delivery: Delivery<Env>, signalOf: () => AbortSignal, progress: SkillContext["progress"]): Promise<ProcessedBody> {
    const { headers, env, waitUntil } = delivery;
    // A signed call's context is believed (or any, where the operator says only the gateway reaches this Worker).
    const caller = readContext(headers, !!hopVerifierOf(env) || trustsContext(env));
    const delegation = manifest.pipeline ? (headers.get(DELEGATION_HEADER) ?? undefined) : undefined;
    const callKey = manifest.pipeline ? (headers.get(CALL_KEY_HEADER) ?? undefined) : undefined;
    // The handler's trace context is made when first read: without a tracer provider nothing
    // else needs it, and building it from the traceparent was ~7% of a trivial call's skill.
    let parent: Context | undefined;
    const parentOf = () => (parent ??= parentContextOf(caller.traceparent));
    const attributes = { "skillmesh.skill": manifest.name, "skillmesh.version": manifest.version };
    let signal: AbortSignal | undefined;
    const signalOnce = () => (signal ??= signalOf());
    const contextOf = (request: JsonRpcRequest, traceOf: () => Context) => new HandlerContext<Env>(caller, { env, requestId: request.id, waitUntil, progress, delegation, callKey }, traceOf, signalOnce);
    return processJsonRpc(delivery.body, (request) =>
      isRecording()
        ? inSpan(tracer, `skill ${manifest.name}`, parentOf(), { kind: SpanKind.SERVER, attributes }, (_span, trace) => invoke(request, contextOf(request, () => trace)))
        : invoke(request, contextOf(request, parentOf)),
    );
  }

  async function invoke(request: JsonRpcRequest, ctx: SkillContext<Env>): Promise<unknown> {
    if (request.method !== manifest.name) throw new RpcError(ErrorCode.MethodNotFound);
    const input = parseParams(definition.input, toInput(request.params));
    let output: unknown;
    try {
      output = await definition.handler(input, ctx);
    } catch (thrown) {
      if (thrown instanceof RpcError) throw thrown;
      console.error(`[${manifest.name}@${manifest.version}] handler threw`, thrown);
      throw new RpcError(ErrorCode.InternalError);
    }
    const checked = definition.output.safeParse(output);
    if (!checked.success) {
      console.error(`[${manifest.name}@${manifest.version}] output breaks the contract`, checked.error.issues);
      throw new RpcError(ErrorCode.InternalError, "Internal error: the skill returned output that breaks its own schema");
    }
    return checked.data;
  }

  return { fetch: app.fetch, [SKILL_RPC_METHOD]: skillmeshCall, [SKILL_CANCEL_METHOD]: skillmeshCancel, manifest, [PARTS]: { definition, app } };
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
    degraded: definition.degraded ?? false,
    timeoutMs: definition.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(definition.idempotencyTtlSeconds ? { idempotencyTtlSeconds: definition.idempotencyTtlSeconds } : {}),
    ...(definition.maxDurationMs ? { maxDurationMs: definition.maxDurationMs } : {}),
    ...(definition.pipeline ? { pipeline: definition.pipeline } : {}),
    ...(definition.cost ? { cost: definition.cost } : {}),
    ...(definition.reliability ? { reliability: definition.reliability } : {}),
    ...(definition.breaker ? { breaker: definition.breaker } : {}),
    inputSchema: z.toJSONSchema(definition.input, { io: "input", unrepresentable: "any" }),
    outputSchema: z.toJSONSchema(definition.output, { io: "output", unrepresentable: "any" }),
  });
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
      return Object.fromEntries(params.map((value, i) => [keys[i], value]));
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

/**
 * Whether this Worker believes the caller-context header: only when its operator set
 * `SKILLMESH_TRUST_CONTEXT = "true"`, promising that nothing but the gateway reaches it (a
 * service binding, `workers_dev = false`). A direct call to anything else could forge it.
 */
function trustsContext(env: unknown): boolean {
  return (env as { SKILLMESH_TRUST_CONTEXT?: unknown } | undefined)?.SKILLMESH_TRUST_CONTEXT === "true";
}

type HopVerifier = { publicKeys: string } | { misconfigured: string } | undefined;

/** Each env's verifier, worked out once: Workers hand every request of an isolate the same env object. */
const verifiers = new WeakMap<object, HopVerifier>();

/**
 * How this Worker checks that the gateway sent a call: with the gateway's public key
 * (`SKILLMESH_HOP_PUBLIC_KEY`) every call must be signed for this deployment; without one, no
 * check (the context is then believed only with `SKILLMESH_TRUST_CONTEXT`). A Worker still set up
 * with the retired shared `SKILLMESH_HOP_SECRET`, or with a key that does not parse, serves no call
 * rather than every call.
 */
function hopVerifierOf(env: unknown): HopVerifier {
  if (typeof env !== "object" || env === null) return undefined;
  if (verifiers.has(env)) return verifiers.get(env);
  const vars = env as { SKILLMESH_HOP_PUBLIC_KEY?: unknown; SKILLMESH_HOP_SECRET?: unknown };
  const publicKeys = vars.SKILLMESH_HOP_PUBLIC_KEY;
  let verifier: HopVerifier;
  if (typeof publicKeys === "string" && publicKeys) {
    verifier = publicKeyList(publicKeys) ? { publicKeys } : { misconfigured: "SKILLMESH_HOP_PUBLIC_KEY is not a list of Ed25519 public keys (npx skillmesh hop-key prints the gateway's)" };
  } else if (typeof vars.SKILLMESH_HOP_SECRET === "string" && vars.SKILLMESH_HOP_SECRET) {
    verifier = { misconfigured: RETIRED_HOP_SECRET };
  }
  verifiers.set(env, verifier);
  return verifier;
}

function executionCtxOf(c: { executionCtx: ExecutionContext }): ExecutionContext | undefined {
  try {
    return c.executionCtx; // throws outside a Worker (e.g. app.request in a unit test)
  } catch {
    return undefined;
  }
}
