/**
 * What answers each kind of operation once its target is resolved (the `answer` of its row in
 * operations.ts), and the policy `observed` a row may put around it. A read takes no retries and no
 * breaker, which guard a tool's calls; a skill's Worker gets its `timeoutMs`, an upstream
 * `UPSTREAM_ASK_MS`. What comes back is checked for its shape (and a resource's contents for the
 * URI read) before a caller sees it.
 */
import { forwardCall } from "../../federation/forward/index.js";
import { ErrorCode, type JsonRpcErrorObject, type JsonRpcRequest, type RequestSlot, RpcError } from "../../protocols/jsonrpc/index.js";
import type { CallScope } from "./scope.js";
import {
  type CompleteResult,
  CompleteResultSchema,
  GetPromptResultSchema,
  type ReadResourceResult,
  ReadResourceResultSchema,
  type UpstreamTask,
  isInputRequired,
  matchUriTemplate,
} from "../../protocols/mcp/index.js";
import type { Outcome } from "../../policies/outcome/index.js";
import { routedDeployment } from "../../registry/routing/index.js";
import type { CallerCatalog } from "./caller-catalog.js";
import { registryEntry } from "./lookup.js";
import { type Operation, type Target, upstreamAnswererOf } from "./operation.js";
import { type Call, type Handler, type Policy, breakerVerdict } from "./policies.js";
import type { ContentPath, PinCheck } from "../../policies/content/index.js";
import { searchCatalog } from "./search.js";
import { aiCatalogOf, discoverableOf, serverCardOf } from "../discovery/index.js";
import { gatewayAgentCardOf } from "../../protocols/a2a/index.js";
import { callerTokenStoredAt, removeCallerToken, storeCallerToken } from "../../federation/upstream/credentials.js";
import { contentBytesOf, digestRefusal } from "../../federation/upstream/packages.js";
import { appPinRefusal } from "../../federation/upstream/apps.js";

/** An operation on its way through its kind's policies, its target resolved. */
export interface OperationCall extends Call {
  readonly operation: Operation;
  readonly target: Target;
  /** The request's catalog (the caller's view), which resolved the target. */
  readonly catalog: CallerCatalog;
  /** Its content path, as strict as the target's owner and the door say. */
  readonly content: ContentPath;
  /** The error when what it asks for is not (or no longer) there for this caller, as its kind words it. */
  readonly notFound: () => RpcError;
  /** Calls a tool through the whole call chain (`invoke`) as `scope`: a script's tool calls (src/gateway/chain/execute.ts). */
  readonly callTool: (request: JsonRpcRequest, slot: RequestSlot, scope: CallScope) => Promise<unknown>;
}

/** A package file or archive as read: its bytes, digest and media type. */
export interface ServedFile {
  bytes: Uint8Array;
  digest: string;
  contentType: string;
}

/** How long one read or get of an upstream may take. */
export const UPSTREAM_ASK_MS = 10_000;

/**
 * The observed numbers of what answered (src/registry/metrics): a skill's deployment (its reads count with
 * its calls: the same Worker), `upstream:<name>@<version>`, `package:<name>@<version>`.
 */
export const observed: Policy<OperationCall> = async (call, next) => {
  const started = Date.now();
  const outcome = await next(call);
  const verdict = breakerVerdict(outcome);
  if (outcome.deployment && verdict !== "none") {
    const id = call.target.owner === "package" ? `package:${outcome.deployment}` : outcome.deployment;
    call.runtime.metrics.record(id, verdict === "success", Date.now() - started, await call.scope.principal(), call.scope.waitUntil);
  }
  return outcome;
};

