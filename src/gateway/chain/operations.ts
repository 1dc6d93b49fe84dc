/**
 * The kinds of operation that are not tool calls, as rows of one table: the caller's content each
 * carries, the policies around it (composed with `compose`, outermost first) and what answers it once its target is resolved
 * (src/gateway/chain/caller-catalog.ts). A new kind is a new row, and `perform` (src/gateway/chain/invoke.ts)
 * runs it through the same door as a tool call: resolved, charged, traced, counted and audited.
 *
 * Every kind runs inside `limits` (charged first, refused or not) and the content path
 * (src/policies/content: what the caller sends, the pin check, the guardrail, what was found for the audit
 * entry), which `perform` puts around each row; a row's own policies run inside them.
 *
 * | kind | caller's content | policies | answered by |
 * |---|---|---|---|
 * | resource | answers to input requests | observed | the skill's routed version (over the signed hop), the upstream version (its credential for the caller; a file of its Agent Skill only with the pinned digest), or the package version's file |
 * | prompt | arguments, answers to input requests | observed | the skill's routed version, or the upstream version |
 * | completion | the argument, those given | observed | the upstream version (its own completions); a skill declares none: no values |
 * | archive | — | observed | the package version's `.tar.gz` |
 * | search | — | — | the caller's catalog |
 * | index | — | — | the caller's catalog: the packages it sees (the well-known index, built from them and kept per `PackageCatalog.key()` by its route) |
 * | subscribe | — | — | the gateway: the resource resolved as a read would be, and what serves it now (the caller's session keeps both: src/mcp/subscriptions.ts) |
 * | task | input responses | observed | the upstream version that runs the caller's task (its credential for the caller); an ended task is written down in its job, as the content path passed it |
 * | agent-task | — | observed | the A2A agent version that runs a task one of the caller's calls started (`GetTask`, `CancelTask`) |
 * | session | — | — | the gateway: nothing to answer but that it may go on (what the caller's session keeps, and its streams, are the MCP layer's) |
 * | discovery | — | — | the gateway: a Server Card or the AI Catalog (src/gateway/discovery), of `/mcp` and the virtual servers defined discoverable |
 * | credential | — (the token is kept, never scanned nor audited) | — | the gateway: the caller's own sealed token for a per-caller upstream one of whose tools it may call |
 * | agent-card | — | — | the gateway: its card of an A2A agent, with the agent's skills the caller may call |
 * | execute | the script | scripts per caller (rate, at once), a job (`Prefer: respond-async`), idempotent replay | the gateway: the script in a sandboxed isolate, each of its tool calls `invoke` as the caller (src/gateway/chain/execute.ts) |
 *
 * A row says everything of its kind: how it is resolved over the caller's catalog (what the caller
 * cannot see resolves to nothing), the error when it is not found, what its audit entry names and
 * fingerprints, what of it is the caller's content, its policies, and what answers it (answers.ts).
 * A new kind is one row and its handler.
 */
import { mayCall } from "../../identity/auth/access.js";
import { ErrorCode, RpcError } from "../../protocols/jsonrpc/index.js";
import { authOf } from "../../federation/upstream/records.js";
import type { CallerCatalog } from "./caller-catalog.js";
import type { ExecutionRecord, Operation, OperationKind, Target } from "./operation.js";
import type { CallerContent, Handler, Policy } from "./policies.js";
import {
  type OperationCall,
  accepted,
  agentCard,
  agentTask,
  complete,
  credential,
  discovery,
  listing,
  observed,
  read,
  search,
  subscribed,
  upstreamTask,
} from "./answers.js";
import { upstreamsOfView } from "./offerings.js";
import { CODE_EXECUTE, execute, scriptJobs, scriptLimits, scriptReplay } from "./execute.js";

/** An operation of one kind. */
export type OperationOf<K extends OperationKind> = Extract<Operation, { kind: K }>;

