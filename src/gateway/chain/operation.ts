/**
 * What a caller asks the gateway for, besides calling a tool (src/gateway/chain/invoke.ts runs both
 * through the one call chain): reading a resource — a skill's, a federated upstream's, or an
 * Agent Skills package's file (`skill://`, over MCP, the well-known routes or
 * `catalog.describe`) — reading a package's archive, getting a prompt, completing a prompt's or a
 * template's argument, searching the catalog, asking about a task an upstream runs for the caller,
 * subscribing to a resource, changing its own session or opening a stream of what changed,
 * reading a discovery document (a Server Card, the AI Catalog), managing its own credential for an
 * upstream, or reading the gateway's card of an A2A agent.
 * The kind is data: one table (src/gateway/chain/operations.ts) says how each kind is resolved,
 * which policies wrap it and what answers it.
 */
import type { CatalogEntry } from "../../lib/catalog-search/index.js";
import type { ErrorCode } from "../../protocols/jsonrpc/index.js";
import type { CompletionRef, InputRequests, InputRound, TaskMethod } from "../../protocols/mcp/index.js";

/** What every operation says of itself. */
interface Asked {
  /** How it was asked, for the audit log and traces: `resources/read`, `GET /.well-known/agent-skills`, `catalog.describe`, … */
  method: string;
  /**
   * The error a caller gets when there is nothing of that name it may use (missing or hidden: the
   * same answer), as its protocol says it; default -32602 naming what was not found.
   */
  notFound?: { code: ErrorCode | number; message: string };
}

/** `resources/read` of any URI a caller may read (`skill://` is a package's file). */
export interface ResourceRead extends Asked {
  kind: "resource";
  uri: string;
  /** A 2026-07-28 caller's part of a multi round-trip: an upstream's read may ask it for input. */
  inputRound?: InputRound;
}

/** A package's `.tar.gz` (the well-known index's `archive` entry). */
export interface ArchiveRead extends Asked {
  kind: "archive";
  package: string;
}

/** `prompts/get` of a prompt by its listed name. */
export interface PromptGet extends Asked {
  kind: "prompt";
  name: string;
  arguments: Record<string, string>;
  /** A 2026-07-28 caller's part of a multi round-trip: an upstream's prompt may ask it for input. */
  inputRound?: InputRound;
}

/**
 * `completion/complete`: values for an argument of a prompt (by its listed name) or a variable of
 * a resource template (by its URI template), as the caller types it.
 */
export interface Completion extends Asked {
  kind: "completion";
  ref: CompletionRef;
  argument: { name: string; value: string };
  /** The arguments already given. */
  given?: Record<string, string>;
}

/** A search's query and bounds, as the search tool takes them. */
export interface CatalogQuery {
  query: string;
  limit: number;
  kind?: CatalogEntry["kind"];
}

/** `catalog.search`: the tools, packages and resources a caller may use that match a query. */
export interface CatalogSearch extends Asked {
  kind: "search";
  query: CatalogQuery;
}

/** The well-known index of every Agent Skills package the caller sees (listed whole, so charged as a read). */
export interface PackageListing extends Asked {
  kind: "index";
}

/**
 * `tasks/get`, `tasks/update` or `tasks/cancel` of a caller's task that an upstream runs: the
 * upstream's own task, adopted as the caller's job `jobId` (src/gateway/chain/policies.ts).
 */
export interface UpstreamTaskRequest extends Asked {
  kind: "task";
  method: TaskMethod;
  jobId: string;
  /** `tasks/update`: the caller's answers to the task's input requests, by their keys. */
  inputResponses?: Record<string, Record<string, unknown>>;
}

/**
 * `GetTask` or `CancelTask` through the A2A door: a task a federated A2A agent runs, started by
 * one of this caller's calls (the gateway remembers whose each task is).
 */
export interface AgentTaskRequest extends Asked {
  kind: "agent-task";
  method: "GetTask" | "CancelTask";
  agent: string;
  taskId: string;
}

/**
 * `resources/subscribe` (2025 revisions): the caller asks to be told when a resource it may read
 * is updated (on its session's stream); resolved as a read of it would be.
 */
export interface ResourceSubscribe extends Asked {
  kind: "subscribe";
  uri: string;
}

/**
 * The caller's own session, nothing registered: a change to its state (a 2025 session's
 * `resources/unsubscribe` or `logging/setLevel`) or the opening of a stream of what changed for it
 * (a 2025 session's `GET /mcp`, 2026-07-28's `subscriptions/listen`). Resolved to the gateway; what
 * the session keeps is the MCP layer's (src/mcp).
 */
export interface SessionRequest extends Asked {
  kind: "session";
  /** The resource it is about (an unsubscribe's), named in the audit entry. */
  uri?: string;
}