/** Reads a resource, a package's archive, or gets a prompt, from its target. */
export const read: Handler<OperationCall> = async (call) => {
  const { target, operation } = call;
  let answeredBy: string | undefined;
  try {
    switch (target.owner) {
      case "package": {
        answeredBy = `${target.package}@${target.version}`;
        const { packages } = call.runtime;
        const file =
          target.path === undefined ? await packages.archive(target.package, target.version) : await packages.file(target.package, target.version, target.path);
        if (!file) throw call.notFound();
        return { ok: true, result: file satisfies ServedFile, deployment: answeredBy };
      }
      case "skill": {
        const entry = await registryEntry(call.runtime, target.skill, call.trace, call.scope.waitUntil);
        const routed = entry && routedDeployment(entry, call.scope.routeKey);
        if (!routed) throw new RpcError(ErrorCode.SkillUnavailable, `${target.skill} has no deployment to ask`, { retryAfterMs: 5_000 });
        answeredBy = routed.id;
        const asked = askedOf(operation, target.name);
        const answer = await forwardCall(
          routed,
          { ...asked, context: call.scope.context, ...(call.runtime.config.hopKey ? { hopKey: call.runtime.config.hopKey } : {}) },
          call.env,
        );
        return { ok: true, result: checked(operation, target, answer, answeredBy), deployment: answeredBy };
      }
      case "upstream": {
        answeredBy = upstreamAnswererOf(target);
        const asked = askedOf(operation, target.name, target.template);
        const round = operation.kind === "prompt" || operation.kind === "resource" ? operation.inputRound : undefined;
        const answer = await call.runtime.upstreams.calls.ask(target, { ...asked, ...askedAs(call), ...(round ? { inputRound: round } : {}) });
        // An upstream asking its caller for input (SEP-2322), checked where it came in.
        if (isInputRequired(answer)) return { ok: true, result: answer, deployment: answeredBy };
        return { ok: true, result: checked(operation, target, renamedContents(answer, asked.params.uri, operation), answeredBy), deployment: answeredBy };
      }
      case "gateway":
        throw new RpcError(ErrorCode.InternalError);
    }
  } catch (error) {
    return failedWith(error, operation.method, answeredBy);
  }
};

/**
 * The check a read's answer meets when what it reads was pinned (a federated Agent Skill's file:
 * its bytes' digest; an MCP App: its bytes' digest and its `_meta.ui`): an upstream that changed it
 * serves nothing of the change until an operator approves it. Run by the content path before
 * anything of the answer is scanned or relayed.
 */
export function pinOf(call: OperationCall): PinCheck | undefined {
  const { target, operation } = call;
  if (target.owner !== "upstream" || !target.pin || operation.kind !== "resource") return undefined;
  const { pin } = target;
  const answeredBy = upstreamAnswererOf(target);
  return async (result) => {
    if (isInputRequired(result)) return undefined;
    const read = result as ReadResourceResult;
    const refusal = pin.of === "app" ? await appPinRefusal(read, operation.uri, pin) : await digestRefusal(contentBytesOf(read, operation.uri), pin.digest);
    const what = pin.of === "app" ? "the app" : "the skill";
    return (
      refusal &&
      `${operation.uri.slice(0, 200)} ${refusal} (${answeredBy}): ${what} changed upstream since it was pinned, and is not served until an operator approves the change`
    );
  };
}

/** No values: what a prompt or template without completions of its own completes to. */
const NO_COMPLETION: CompleteResult = { completion: { values: [] } };

/**
 * Completes an argument: an upstream's prompt or template by asking the upstream version (one
 * that serves no completions answers none: -32601 upstream is no values); a skill's has none.
 */