/** One kind of operation, all it takes: resolved, not found, audited, carried, wrapped and answered. */
export interface OperationRow<K extends OperationKind = OperationKind> {
  /** Who answers it for this caller; undefined when nothing the caller may use has that name (missing or hidden: one answer). */
  resolve: (operation: OperationOf<K>, catalog: CallerCatalog) => Promise<Target | undefined>;
  /** The error when it resolves to nothing, as its protocol words it (unless the door gave its own: `operation.notFound`). */
  notFound: (operation: OperationOf<K>) => RpcError;
  /** What it read or got, as its audit entry names it. */
  resource: (operation: OperationOf<K>) => string | undefined;
  /** The params its audit entry fingerprints (a prompt's arguments, a search's query); none by default. */
  audited?: (operation: OperationOf<K>) => unknown;
  /** The caller's content it carries (a prompt's arguments, a task's input responses): it passes the content path on its way out. */
  carries?: CallerContent<OperationCall>;
  /** A script's execution, as it runs: its audit entry says it. */
  execution?: (operation: OperationOf<K>) => ExecutionRecord;
  /** Its policies inside `limits` and the content path, outermost first. */
  policies: Array<Policy<OperationCall>>;
  answer: Handler<OperationCall>;
}

/**
 * What an operation of `kind` carries of its caller (`of`), and the operation with that content,
 * redacted, in its place (`put`).
 */
function carriedBy<K extends OperationKind>(
  kind: K,
  of: (operation: OperationOf<K>) => unknown,
  put: (operation: OperationOf<K>, content: unknown) => OperationOf<K>,
): CallerContent<OperationCall> {
  const isKind = (operation: Operation): operation is OperationOf<K> => operation.kind === kind;
  return {
    of: ({ operation }) => (isKind(operation) ? of(operation) : undefined),
    with: (call, content) => (isKind(call.operation) ? { ...call, operation: put(call.operation, content) } : call),
  };
}

/** Answers to an upstream's input requests, by their keys. */
type InputResponses = Record<string, Record<string, unknown>>;

/** What a prompt get carries: its arguments, and its answers to the upstream's input requests. */
const PROMPT_CONTENT = carriedBy(
  "prompt",
  (op) => ({ arguments: op.arguments, inputResponses: op.inputRound?.inputResponses }),
  (op, content) => {
    const { arguments: args, inputResponses } = content as { arguments: Record<string, string>; inputResponses?: InputResponses };
    return { ...op, arguments: args, ...(op.inputRound ? { inputRound: { ...op.inputRound, inputResponses } } : {}) };
  },
);

/** What a completion carries: the argument typed so far, and those already given. */
const COMPLETION_CONTENT = carriedBy(
  "completion",
  (op) => ({ argument: op.argument, given: op.given }),
  (op, content) => ({ ...op, ...(content as Pick<OperationOf<"completion">, "argument" | "given">) }),
);

/** What a request about a task carries: the caller's answers to its input requests. */
const TASK_CONTENT = carriedBy(
  "task",
  (op) => op.inputResponses,
  (op, inputResponses) => ({ ...op, inputResponses: inputResponses as InputResponses }),
);

/** What a read carries: its answers to the upstream's input requests (the URI names what is read, and is not content). */
const READ_CONTENT = carriedBy(
  "resource",
  (op) => op.inputRound?.inputResponses,
  (op, inputResponses) => (op.inputRound ? { ...op, inputRound: { ...op.inputRound, inputResponses: inputResponses as InputResponses } } : op),
);

/** What a script carries: its text (the content path scans it, and a credential in it is redacted or refused). */
const SCRIPT_CONTENT = carriedBy(
  "execute",
  (op) => op.code,
  (op, code) => ({ ...op, code: code as string }),
);

/** What the gateway itself answers: never not found. */
const gateway = (name: string) => async () => ({ owner: "gateway" as const, name });
/** The not-found of a kind that resolves to the gateway: never asked. */
const neverMissing = () => new RpcError(ErrorCode.InternalError);
/** `-32602` with a message. */
const invalid = (message: string, data?: unknown) => new RpcError(ErrorCode.InvalidParams, message, data);
/** A resource the caller may not read, or that is not there: one answer, to a read and a subscription alike. */
const resourceNotFound = (uri: string) => invalid("Resource not found", { uri: uri.slice(0, 200) });
/** A prompt the caller may not use, or that is not there: one answer, to a get and a completion alike. */
const unknownPrompt = (name: string) => invalid(`Unknown prompt: ${name.slice(0, 200)}; prompts/list lists them`);

