/**
 * The A2A door (A2A v1.0, JSON-RPC binding): each federated A2A agent spoken to in A2A through the
 * gateway, at `/a2a/<agent>`.
 * - `GET /a2a/<agent>/.well-known/agent-card.json`: the gateway's card of the agent for this caller
 *   (an operation of kind `agent-card`, src/gateway/chain/operations.ts; `CallerCatalog.agent`): its endpoint is the gateway's, its skills only those the caller may
 *   call (a caller that may call none gets 404, as for an agent that does not exist).
 * - `POST /a2a/<agent>`: `SendMessage` and `SendStreamingMessage`. The message's
 *   `metadata.skillId` names the skill (else the agent's first the caller may call), and the call
 *   is a call of that skill's tool `<agent>.<skill>` through the one call chain (grants, limits,
 *   routing to the agent's version, breaker, audit); its answer is the agent's own task or message.
 *   Streamed, the agent's events are relayed as they come.
 * - `GetTask` and `CancelTask` of a task one of the caller's own calls started (the gateway
 *   remembers whose each task is for a day): an operation of the one chain, sent to the agent's
 *   version that runs it. Another caller's task is "Task not found", as one that does not exist.
 * Other methods (`ListTasks`, `SubscribeToTask`, push notifications) are -32601. A request is of
 * the version its `A2A-Version` says (none: 0.3, as the specification says); one not of 1.x is
 * `VersionNotSupportedError` (-32009).
 */
import { type Context, Hono } from "hono";
import {
  AGENT_CARD_PATH,
  SendMessageParamsSchema,
  type SendMessageResult,
  TaskIdParamsSchema,
  VERSION_NOT_SUPPORTED,
  argumentsOf,
  versionRefusal,
} from "../src/protocols/a2a/index.js";
import { type Caller, requireCaller } from "../src/identity/auth/index.js";
import { CallerCatalog } from "../src/gateway/chain/caller-catalog.js";
import { invoke, perform, refuseUnknown } from "../src/gateway/chain/invoke.js";
import { type GatewayEnv, gatewayRuntime } from "../src/gateway/chain/runtime.js";
import { type CallScope, answerHeadersOf } from "../src/gateway/chain/scope.js";
import { answerJson, bodyText, jsonBodyGuard, toHttpResponse } from "../src/protocols/jsonrpc/http.js";
import { ErrorCode, type JsonRpcRequest, RpcError, parseParams, processJsonRpc } from "../src/protocols/jsonrpc/index.js";
import { safeJson } from "../src/lib/json/index.js";
import { SSE_HEADERS, sseStream } from "../src/protocols/sse/index.js";
import { anySignal } from "../src/lib/signal/index.js";
import { enter } from "./enter.js";
import { performed } from "./performed.js";

type A2aEnv = { Bindings: GatewayEnv; Variables: { caller: Caller } };
export const a2aRoutes = new Hono<A2aEnv>();
const A2A_DOOR = { kind: "a2a" } as const;
const ONE = { index: 0, batch: false };

a2aRoutes.use(
  "*",
  requireCaller((env: GatewayEnv) => gatewayRuntime(env)),
);

/** The caller's scope through the A2A door, or the door's refusal. */
const scopeOf = (c: Context<A2aEnv>): CallScope | Response => enter(c, A2A_DOOR);

/** The gateway's card of the agent for this caller: an operation of the one chain (resolved, charged, audited). */
a2aRoutes.get(`/:agent/${AGENT_CARD_PATH}`, async (c) => {
  const scope = scopeOf(c);
  if (scope instanceof Response) return scope;
  const name = c.req.param("agent");
  const operation = { kind: "agent-card", method: `GET /a2a/${AGENT_CARD_PATH}`, agent: name, origin: new URL(c.req.url).origin } as const;
  const card = await performed<object>(c, scope, operation, `No A2A agent ${name.slice(0, 64)} you may reach`);
  return card instanceof Response ? card : c.json(card, 200, answerHeadersOf(scope));
});