export const complete: Handler<OperationCall> = async (call) => {
  const { target, operation } = call;
  if (operation.kind !== "completion" || target.owner !== "upstream") return { ok: true, result: NO_COMPLETION };
  const answeredBy = upstreamAnswererOf(target);
  // The upstream's own name for what is completed, whatever the caller named it by.
  const ref =
    operation.ref.type === "ref/prompt" ? { type: "ref/prompt", name: target.name } : { type: "ref/resource", uri: target.template ?? operation.ref.uri };
  const params = { ref, argument: operation.argument, ...(operation.given ? { context: { arguments: operation.given } } : {}) };
  try {
    const answer = await call.runtime.upstreams.calls.ask(target, { method: "completion/complete", params, ...askedAs(call) });
    const completed = CompleteResultSchema.safeParse(answer);
    if (!completed.success)
      throw new RpcError(ErrorCode.SkillUnavailable, `${answeredBy} answered completion/complete with something that is not a completion`);
    return { ok: true, result: completed.data, deployment: answeredBy };
  } catch (error) {
    if (error instanceof RpcError && (error.data as { upstreamCode?: number } | undefined)?.upstreamCode === ErrorCode.MethodNotFound)
      return { ok: true, result: NO_COMPLETION, deployment: answeredBy };
    return failedWith(error, "completion/complete", answeredBy);
  }
};

/**
 * Asks the upstream version that runs a caller's task about it (`tasks/get`: the task, checked
 * where it came in), or sends it the caller's answers or its cancellation (acknowledged: `{}`).
 * A task the upstream says has ended is written down in the caller's job, which no one asks the
 * upstream about again.
 */
export const upstreamTask: Handler<OperationCall> = async (call) => {
  const { target, operation } = call;
  if (operation.kind !== "task" || target.owner !== "upstream") throw new RpcError(ErrorCode.InternalError);
  const answeredBy = upstreamAnswererOf(target);
  try {
    const task = (await call.runtime.upstreams.calls.ask(target, {
      method: operation.method,
      params: { taskId: target.name, ...(operation.inputResponses ? { inputResponses: operation.inputResponses } : {}) },
      ...askedAs(call),
    })) as UpstreamTask | undefined;
    if (task && (task.status === "completed" || task.status === "failed" || task.status === "cancelled")) {
      // What the job keeps is what the caller may get: passed through the content path first, and answered as kept.
      const ended =
        task.status === "completed" ? await keptResult(call, task.result)
        : task.status === "failed" ? { error: (await call.content.kept(task.error ?? UPSTREAM_TASK_FAILED, "error")).value }
        : {};
      await call.runtime.jobs.move(operation.jobId, ["running"], { status: task.status, ...ended }, Date.now());
      return { ok: true, result: { ...task, ...ended }, deployment: answeredBy };
    }
    return { ok: true, result: task ?? {}, deployment: answeredBy };
  } catch (error) {
    return failedWith(error, operation.method, answeredBy);
  }
};

/** Asks the A2A agent version that runs the caller's task about it, or to cancel it. */
export const agentTask: Handler<OperationCall> = async (call) => {
  const { target, operation } = call;
  if (operation.kind !== "agent-task" || target.owner !== "upstream") throw new RpcError(ErrorCode.InternalError);
  const answeredBy = upstreamAnswererOf(target);
  try {
    const task = await call.runtime.upstreams.calls.askAgent(target, operation.method, target.name, askedAs(call));
    return { ok: true, result: task, deployment: answeredBy };
  } catch (error) {
    return failedWith(error, operation.method, answeredBy);
  }
};

/** A task's result as its job keeps it: redacted, or (refused by the guardrail) the error saying it was withheld. */
async function keptResult(call: OperationCall, result: unknown): Promise<{ result: unknown } | { error: JsonRpcErrorObject }> {
  const kept = await call.content.kept(result, "answer");
  if (!kept.withheld) return { result: kept.value };
  return { error: new RpcError(ErrorCode.InternalError, "The task's result was withheld by the secrets guardrail: it held a credential").toJSON() };
}

/** How a task failed when its upstream did not say. */
const UPSTREAM_TASK_FAILED = { code: ErrorCode.SkillUnavailable, message: "The upstream ended the task as failed" };

/** A failure's outcome, with who answered it. */
const failed = (error: JsonRpcErrorObject, deployment: string | undefined): Outcome => ({ ok: false, error, ...(deployment ? { deployment } : {}) });