/**
 * Each kind's row. Every kind runs inside `limits` and the content path (src/gateway/chain/invoke.ts puts
 * both around each row), so a new kind cannot answer anything that skipped them.
 */
export const OPERATIONS: { [K in OperationKind]: OperationRow<K> } = {
  execute: {
    resolve: gateway(CODE_EXECUTE),
    notFound: neverMissing,
    resource: () => undefined,
    // The script's fingerprint; its size, text and tool calls are its `execution`.
    audited: (op) => ({ code: op.code }),
    execution: (op) => op.ran,
    carries: SCRIPT_CONTENT,
    policies: [scriptLimits, scriptJobs, scriptReplay],
    answer: execute,
  },
  resource: {
    resolve: (op, catalog) => catalog.resourceTarget(op.uri),
    notFound: (op) => resourceNotFound(op.uri),
    resource: (op) => op.uri,
    carries: READ_CONTENT,
    policies: [observed],
    answer: read,
  },
  prompt: {
    resolve: (op, catalog) => catalog.promptTarget(op.name),
    notFound: (op) => unknownPrompt(op.name),
    resource: (op) => `prompt:${op.name}`,
    audited: (op) => ({ name: op.name, arguments: op.arguments }),
    carries: PROMPT_CONTENT,
    policies: [observed],
    answer: read,
  },
  completion: {
    resolve: (op, catalog) => (op.ref.type === "ref/prompt" ? catalog.promptTarget(op.ref.name) : catalog.templateTarget(op.ref.uri)),
    notFound: (op) =>
      op.ref.type === "ref/prompt" ?
        unknownPrompt(op.ref.name)
      : invalid(`Unknown resource template: ${op.ref.uri.slice(0, 200)}; resources/templates/list lists them`),
    resource: (op) => (op.ref.type === "ref/prompt" ? `prompt:${op.ref.name}` : op.ref.uri),
    audited: (op) => ({ argument: op.argument, ...(op.given ? { given: op.given } : {}) }),
    carries: COMPLETION_CONTENT,
    policies: [observed],
    answer: complete,
  },
  archive: {
    resolve: async (op, catalog) => {
      const seen = (await catalog.packages()).find(op.package);
      return seen?.record.versions[seen.version]?.archive ? { owner: "package", package: seen.name, version: seen.version } : undefined;
    },
    notFound: (op) => invalid(`No archive of ${op.package.slice(0, 200)} among the Agent Skills you may read`),
    resource: (op) => `skill://${encodeURIComponent(op.package)}/.tar.gz`,
    policies: [observed],
    answer: read,
  },
  search: {
    resolve: gateway("catalog.search"),
    notFound: neverMissing,
    resource: () => undefined,
    audited: (op) => op.query,
    policies: [],
    answer: search,
  },
  index: { resolve: gateway("agent-skills index"), notFound: neverMissing, resource: () => undefined, policies: [], answer: listing },
  task: {
    // The caller's own job, run by an upstream version; still one of the tools it may call.
    resolve: async (op, catalog) => {
      const job = await catalog.runtime.jobs.ownedBy(op.jobId, catalog.scope.context.caller);
      const runBy = job?.upstreamTask;
      if (!runBy || !(await catalog.tool(job.method))) return undefined;
      return { owner: "upstream", upstream: runBy.upstream, version: runBy.version, name: runBy.taskId };
    },
    notFound: (op) => invalid(`Unknown task: ${op.jobId.slice(0, 200)}`),
    resource: (op) => `task:${op.jobId}`,
    // A caller's answers are its own: the entry names the task only.
    carries: TASK_CONTENT,
    policies: [observed],
    answer: upstreamTask,
  },
  "agent-task": {
    // A task one of this caller's calls started, while it may still call the skill that started it.
    resolve: async (op, catalog) => {
      const task = await catalog.runtime.upstreams.conversations.task(op.agent, op.taskId);
      if (!task || task.caller !== catalog.scope.context.caller || !(await catalog.tool(task.tool))) return undefined;
      return { owner: "upstream", upstream: op.agent, version: task.version, name: op.taskId };
    },
    notFound: (op) => invalid(`Task not found: ${op.taskId.slice(0, 200)}`),
    resource: (op) => `task:${op.agent}/${op.taskId}`,
    policies: [observed],
    answer: agentTask,
  },
  subscribe: {
    resolve: (op, catalog) => catalog.resourceTarget(op.uri),
    notFound: (op) => resourceNotFound(op.uri),
    resource: (op) => op.uri,
    policies: [],
    answer: subscribed,
  },
  session: { resolve: (op) => gateway(op.method)(), notFound: neverMissing, resource: (op) => op.uri, policies: [], answer: accepted },
  discovery: {
    // A virtual server's card is there only while the server is defined discoverable.
    resolve: async (op, catalog) => {
      if (op.server === undefined) return { owner: "gateway", name: op.document };
      const server = await catalog.runtime.servers.get(op.server);
      return server?.definition.discoverable ? { owner: "gateway", name: op.document } : undefined;
    },
    notFound: (op) => invalid(`No discoverable MCP server /mcp/${(op.server ?? "").slice(0, 64)}`),
    resource: (op) => (op.server === undefined ? op.document : `${op.document}:${op.server}`),
    policies: [],
    answer: discovery,
  },
  credential: {
    // A per-caller upstream one of whose tools this (identified) caller may call.
    resolve: async (op, catalog) => {
      if (catalog.scope.context.caller === "anonymous") return undefined;
      const record = await catalog.runtime.upstreams.records.cached(op.upstream);
      const version = record && Object.keys(record.versions).find((v) => authOf(record, v).type === "per-caller");
      const tools = version ? (upstreamsOfView(await catalog.view()).get(op.upstream) ?? []) : [];
      return tools.some((tool) => mayCall(catalog.access, tool)) ?
          { owner: "upstream", upstream: op.upstream, version: version!, name: "credential" }
        : undefined;
    },
    notFound: (op) => invalid(`No upstream ${op.upstream.slice(0, 64)} you may call takes a credential of its callers`),
    // Never the token.
    resource: (op) => `upstream:${op.upstream}/credential`,
    policies: [],
    answer: credential,
  },
  "agent-card": {
    resolve: async (op, catalog) => {
      const reached = await catalog.agent(op.agent);
      return reached && { owner: "upstream", upstream: op.agent, version: reached.version, name: "agent-card" };
    },
    notFound: (op) => invalid(`No A2A agent ${op.agent.slice(0, 64)} you may reach`),
    resource: (op) => `a2a:${op.agent}/agent-card`,
    policies: [],
    answer: agentCard,
  },
};

/**
 * The row of an operation's kind, for any operation (one lookup: TypeScript cannot tie a union's
 * member to its entry of a mapped table).
 * @example rowOf(operation).resource(operation) // "prompt:triage"
 */
export const rowOf = (operation: Operation): OperationRow<OperationKind> => OPERATIONS[operation.kind] as unknown as OperationRow<OperationKind>;

/**
 * The error for an operation whose target is not there for this caller: missing or hidden, one
 * answer (the door's own wording when it gave one, else its kind's).
 * @example notFoundOf({ kind: "prompt", method: "prompts/get", name: "x.y", arguments: {} }) // RpcError -32602 "Unknown prompt: x.y; …"
 */
export function notFoundOf(operation: Operation): RpcError {
  const own = rowOf(operation).notFound(operation);
  return operation.notFound ? new RpcError(operation.notFound.code, operation.notFound.message, own.data) : own;
}

/** The skill, upstream or package a target belongs to (the counters' label). */
export function ownerNameOf(target: Target): string {
  switch (target.owner) {
    case "skill":
      return target.skill;
    case "upstream":
      return target.upstream;
    case "package":
      return target.package;
    case "gateway":
      return target.name;
  }
}
