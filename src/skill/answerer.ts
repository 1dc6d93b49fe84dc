/**
 * The receiving side of a call, whichever way it came (HTTP or the gateway's RPC hop): the hop
 * signature checked, every request of the body run through the handler in a span, the input
 * parsed and the output held to the skill's schemas.
 */
import { CONTEXT_HEADER, readContext } from "../protocols/context/index.js";
import { CALL_KEY_HEADER, DELEGATION_HEADER, RETIRED_HOP_SECRET, SIGNATURE_HEADER, hopRefusal, publicKeyList } from "../protocols/hop/index.js";
import type { HeaderLookup } from "../protocols/hop/rpc.js";
import {
  ErrorCode,
  type JsonRpcFailure,
  type JsonRpcParams,
  type JsonRpcRequest,
  type ProcessedBody,
  RpcError,
  failure,
  parseParams,
  processJsonRpc,
} from "../protocols/jsonrpc/index.js";
import { type Context, SpanKind, inSpan, isRecording, parentContextOf, trace } from "../protocols/tracing/index.js";
import type { z } from "zod";
import { HandlerContext, type ResourceBody, type SkillContext, type SkillDefinition } from "./definition.js";
import {
  type GetPromptResult,
  GetPromptParamsSchema,
  type ReadResourceResult,
  ReadResourceParamsSchema,
  matchUriTemplate,
  resourceContentsOf,
} from "../protocols/mcp/index.js";
import type { SkillManifest } from "./manifest.js";

const tracer = trace.getTracer("skillmesh-skill");
/** `ctx.log` of a call whose caller asked for no log messages. */
const NO_LOG: SkillContext["log"] = () => {};

export /** A JSON-RPC body as it reached the skill, by HTTP or by the gateway's RPC hop. */
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
 * Whether this Worker believes the caller-context header: only when its operator set
 * `SKILLMESH_TRUST_CONTEXT = "true"`, promising that nothing but the gateway reaches it (a
 * service binding, `workers_dev = false`). A direct call to anything else could forge it.
 */