/**
 * A discovery document (src/gateway/discovery), read before any connection and without a credential: the
 * Server Card of `/mcp` or of a discoverable virtual server (`server`), or the AI Catalog of them.
 */
export interface DiscoveryRead extends Asked {
  kind: "discovery";
  document: "server-card" | "ai-catalog";
  /** A virtual server's card; none: `/mcp`'s. */
  server?: string;
  /** The gateway's origin as the client reached it (the documents' URLs start with it). */
  origin: string;
}

/**
 * `PUT`, `GET` or `DELETE /upstreams/<upstream>/credential`: the caller's own token for a
 * `per-caller` upstream one of whose tools it may call — stored sealed for it alone, said to be
 * stored (never shown), or forgotten. The token is never audited.
 */
export interface CredentialRequest extends Asked {
  kind: "credential";
  verb: "PUT" | "GET" | "DELETE";
  upstream: string;
  /** `PUT`: the token to keep. */
  token?: string;
}

/**
 * `GET /a2a/<agent>/.well-known/agent-card.json`: the gateway's card of a federated A2A agent for
 * this caller, listing only the agent's skills it may call (a listing: charged as a read).
 */
export interface AgentCardRead extends Asked {
  kind: "agent-card";
  agent: string;
  /** The gateway's origin as the client reached it (the card's endpoint starts with it). */
  origin: string;
}

/**
 * `code.execute`: an agent's script, run in a sandboxed isolate (src/gateway/code-mode), each of its
 * tool calls a call of this caller's through the chain (`invoke`), named by the execution.
 */
export interface ScriptExecution extends Asked {
  kind: "execute";
  /** The script: an async arrow function (or statements a model wrote, normalized to one). */
  code: string;
  /** What ran, filled in as it runs: its id, its tool calls, the script as it was run (redacted), for its audit entry. */
  ran: ExecutionRecord;
  /** How its caller can approve a destructive tool call (an MCP caller that can answer elicitations); none: such a call is refused. */
  approvals?: Approvals;
}

/**
 * How a script's caller is asked to approve a destructive tool call: on the call's stream now
 * (2025 revisions, `ask`), or in a later round of the same request (2026-07-28 `input_required`:
 * the caller declared elicitation, and a retry brings its answers and the execution's kept state).
 */
export interface Approvals {
  ask?: (requests: InputRequests) => Promise<Record<string, Record<string, unknown>>>;
  round?: { responses?: Record<string, Record<string, unknown>>; state?: string };
}

/** What an execution's audit entry says of it (each of its tool calls' entries names its `id`). */
export interface ExecutionRecord {
  id: string;
  /** Tool calls the script made (refused ones included). */
  calls: number;
  /** Its size in bytes, and its text as the content path passed it. */
  bytes?: number;
  script?: string;
}

export type Operation =
  | ScriptExecution
  | CredentialRequest
  | AgentCardRead
  | ResourceRead
  | ArchiveRead
  | PromptGet
  | Completion
  | CatalogSearch
  | PackageListing
  | UpstreamTaskRequest
  | AgentTaskRequest
  | ResourceSubscribe
  | SessionRequest
  | DiscoveryRead;
export type OperationKind = Operation["kind"];

/**
 * Who answers an operation, as the caller's catalog resolved it (src/gateway/chain/caller-catalog.ts):
 * data, never read from a tag or a name's shape.
 */
export type Target =
  /** A skill's Worker, the version routed to the caller; `template` when the URI matched one, `name` a prompt's own name there. */
  | { owner: "skill"; skill: string; template?: string; name?: string }
  /**
   * One version of an MCP upstream, asked for `name` (a URI, a prompt name, or its task's id) there;
   * `pin` what a file of its Agent Skill, or one of its MCP Apps, was pinned with: the answer must still have it.
   */
  | { owner: "upstream"; upstream: string; version: string; name: string; template?: string; pin?: Pin }
  /** One version of a package: a file (`path`), or its archive. */
  | { owner: "package"; package: string; version: string; path?: string }
  /** The gateway itself (a search, a listing): `name` says what of it. */
  | { owner: "gateway"; name: string };

/**
 * The upstream version a target names, as the observed numbers and messages name who answered.
 * @example upstreamAnswererOf({ upstream: "crm", version: "2.0.0" }) // "upstream:crm@2.0.0"
 */
export const upstreamAnswererOf = (target: { upstream: string; version: string }): string => `upstream:${target.upstream}@${target.version}`;

/**
 * What a read of an upstream's pinned resource must still have: a federated Agent Skill's file its
 * bytes' digest; an MCP App its bytes' digest and its contents' `_meta.ui` (CSP, permissions).
 */
export type Pin = { of: "skill-file"; digest: string } | { of: "app"; digest: string; ui?: unknown };