/**
 * What a thrown error answers, with who answered: an `RpcError` as it is; anything else -32603,
 * logged (never a stack trace to the caller).
 */
function failedWith(error: unknown, method: string, deployment: string | undefined): Outcome {
  if (error instanceof RpcError) return failed(error.toJSON(), deployment);
  console.error(`[gateway] ${method} failed unexpectedly, answered as -32603:`, error);
  return failed(new RpcError(ErrorCode.InternalError).toJSON(), deployment);
}

/**
 * Who asks an upstream, and for how long: the caller (its credential picks the upstream's), its
 * OAuth token for a `token-exchange` upstream, its trace, within `UPSTREAM_ASK_MS`.
 */
function askedAs(call: OperationCall): { caller: string; subjectToken?: string; traceparent?: string; signal: AbortSignal } {
  const { caller, traceparent } = call.scope.context;
  return {
    caller,
    ...(call.scope.subjectToken ? { subjectToken: call.scope.subjectToken } : {}),
    ...(traceparent ? { traceparent } : {}),
    signal: AbortSignal.timeout(UPSTREAM_ASK_MS),
  };
}

/** The search of the compact catalog, over the caller's catalog. */
export const search: Handler<OperationCall> = async (call) => {
  const { operation } = call;
  if (operation.kind !== "search") throw new RpcError(ErrorCode.InternalError);
  return { ok: true, result: await searchCatalog(call.catalog, operation.query) };
};

/** A subscription the caller may make (its target resolved): what serves the resource now, for the session to compare with later. */
export const subscribed: Handler<OperationCall> = async (call) => ({ ok: true, result: { servedBy: await call.catalog.servingOf(call.target) } });

/** A change to the caller's own session, or its stream: charged and recorded here, kept by the MCP layer. */
export const accepted: Handler<OperationCall> = async () => ({ ok: true, result: {} });

/** The packages the caller sees, for a listing of all of them. */
export const listing: Handler<OperationCall> = async (call) => ({ ok: true, result: await call.catalog.packages() });

/** A discovery document: the gateway's own, of the virtual servers' definitions as they are now. */
export const discovery: Handler<OperationCall> = async (call) => {
  const { operation } = call;
  if (operation.kind !== "discovery") throw new RpcError(ErrorCode.InternalError);
  const { auth } = call.runtime.config;
  const site = { origin: operation.origin, authRequired: auth.required, oauth: !!auth.oauth };
  if (operation.document === "ai-catalog") return { ok: true, result: aiCatalogOf(site, discoverableOf(await call.runtime.servers.all())) };
  if (operation.server === undefined) return { ok: true, result: serverCardOf(site) };
  // Resolved only while the server is defined discoverable (src/gateway/chain/caller-catalog.ts); gone since: not found.
  const server = await call.runtime.servers.get(operation.server);
  if (!server?.definition.discoverable) return { ok: false, error: call.notFound().toJSON() };
  return { ok: true, result: serverCardOf(site, server) };
};

/**
 * The caller's own credential for a per-caller upstream: kept sealed for it alone (`PUT`), said to
 * be kept (`GET`, never the token), or forgotten (`DELETE`).
 */
export const credential: Handler<OperationCall> = async (call) => {
  const { operation, target } = call;
  if (operation.kind !== "credential" || target.owner !== "upstream") throw new RpcError(ErrorCode.InternalError);
  const { store, config } = call.runtime;
  const { upstream } = target;
  const caller = call.scope.context.caller;
  switch (operation.verb) {
    case "PUT":
      if (!config.upstreamKey)
        return failed(new RpcError(ErrorCode.SkillUnavailable, "This gateway cannot keep credentials (no SKILLMESH_UPSTREAM_KEY)").toJSON(), undefined);
      await storeCallerToken(store, config.upstreamKey, upstream, caller, operation.token ?? "");
      return { ok: true, result: { upstream, stored: true } };
    case "GET": {
      const at = await callerTokenStoredAt(store, upstream, caller);
      return { ok: true, result: { upstream, stored: at !== undefined, ...(at !== undefined ? { storedAt: new Date(at).toISOString() } : {}) } };
    }
    case "DELETE":
      return { ok: true, result: { upstream, removed: await removeCallerToken(store, upstream, caller) } };
  }
};