export function trustsContext(env: unknown): boolean {
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
export function hopVerifierOf(env: unknown): HopVerifier {
  if (typeof env !== "object" || env === null) return undefined;
  if (verifiers.has(env)) return verifiers.get(env);
  const vars = env as { SKILLMESH_HOP_PUBLIC_KEY?: unknown; SKILLMESH_HOP_SECRET?: unknown };
  const publicKeys = vars.SKILLMESH_HOP_PUBLIC_KEY;
  let verifier: HopVerifier;
  if (typeof publicKeys === "string" && publicKeys) {
    verifier =
      publicKeyList(publicKeys) ?
        { publicKeys }
      : { misconfigured: "SKILLMESH_HOP_PUBLIC_KEY is not a list of Ed25519 public keys (npx skillmesh hop-key prints the gateway's)" };
  } else if (typeof vars.SKILLMESH_HOP_SECRET === "string" && vars.SKILLMESH_HOP_SECRET) {
    verifier = { misconfigured: RETIRED_HOP_SECRET };
  }
  verifiers.set(env, verifier);
  return verifier;
}

/**
 * Answers the calls of one skill: `refusalOf` (is it signed by the gateway?), then `answer` (the
 * body's requests through the handler).
 * @example const answerer = new SkillAnswerer(definition, manifest, positionalMapper(definition.input))
 */
export class SkillAnswerer<Env> {
  /** `name@version`: what the gateway signs a call for, and the prefix of this skill's log lines. */
  readonly deploymentId: string;

  constructor(
    readonly definition: SkillDefinition<z.ZodType, z.ZodType, Env>,
    readonly manifest: SkillManifest,
    private readonly toInput: (params: JsonRpcParams | undefined) => unknown,
  ) {
    this.deploymentId = `${manifest.name}@${manifest.version}`;
  }

  /** Logs an error of this skill's, prefixed with its deployment. */
  logError(message: string, ...details: unknown[]): void {
    console.error(`[${this.deploymentId}] ${message}`, ...details);
  }

  /** With the gateway's public key, only calls the gateway signed for this deployment are served: the refusal for one that is not. */
  async refusalOf(delivery: Delivery<Env>): Promise<JsonRpcFailure | undefined> {
    const verifier = hopVerifierOf(delivery.env);
    if (!verifier) return undefined;
    if ("misconfigured" in verifier) {
      this.logError(verifier.misconfigured);
      return failure(null, ErrorCode.Unauthorized, "Unauthorized: this skill cannot check who calls it (its hop settings are wrong; see its log)");
    }
    const { body, headers, method, pathOf } = delivery;
    const header = (name: string) => headers.get(name) ?? "";
    const parts = {
      method,
      path: pathOf(),
      deployment: this.deploymentId,
      body,
      context: header(CONTEXT_HEADER),
      delegation: header(DELEGATION_HEADER),
      callKey: header(CALL_KEY_HEADER),
    };
    const refusal = await hopRefusal(verifier.publicKeys, headers.get(SIGNATURE_HEADER), parts);
    return refusal ? failure(null, ErrorCode.Unauthorized, `Unauthorized: ${refusal}`) : undefined;
  }

  /**
   * Every request of a delivered body through the handler, each in a span continuing the caller's
   * trace; `signalOf` makes the call's signal the first time a handler reads `ctx.signal`.
   */
  answer(delivery: Delivery<Env>, signalOf: () => AbortSignal, progress: SkillContext["progress"], log: SkillContext["log"] = NO_LOG): Promise<ProcessedBody> {
    const { manifest } = this;
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
    const contextOf = (request: JsonRpcRequest, traceOf: () => Context) =>
      new HandlerContext<Env>(caller, { env, requestId: request.id, waitUntil, progress, log, delegation, callKey }, traceOf, signalOnce);
    return processJsonRpc(delivery.body, (request) =>
      isRecording() ?
        inSpan(tracer, `skill ${manifest.name}`, parentOf(), { kind: SpanKind.SERVER, attributes }, (_span, trace) =>
          this.run(
            request,
            contextOf(request, () => trace),
          ),
        )
      : this.run(request, contextOf(request, parentOf)),
    );
  }

  /** One request: its input parsed, the handler run, its output held to the skill's schema. */
  private async run(request: JsonRpcRequest, ctx: SkillContext<Env>): Promise<unknown> {
    const { definition, manifest } = this;
    if (request.method === "resources/read" && (definition.resources || definition.resourceTemplates))
      return this.guarded(() => readResource(definition, request.params, ctx));
    if (request.method === "prompts/get" && definition.prompts) return this.guarded(() => getPrompt(definition, request.params, ctx));
    if (request.method !== manifest.name) throw new RpcError(ErrorCode.MethodNotFound);
    const input = parseParams(definition.input, this.toInput(request.params));
    let output: unknown;
    try {
      output = await definition.handler(input, ctx);
    } catch (thrown) {
      if (thrown instanceof RpcError) throw thrown;
      this.logError("handler threw", thrown);
      throw new RpcError(ErrorCode.InternalError);
    }
    const checked = definition.output.safeParse(output);
    if (!checked.success) {
      this.logError("output breaks the contract", checked.error.issues);
      throw new RpcError(ErrorCode.InternalError, "Internal error: the skill returned output that breaks its own schema");
    }
    return checked.data;
  }

  /** A resource's read or a prompt's get: its own `RpcError` as is, anything else logged and -32603. */
  private async guarded(run: () => Promise<unknown>): Promise<unknown> {
    try {
      return await run();
    } catch (thrown) {
      if (thrown instanceof RpcError) throw thrown;
      this.logError("a resource read or prompt get threw", thrown);
      throw new RpcError(ErrorCode.InternalError);
    }
  }
}

/** `resources/read` of one of the skill's resources (a fixed URI first, then its templates). */
async function readResource<Env>(definition: SkillDefinition<z.ZodType, z.ZodType, Env>, params: unknown, ctx: SkillContext<Env>): Promise<ReadResourceResult> {
  const { uri } = parseParams(ReadResourceParamsSchema, params);
  const fixed = definition.resources?.find((r) => r.uri === uri);
  if (fixed) return contentsOf(uri, fixed.mimeType, await fixed.read(ctx), fixed._meta);
  for (const template of definition.resourceTemplates ?? []) {
    const variables = matchUriTemplate(template.uriTemplate, uri);
    if (variables) return contentsOf(uri, template.mimeType, await template.read(variables, ctx));
  }
  throw new RpcError(ErrorCode.InvalidParams, "Resource not found", { uri: uri.slice(0, 200) });
}

/** A read's answer: one resource's contents, with what the resource declares of itself (an MCP App's `_meta.ui`, which hosts read here first). */
const contentsOf = (uri: string, mimeType: string | undefined, body: ResourceBody, meta?: Record<string, unknown>): ReadResourceResult => {
  const contents = resourceContentsOf(
    uri,
    mimeType,
    typeof body === "string" ? body
    : "text" in body ? body.text
    : body.blob,
  );
  return { contents: [meta ? { ...contents, _meta: meta } : contents] };
};

/** `prompts/get` of one of the skill's prompts: its required arguments checked, its messages. */
async function getPrompt<Env>(definition: SkillDefinition<z.ZodType, z.ZodType, Env>, params: unknown, ctx: SkillContext<Env>): Promise<GetPromptResult> {
  const { name, arguments: args = {} } = parseParams(GetPromptParamsSchema, params);
  const prompt = definition.prompts?.find((p) => p.name === name);
  if (!prompt) throw new RpcError(ErrorCode.InvalidParams, `Unknown prompt: ${name.slice(0, 100)}`);
  const missing = (prompt.arguments ?? []).filter((a) => a.required && !args[a.name]).map((a) => a.name);
  if (missing.length) throw new RpcError(ErrorCode.InvalidParams, `Missing required argument${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}`);
  const body = await prompt.get(args, ctx);
  const messages = typeof body === "string" ? [{ role: "user" as const, content: { type: "text" as const, text: body } }] : body;
  return { ...(prompt.description ? { description: prompt.description } : {}), messages };
}