a2aRoutes.post("/:agent", jsonBodyGuard(), async (c) => {
  const scope = scopeOf(c);
  if (scope instanceof Response) return scope;
  const runtime = gatewayRuntime(c.env);
  const name = c.req.param("agent");
  const body = await bodyText(c);
  // Each request of the body is refused when it is not of a version the gateway speaks (none said: 0.3).
  const refusal = versionRefusal(c.req.header("a2a-version") ?? c.req.query("A2A-Version"));
  const spoken = (request: JsonRpcRequest) => {
    if (refusal) throw new RpcError(VERSION_NOT_SUPPORTED, refusal);
    return request;
  };
  const catalog = new CallerCatalog(runtime, scope);
  // One tool call of the one chain: the skill's tool (resolved through the caller's catalog), its arguments the message whole.
  const call = (request: JsonRpcRequest, streaming: Parameters<typeof invoke>[5] = {}): Promise<SendMessageResult> =>
    (async () => {
      const { message } = parseParams(SendMessageParamsSchema, request.params ?? {});
      const reached = await catalog.agent(name);
      const wanted = message.metadata?.skillId;
      const skill = typeof wanted === "string" ? reached?.skills.find((s) => s.id === wanted) : reached?.skills[0];
      // An agent or skill this caller cannot reach is refused as any unknown name: charged and audited.
      if (!skill) {
        const refusal =
          reached ?
            new RpcError(ErrorCode.InvalidParams, `No skill ${String(wanted).slice(0, 64)} of ${name.slice(0, 64)} you may call; its card lists them`)
          : new RpcError(ErrorCode.InvalidParams, `No A2A agent ${name.slice(0, 64)} you may reach`);
        return refuseUnknown(`${name}.${typeof wanted === "string" ? wanted.slice(0, 128) : ""}`, refusal, scope, runtime, c.env);
      }
      const args = argumentsOf(message);
      if (!args) throw new RpcError(ErrorCode.InvalidParams, "Invalid params: the message has nothing to send (no part with text, data or a file)");
      try {
        const result = (await invoke(
          { jsonrpc: "2.0", method: skill.tool, params: { ...args }, id: request.id ?? 0 },
          ONE,
          scope,
          runtime,
          c.env,
          streaming,
        )) as {
          structuredContent?: SendMessageResult;
        };
        return result.structuredContent!;
      } catch (error) {
        // A task the agent failed is its answer, as it gave it.
        const failed = (error as RpcError).data as { toolResult?: { structuredContent?: SendMessageResult }; taskNotFound?: string } | undefined;
        if (error instanceof RpcError && failed?.toolResult?.structuredContent) return failed.toolResult.structuredContent;
        // A task or context that is not the caller's: A2A's TaskNotFoundError, as GetTask answers it.
        if (error instanceof RpcError && failed?.taskNotFound !== undefined) throw new RpcError(TASK_NOT_FOUND, error.message);
        throw error;
      }
    })();
  const method = (safeJson(body) as { method?: unknown } | undefined)?.method;
  if (method !== "SendStreamingMessage") {
    const processed = await processJsonRpc(body, async (request) => {
      spoken(request);
      if (request.method === "SendMessage") return call(request);
      if (request.method === "GetTask" || request.method === "CancelTask") {
        // A task one of this caller's calls started: an operation of the one chain (resolved, charged, audited).
        const { id } = parseParams(TaskIdParamsSchema, request.params ?? {});
        const operation = { kind: "agent-task", method: request.method, agent: name, taskId: id } as const;
        return perform({ ...operation, notFound: { code: TASK_NOT_FOUND, message: `Task not found: ${id.slice(0, 200)}` } }, scope, runtime, c.env);
      }
      throw unserved(request.method);
    });
    return toHttpResponse(processed, answerHeadersOf(scope));
  }
  // Streamed: the agent's events as they come, each a JSON-RPC response of the request's id.
  const stream = sseStream(async (sse) => {
    const signal = anySignal([c.req.raw.signal, sse.signal]);
    const processed = await processJsonRpc(body, async (request) => {
      spoken(request);
      let relayed = false;
      const onAgentEvent = (event: unknown) => {
        relayed = true;
        sse.send({ jsonrpc: "2.0", id: request.id ?? null, result: event });
      };
      const answer = await call(request, { onAgentEvent, signal });
      // An agent that did not stream (or a replayed answer): its answer as the one event.
      if (!relayed) onAgentEvent(answer);
      return NO_MORE;
    });
    if (processed !== undefined && !sse.signal.aborted && !isDone(processed)) sse.sendJson(answerJson(processed));
  }, runtime.config.sseHeartbeatMs);
  return new Response(stream, { headers: SSE_HEADERS });
});

/** A2A's TaskNotFoundError. */
const TASK_NOT_FOUND = -32001;

/** What a streamed request answers once its events are sent: nothing more. */
const NO_MORE = Symbol("streamed");
const isDone = (processed: unknown) => (processed as { result?: unknown } | undefined)?.result === NO_MORE;

/** A method the gateway's A2A endpoint does not serve. */
function unserved(method: string): RpcError {
  return new RpcError(
    ErrorCode.MethodNotFound,
    `Method not found: ${method.slice(0, 64)} (the gateway serves SendMessage, SendStreamingMessage, GetTask and CancelTask)`,
  );
}