/** The gateway's card of an A2A agent for this caller: its endpoint the gateway's, its skills those the caller may call. */
export const agentCard: Handler<OperationCall> = async (call) => {
  const { operation } = call;
  if (operation.kind !== "agent-card") throw new RpcError(ErrorCode.InternalError);
  const reached = await call.catalog.agent(operation.agent);
  if (!reached) return { ok: false, error: call.notFound().toJSON() };
  const endpoint = `${operation.origin}/a2a/${encodeURIComponent(operation.agent)}`;
  return { ok: true, result: gatewayAgentCardOf(reached.agent, endpoint, reached.skills, call.runtime.config.auth.required) };
};

/**
 * The MCP request a skill's Worker or an upstream is asked: a prompt by its own name there (the
 * target's `name`, whatever the caller asked it by), a resource by its URI.
 */
function askedOf(
  operation: Operation,
  ownName: string | undefined,
  template?: string,
): { method: "resources/read" | "prompts/get"; params: Record<string, unknown> } {
  // A fixed resource by its owner's own URI (an upstream's MCP App is listed under another); a template's match as asked.
  if (operation.kind === "resource")
    return { method: "resources/read", params: { uri: template === undefined && ownName !== undefined ? ownName : operation.uri } };
  if (operation.kind === "prompt" && ownName !== undefined) return { method: "prompts/get", params: { name: ownName, arguments: operation.arguments } };
  throw new RpcError(ErrorCode.InternalError);
}

/**
 * A read's answer with the contents of the URI asked upstream named by the URI the caller read (an
 * upstream's MCP App is listed under the gateway's URI for it); anything else as it came.
 */
function renamedContents(answer: unknown, asked: unknown, operation: Operation): unknown {
  if (operation.kind !== "resource" || asked === operation.uri) return answer;
  const contents: unknown = (answer as { contents?: unknown } | undefined)?.contents;
  if (!Array.isArray(contents)) return answer;
  const renamed = (contents as unknown[]).map((c: unknown) =>
    c && typeof c === "object" && (c as { uri?: unknown }).uri === asked ? { ...c, uri: operation.uri } : c,
  );
  return { ...(answer as object), contents: renamed };
}

/**
 * An answer checked before the caller sees it: a read's contents, each of the URI read (or of the
 * template it matched); a prompt's messages. Anything else is -32001 naming who answered.
 */
function checked(operation: Operation, target: Target, answer: unknown, answeredBy: string): unknown {
  if (operation.kind === "prompt") {
    const prompt = GetPromptResultSchema.safeParse(answer);
    if (!prompt.success) throw new RpcError(ErrorCode.SkillUnavailable, `${answeredBy} answered prompts/get with something that is not an MCP prompt`);
    return prompt.data;
  }
  const contents = ReadResourceResultSchema.safeParse(answer);
  if (!contents.success)
    throw new RpcError(ErrorCode.SkillUnavailable, `${answeredBy} answered resources/read with something that is not MCP resource contents`);
  const uri = operation.kind === "resource" ? operation.uri : "";
  const template = "template" in target ? target.template : undefined;
  const foreign = contents.data.contents.find((c) => c.uri !== uri && !(template && matchUriTemplate(template, c.uri)));
  if (foreign)
    throw new RpcError(
      ErrorCode.SkillUnavailable,
      `${answeredBy} answered resources/read of ${uri.slice(0, 200)} with the contents of another resource (${foreign.uri.slice(0, 200)})`,
    );
  return contents.data;
}
