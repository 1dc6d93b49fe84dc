/**
 * Upstreams behind the gateway (docs/architecture.md, "Federation"): registering one reads its
 * definitions (an MCP server's tools, resources, resource templates and prompts; an OpenAPI
 * document's operations), pins each — a tool as a deployment in the registry under
 * `<upstream>.<tool>@<version>`, its manifest and endpoint hashed; an offering in the version's
 * record — and keeps the upstream's record (`sm:upstream:<name>`, credentials sealed, per version).
 * A refresh reads the definitions again: a new or changed one is held for an operator's approval
 * by its hash (src/federation/upstream/held.ts; a breaking change of a tool withdraws it meanwhile), a removed
 * one is withdrawn. Held changes live apart (`sm:upstream:<name>:held`), out of what the call path
 * reads. Calls of the deployments reach `Upstreams.call`, reads and gets `Upstreams.ask`, through
 * every policy of the call chain.
 */
import { z } from "zod";
import type { AuditLog } from "../../registry/audit/index.js";
import { boundedText } from "../../lib/body/index.js";
import { changesBetween } from "../../registry/contracts/index.js";
import type { UpstreamAsk, UpstreamCaller, UpstreamRequest } from "../forward/index.js";
import { safeJson } from "../../lib/json/index.js";
import { ErrorCode, RpcError, errorText } from "../../protocols/jsonrpc/index.js";
import type { RegistryRepository } from "../../registry/deployments/repository.js";
import { type Deployment, type UpstreamEndpoint, deploymentId } from "../../registry/deployments/model.js";
import { contractHashOf, manifestChanges } from "../../registry/deployments/contract.js";
import type { SkillManifest } from "../../skill/manifest.js";
import type { Store } from "../../store/index.js";
import { type CallCredential, OPERATOR, credentialFor, describeAuth, forgetAccessToken, sealAuth } from "./credentials.js";
import { type Skipped, type ToolSource, a2aManifestOf, mcpManifestOf, redactedUrl, selects, urlSecretRefusal } from "./definitions.js";
import { OFFERING_SUBJECTS, SUBJECT_WORDS, approvalKeyOf, boundedHeld, definitionHashOf, reconcileOfferings } from "./held.js";
import { readUpstreamSkills } from "./skills.js";
import { readUpstreamApps } from "./apps.js";
import {
  type AgentToolArguments,
  SKILL_INPUT_SCHEMA,
  type SendMessageResult,
  type Task,
  agentCardUrlOf,
  jsonRpcInterfaceOf,
  toolResultOf,
} from "../../protocols/a2a/index.js";
import { askAgentTask, readAgentCard, sendToAgent } from "./a2a-client.js";
import { schemaIssues } from "../../lib/json-schema/index.js";
import { type UpstreamToolResult, toolUiOf } from "../../protocols/mcp/index.js";
import {
  LIST_BUDGET_BYTES,
  type McpTarget,
  askTask,
  callTool,
  completeAtUpstream,
  discoverEra,
  forgetSessions,
  getUpstreamPrompt,
  listOfferings,
  listTools,
  readUpstreamResource,
} from "./mcp-client.js";
import {
  type HeldChange,
  type HeldDoc,
  HeldDocSchema,
  type McpEra,
  type Offerings,
  type StoredAuth,
  type UpstreamRecord,
  UpstreamRecordSchema,
  type UpstreamRegistration,
  type UpstreamVersion,
  type UpstreamView,
} from "./model.js";
import { MAX_DOCUMENT_BYTES, callOperation, operationsOf, parseDocument, serverUrlOf } from "./openapi.js";

export const UPSTREAM_KEYS = {
  /** Every upstream's name, scored by when it was first registered. */
  index: "sm:upstreams",
  record: (name: string) => `sm:upstream:${name}`,
  /** Its held changes, by version (read by the operator's views and changes only). */
  held: (name: string) => `sm:upstream:${name}:held`,
  /** An A2A agent's task a call started: whose it is, and which version and tool ran it (`AGENT_TASK_TTL_MS`). */
  agentTask: (name: string, taskId: string) => `sm:upstream:${name}:task:${taskId}`,
  /** An A2A agent's context a call started: whose it is (`AGENT_TASK_TTL_MS`). */
  agentContext: (name: string, contextId: string) => `sm:upstream:${name}:context:${contextId}`,
} as const;

/** How long the gateway remembers whose an agent's task is (a caller asks about it within that). */
export const AGENT_TASK_TTL_MS = 24 * 60 * 60_000;

/** An A2A agent's task as the gateway remembers it: the caller whose call started it, the version and tool that ran it. */
export const AgentTaskRecordSchema = z.object({ caller: z.string(), version: z.string(), tool: z.string() });
export type AgentTaskRecord = z.infer<typeof AgentTaskRecordSchema>;

/** Who a record says started a task or a context: what `#keepConversation` compares, and `agentContext` reads. */
const OwnerSchema = z.object({ caller: z.string() });

/** How long an isolate uses an upstream's record before reading it again. */
const RECORD_TTL_MS = 5_000;
/** How long reading an upstream's definitions may take. */
const DEFINITIONS_TIMEOUT_MS = 15_000;

/** An upstream registration the gateway refuses; `status` is the admin API's answer. */
export class UpstreamError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 502,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "UpstreamError";
  }
}

/** One tool read from an upstream: its name there, its manifest and endpoint, and the hash pinning both. */
interface Definition {
  tool: string;
  manifest: SkillManifest;
  /** The manifest's hash (the deployment's `contractHash`, as callers see it). */
  contractHash: string;
  /** The hash of the manifest and the endpoint together: what is pinned and approved. */
  pinHash: string;
  endpoint: { upstream: UpstreamEndpoint };
}

/** One version's definitions as read: where it answers, its era (MCP), what it serves and skips. */
interface DefinitionsRead {
  url: string;
  era: McpEra | undefined;
  /** An A2A agent's: who its card says it is. */
  agent?: UpstreamVersion["agent"];
  definitions: Definition[];
  skipped: Skipped[];
  /** An MCP upstream's resources, templates and prompts. */
  offerings?: Offerings;
}

/** A held change as a report names it. */
export type HeldReport = Pick<HeldChange, "subject" | "name" | "kind" | "contractHash" | "breaking" | "withdrawn" | "changes">;

/** What a registration, refresh or approval did, for the admin's answer and the audit log. */
export interface SyncReport {
  upstream: string;
  version: string;
  /** Skills served (registered or kept). */
  served: string[];
  /** Resources, templates and prompts served (`<subject> <name>`). */
  offerings: string[];
  held: HeldReport[];
  /** Tools (by name) and offerings (`<subject> <name>`) withdrawn: the upstream no longer lists them. */
  removed: string[];
  skipped: Skipped[];
  /** What an approval served: each held change's approval key and hash. */
  approved?: Array<{ key: string; contractHash: string }>;
}

/** An approval: the held changes an operator reviewed, each by its approval key and the hash it saw. */
export interface Approval {
  version?: string;
  /** Tool name → the `contractHash` reviewed. */
  tools?: Record<string, string>;
  /** `<subject>:<name>` of a resource, template or prompt → the `contractHash` reviewed. */
  offerings?: Record<string, string>;
}

/** Settings the upstreams need: the key that seals credentials and the URL policy. */
export interface UpstreamSettings {
  upstreamKey?: string;
  /** Why a URL may not be called, or undefined (src/federation/forward/endpoint-policy.ts). */
  urlRefusal: (url: string, what: string) => string | undefined;
  /**
   * Why a new upstream may not take this name, or undefined: an Agent Skills package's name (its
   * `skill://<name>/` URIs would meet the upstream's skills').
   */
  nameRefusal?: (name: string) => Promise<string | undefined>;
  /**
   * Why a token-exchange upstream may not send callers' access tokens to `tokenUrl`, or undefined:
   * it must be the token endpoint of an issuer the gateway trusts for its callers, or one its
   * operator configured.
   */
  exchangeRefusal?: (tokenUrl: string) => Promise<string | undefined>;
}

/** An upstream version's credential: its own, else (a record of before) the upstream's. */
export function authOf(record: UpstreamRecord, version: string | undefined): StoredAuth {
  return (
    (version !== undefined ? record.versions[version]?.auth : undefined) ??
    record.auth ??
    Object.values(record.versions).find((v) => v.auth)?.auth ?? { type: "none" }
  );
}

/**
 * The gateway's upstreams: their records, the calls of their tools, and the operator's changes.
 * @example const report = await runtime.upstreams.register(registration)
 */
export class Upstreams implements UpstreamCaller {
  readonly #records = new Map<string, { record: Promise<UpstreamRecord | undefined>; until: number }>();
  #names: { names: Promise<string[]>; until: number } | undefined;

  constructor(
    private readonly store: Store,
    private readonly registry: RegistryRepository,
    private readonly settings: UpstreamSettings,
  ) {}

  // -------------------------------------------------------------------------------------------
  // Calls
  // -------------------------------------------------------------------------------------------

  /** Calls an upstream's tool with the upstream version's credential for this caller (src/federation/forward's `UpstreamCaller`). */
  async call(endpoint: UpstreamEndpoint, request: UpstreamRequest): Promise<unknown> {
    const { params } = request;
    if (Array.isArray(params)) throw new RpcError(ErrorCode.InvalidParams, `Invalid params: ${request.skill} takes named arguments (an object), not a list`);
    // Checked against the pinned input schema before anything goes upstream, as an SDK skill checks
    // its own; an A2A skill's is the gateway's own (no agent says it), as this gateway defines it now.
    const issues = schemaIssues(endpoint.kind === "a2a" ? SKILL_INPUT_SCHEMA : request.inputSchema, params ?? {});
    if (issues.length)
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Invalid params: ${issues
          .map((i) => `${i.path} ${i.message}`)
          .join("; ")
          .slice(0, 500)}`,
        { issues },
      );
    const record = await this.cached(endpoint.name);
    if (!record)
      throw new RpcError(ErrorCode.SkillUnavailable, `${request.skill}: its upstream ${endpoint.name} is no longer registered`, { retryAfterMs: 5_000 });
    const credential = await this.#credential(record, request.version, request.caller, request.signal, request.subjectToken);
    const headers = { ...credential.headers, ...(request.traceparent ? { traceparent: request.traceparent } : {}) };
    const args = (params ?? {}) as Record<string, unknown>;
    if (endpoint.kind === "openapi") {
      const urlRefusal = (url: string) => this.settings.urlRefusal(url, "an upstream URL");
      return callOperation({
        url: endpoint.url,
        operation: endpoint.operation,
        args,
        headers,
        ...(credential.query ? { query: credential.query } : {}),
        signal: request.signal,
        label: request.skill,
        urlRefusal,
      });
    }
    if (endpoint.kind === "a2a") {
      const agent = { url: endpoint.url, label: request.skill, headers, signal: request.signal };
      const answer = await sendToAgent(agent, endpoint.skill, args as AgentToolArguments, request);
      // The task and its context are the caller's: only it may continue them, ask about them or cancel them.
      await this.#keepConversation(endpoint.name, answer, { caller: request.caller, version: request.version, tool: request.skill });
      const result = toolResultOf(answer);
      if (result.isError) throw toolFailure(request.skill, result);
      return result;
    }
    const target = mcpTarget(endpoint.url, request.skill, { ...credential, headers }, request.caller, request.signal);
    const result = await callTool(target, endpoint.era, endpoint.tool, args, {
      inputSchema: request.inputSchema,
      ...(request.onProgress ? { onProgress: request.onProgress } : {}),
      ...(request.inputRound ? { inputRound: request.inputRound } : {}),
      ...(request.onLog && request.logLevel ? { onLog: request.onLog, logLevel: request.logLevel } : {}),
    });
    if ("isError" in result && result.isError === true) throw toolFailure(request.skill, result);
    return result;
  }

  /**
   * Reads a resource, gets a prompt, completes an argument or asks about a task of one version of an
   * MCP upstream, with the version's credential for this caller, within `request.signal` (src/federation/forward's `UpstreamCaller`).
   * @example await upstreams.ask({ upstream: "everything", version: "1.0.0" }, { method: "resources/read", params: { uri }, caller, signal })
   */
  async ask(target: { upstream: string; version: string }, request: UpstreamAsk): Promise<unknown> {
    const { upstream: name, version } = target;
    const record = await this.cached(name);
    const current = record?.versions[version];
    if (!record || !current?.era) throw new RpcError(ErrorCode.SkillUnavailable, `Upstream ${name} is no longer registered`, { retryAfterMs: 5_000 });
    const { caller, signal, params } = request;
    const credential = await this.#credential(record, version, caller, signal, request.subjectToken);
    const headers = { ...credential.headers, ...(request.traceparent ? { traceparent: request.traceparent } : {}) };
    const mcp = mcpTarget(current.url, `Upstream ${name}`, { ...credential, headers }, caller, signal);
    const round = request.inputRound;
    if (request.method === "tasks/get" || request.method === "tasks/update" || request.method === "tasks/cancel") {
      // Only a 2026-07-28 server answers a call with a task (SEP-2663); a version that is not one now has none.
      if (!current.era.stateless) throw new RpcError(ErrorCode.SkillUnavailable, `Upstream ${name}@${version} runs no tasks`);
      return askTask(mcp, current.era, request.method, params as { taskId: string; inputResponses?: Record<string, unknown> });
    }
    if (request.method === "resources/read") return readUpstreamResource(mcp, current.era, String(params.uri), round);
    if (request.method === "completion/complete") return completeAtUpstream(mcp, current.era, params);
    return getUpstreamPrompt(mcp, current.era, String(params.name), (params.arguments ?? {}) as Record<string, string>, round);
  }

  /**
   * Keeps whose the task and context of an agent's answer are: the caller whose call started them
   * (written only where no record is, `nx`). An answer naming a task or context another caller
   * already has is the agent's fault — it would hand one caller another's conversation — and is
   * not relayed (-32001); the records stay as they were. A store that fails costs the caller its
   * later GetTask, not this answer.
   */
  async #keepConversation(agent: string, answer: SendMessageResult, owned: AgentTaskRecord): Promise<void> {
    const said = "task" in answer ? { taskId: answer.task.id, contextId: answer.task.contextId } : { contextId: answer.message.contextId };
    const claims = [
      ...(said.taskId ? [{ key: UPSTREAM_KEYS.agentTask(agent, said.taskId), value: JSON.stringify(owned) }] : []),
      ...(said.contextId ? [{ key: UPSTREAM_KEYS.agentContext(agent, said.contextId), value: JSON.stringify({ caller: owned.caller }) }] : []),
    ];
    for (const { key, value } of claims) {
      try {
        if (await this.store.set(key, value, { px: AGENT_TASK_TTL_MS, nx: true })) continue;
        const holder = OwnerSchema.safeParse(safeJson((await this.store.get(key)) ?? ""));
        if (holder.success && holder.data.caller !== owned.caller)
          throw new RpcError(
            ErrorCode.SkillUnavailable,
            `${owned.tool}: the agent answered with a task or context another caller started; the answer is not relayed`,
            { retryAfterMs: 1_000 },
          );
      } catch (error) {
        if (error instanceof RpcError) throw error;
        console.error(`[upstream] ${owned.tool}: its task's owner could not be kept:`, errorText(error));
      }
    }
  }

  /** Who started an agent's context (its first task or message); undefined when the gateway handed it to no one (or forgot). */
  async agentContext(name: string, contextId: string): Promise<{ caller: string } | undefined> {
    const parsed = OwnerSchema.safeParse(safeJson((await this.store.get(UPSTREAM_KEYS.agentContext(name, contextId))) ?? ""));
    return parsed.success ? parsed.data : undefined;
  }

  /** Whose an agent's task is, and which version and tool ran it; undefined when the gateway started no such task (or forgot it). */
  async agentTask(name: string, taskId: string): Promise<AgentTaskRecord | undefined> {
    const parsed = AgentTaskRecordSchema.safeParse(safeJson((await this.store.get(UPSTREAM_KEYS.agentTask(name, taskId))) ?? ""));
    return parsed.success ? parsed.data : undefined;
  }

  /**
   * Asks one version of an A2A agent about a task (`GetTask`) or to cancel it (`CancelTask`), with
   * the version's credential for this caller (`subjectToken`: its OAuth token, for a
   * `token-exchange` agent).
   * @example await upstreams.askAgent({ upstream: "writer", version: "1.0.0" }, "GetTask", taskId, { caller, signal })
   */
  async askAgent(
    target: { upstream: string; version: string },
    method: "GetTask" | "CancelTask",
    taskId: string,
    { caller, signal, subjectToken }: { caller: string; signal: AbortSignal; subjectToken?: string | undefined },
  ): Promise<Task> {
    const record = await this.cached(target.upstream);
    const current = record?.versions[target.version];
    if (!record || !current) throw new RpcError(ErrorCode.SkillUnavailable, `Upstream ${target.upstream} is no longer registered`, { retryAfterMs: 5_000 });
    const credential = await this.#credential(record, target.version, caller, signal, subjectToken);
    return askAgentTask({ url: current.url, label: `Upstream ${target.upstream}`, headers: credential.headers, signal }, method, taskId);
  }

  /** The credential of one version for one caller. */
  #credential(record: UpstreamRecord, version: string | undefined, caller: string, signal?: AbortSignal, subjectToken?: string): Promise<CallCredential> {
    return credentialFor(this.store, this.settings.upstreamKey, record.name, authOf(record, version), caller, signal, subjectToken);
  }

  /** An upstream's record, read at most every few seconds per isolate. */
  cached(name: string): Promise<UpstreamRecord | undefined> {
    const known = this.#records.get(name);
    if (known && known.until > Date.now()) return known.record;
    const record = this.get(name);
    this.#records.set(name, { record, until: Date.now() + RECORD_TTL_MS });
    record.catch(() => this.#records.delete(name));
    return record;
  }

  /**
   * Every upstream's name, read at most every few seconds per isolate: what a caller's offerings
   * are looked for in, besides the upstreams whose tools it sees (one may serve only resources,
   * prompts or Agent Skills).
   */
  names(): Promise<string[]> {
    if (this.#names && this.#names.until > Date.now()) return this.#names.names;
    const names = this.store.zrangeByScore(UPSTREAM_KEYS.index, -Infinity, Infinity);
    this.#names = { names, until: Date.now() + RECORD_TTL_MS };
    names.catch(() => (this.#names = undefined));
    return names;
  }

  // -------------------------------------------------------------------------------------------
  // Records
  // -------------------------------------------------------------------------------------------

  async get(name: string): Promise<UpstreamRecord | undefined> {
    const parsed = UpstreamRecordSchema.safeParse(safeJson((await this.store.get(UPSTREAM_KEYS.record(name))) ?? ""));
    return parsed.success ? parsed.data : undefined;
  }

  async list(): Promise<UpstreamRecord[]> {
    const names = await this.store.zrangeByScore(UPSTREAM_KEYS.index, -Infinity, Infinity);
    const records = await Promise.all(names.map((name) => this.get(name)));
    return records.filter((r): r is UpstreamRecord => !!r);
  }

  /** An upstream's held changes, by version. */
  async held(name: string): Promise<HeldDoc> {
    const parsed = HeldDocSchema.safeParse(safeJson((await this.store.get(UPSTREAM_KEYS.held(name))) ?? ""));
    return parsed.success ? parsed.data : { versions: {} };
  }

  /** Every upstream as the admin API shows it (`upstreamView`), or one. */
  async views(name?: string): Promise<UpstreamView[]> {
    const records = name === undefined ? await this.list() : [await this.get(name)].filter((r): r is UpstreamRecord => !!r);
    return Promise.all(records.map(async (record) => upstreamView(record, await this.held(record.name))));
  }

  async #put(record: UpstreamRecord, held?: HeldDoc): Promise<void> {
    await this.store.set(UPSTREAM_KEYS.record(record.name), JSON.stringify(record));
    if (held) await this.store.set(UPSTREAM_KEYS.held(record.name), JSON.stringify(held));
    await this.store.zadd(UPSTREAM_KEYS.index, [{ score: record.createdAt, member: record.name }]);
    this.#records.delete(record.name);
    this.#names = undefined;
  }

  // -------------------------------------------------------------------------------------------
  // The operator's changes
  // -------------------------------------------------------------------------------------------

  /**
   * Registers an upstream version (a new upstream, or another version of one: its tools then
   * register as canaries at 0%) with its own credential: reads its definitions and serves each
   * selected one, and its resources, templates and prompts. Refused (409) when a tool's name is
   * another skill's, unless one of the two is a degraded fallback.
   */
  async register(registration: UpstreamRegistration, now = Date.now()): Promise<SyncReport> {
    const { name, version } = registration;
    const existing = await this.get(name);
    if (existing && existing.kind !== registration.kind)
      throw new UpstreamError(409, `${name} is registered as an ${existing.kind} upstream; remove it first to register another kind under its name`);
    const taken = existing ? undefined : await this.settings.nameRefusal?.(name);
    if (taken) throw new UpstreamError(409, taken);
    for (const [what, url] of this.#urlsOf(registration)) {
      const refusal = this.settings.urlRefusal(url, what) ?? urlSecretRefusal(url, what);
      if (refusal) throw new UpstreamError(400, `Invalid upstream: ${refusal}`);
    }
    if (registration.auth.type === "token-exchange") {
      const refusal = await this.settings.exchangeRefusal?.(registration.auth.tokenUrl);
      if (refusal) throw new UpstreamError(400, `Invalid upstream: ${refusal}`);
    }
    const auth = await sealAuth(this.settings.upstreamKey, name, registration.auth);
    const { auth: _legacy, ...kept } = existing ?? ({} as Partial<UpstreamRecord>);
    const record: UpstreamRecord = {
      ...kept,
      name,
      kind: registration.kind,
      tags: registration.tags,
      createdAt: existing?.createdAt ?? now,
      // Each version keeps the credential it was registered with (a record of before: its upstream's).
      versions: Object.fromEntries(
        Object.entries(existing?.versions ?? {}).map(([v, current]) => [v, current.auth ? current : { ...current, auth: authOf(existing!, v) }]),
      ),
      ...options(registration),
    };
    const documentUrl =
      registration.kind === "openapi" ? documentUrlOf(registration.document)
      : registration.kind === "a2a" ? agentCardUrlOf(registration.url)
      : undefined;
    const inline = registration.kind === "openapi" && !documentUrl ? registration.document : undefined;
    const read = await this.#definitions(record, version, auth, { url: registration.url, documentUrl, inline });
    const collisions = await this.#collisions(name, read.definitions, record.degraded === true);
    if (collisions.length)
      throw new UpstreamError(
        409,
        `Upstream ${name}: ${collisions.length} tool name(s) are taken by other skills; leave them out (exclude) or register under another name`,
        { collisions },
      );
    const served: string[] = [];
    for (const definition of read.definitions) served.push(await this.#serve(name, version, definition, now));
    const previous = existing?.versions[version];
    // Tools this version served before and no longer does (re-registered with another selection) go.
    const stale = Object.entries(previous?.tools ?? {}).filter(([tool]) => !read.definitions.some((d) => d.tool === tool));
    if (stale.length)
      await this.registry.deregister(
        stale.map(([, skill]) => deploymentId(skill, version)),
        now,
      );
    record.versions[version] = {
      url: read.url,
      ...(documentUrl ? { documentUrl } : {}),
      ...(read.era ? { era: read.era } : {}),
      ...(read.agent ? { agent: read.agent } : {}),
      registeredAt: now,
      tools: Object.fromEntries(read.definitions.map((d) => [d.tool, d.manifest.name])),
      removed: [],
      refresh: { at: now, ok: true },
      ...(read.offerings ? { offerings: read.offerings } : {}),
      auth,
    };
    // A registration is the operator's word for what it serves now: nothing of this version stays held.
    const held = await this.held(name);
    delete held.versions[version];
    await this.#put(record, held);
    return { upstream: name, version, served, offerings: offeringNames(read.offerings), held: [], removed: stale.map(([tool]) => tool), skipped: read.skipped };
  }

  /**
   * Reads every version's definitions again. Unchanged ones stay; a new tool, resource, template
   * or prompt, or one whose definition changed (a tool's endpoint included), is held for approval
   * (a breaking change of a tool withdraws it until then; a changed offering keeps its pinned
   * definition served); one the upstream no longer lists is withdrawn. A version that cannot be
   * read keeps serving what it served, and its refresh status says why. Held changes are bounded:
   * past them a change is not held but reported (`skipped`), and audited.
   */
  async refresh(name: string, now = Date.now()): Promise<SyncReport[]> {
    const record = await this.get(name);
    if (!record) throw new UpstreamError(404, `No upstream ${name}; GET /admin/upstreams lists them`);
    const heldBefore = await this.held(name);
    const held: HeldDoc = { versions: {} };
    const reports: SyncReport[] = [];
    for (const [version, current] of Object.entries(record.versions)) {
      const before = heldBefore.versions[version] ?? [];
      if (record.kind === "openapi" && !current.documentUrl) {
        // A document sent inline has nowhere to be read again: it changes when it is registered again.
        reports.push({
          upstream: name,
          version,
          served: Object.values(current.tools).map((skill) => deploymentId(skill, version)),
          offerings: [],
          held: [],
          removed: [],
          skipped: [],
        });
        current.refresh = { at: now, ok: true };
        if (before.length) held.versions[version] = before;
        continue;
      }
      let read: DefinitionsRead;
      try {
        read = await this.#definitions(record, version, authOf(record, version), { url: current.url, documentUrl: current.documentUrl });
      } catch (error) {
        current.refresh = { at: now, ok: false, error: error instanceof Error ? error.message.slice(0, 300) : "failed" };
        if (before.length) held.versions[version] = before;
        continue;
      }
      const report = await this.#reconcile(record, version, current, read.definitions, read.skipped, before, now);
      let changes = report.changes;
      if (read.offerings) {
        const offerings = await reconcileOfferings(current.offerings, read.offerings, before, now);
        current.offerings = offerings.served;
        changes = [...changes, ...offerings.held];
        report.removed.push(...offerings.removed);
      }
      report.offerings = offeringNames(current.offerings);
      held.versions[version] = changes;
      current.refresh = { at: now, ok: true };
      reports.push(report);
    }
    // Within the bounds across every version: the rest is not held, and the operator is told.
    const { kept, refused } = boundedHeld(Object.values(held.versions).flat());
    for (const [version, changes] of Object.entries(held.versions)) {
      held.versions[version] = changes.filter((change) => kept.includes(change));
      const report = reports.find((r) => r.version === version);
      if (!report) continue;
      report.held = held.versions[version]!.map(heldReportOf);
      for (const change of changes.filter((c) => refused.includes(c))) {
        report.skipped.push({
          tool: approvalKeyOf(change),
          reason: `not held: ${Object.values(held.versions).flat().length} changes are held already; approve or refuse them first (at most ${kept.length})`,
        });
      }
    }
    for (const [version, changes] of Object.entries(held.versions)) if (!changes.length) delete held.versions[version];
    await this.#put(record, held);
    return reports;
  }

  /**
   * Serves held changes the operator reviewed, each named by its approval key (a tool's name,
   * `<subject>:<name>` for an offering) with the `contractHash` the operator saw. All or nothing:
   * a key not held (404), or held now with another hash (409: it changed since it was reviewed),
   * refuses the whole approval and changes nothing.
   */
  async approve(name: string, approval: Approval, now = Date.now()): Promise<SyncReport[]> {
    const record = await this.get(name);
    if (!record) throw new UpstreamError(404, `No upstream ${name}; GET /admin/upstreams lists them`);
    if (approval.version && !record.versions[approval.version]) throw new UpstreamError(404, `Upstream ${name} has no version ${approval.version}`);
    const wanted = new Map(Object.entries({ ...approval.tools, ...approval.offerings }));
    const held = await this.held(name);
    const picked: Array<{ version: string; change: HeldChange }> = [];
    for (const [key, hash] of wanted) {
      const matches = Object.entries(held.versions)
        .filter(([version]) => !approval.version || version === approval.version)
        .flatMap(([version, changes]) => changes.filter((c) => approvalKeyOf(c) === key).map((change) => ({ version, change })));
      if (!matches.length)
        throw new UpstreamError(
          404,
          `Upstream ${name}: nothing held as ${key}${approval.version ? ` in version ${approval.version}` : ""}; GET /admin/upstreams/${name} lists what is held`,
        );
      const other = matches.find(({ change }) => change.contractHash !== hash);
      if (other) {
        throw new UpstreamError(
          409,
          `Upstream ${name}: ${key} changed since it was reviewed (held now: ${other.change.contractHash}, approved: ${hash}); review it again and approve what is held now`,
          {
            key,
            version: other.version,
            held: other.change.contractHash,
            approved: hash,
          },
        );
      }
      picked.push(...matches);
    }
    const reports: SyncReport[] = [];
    for (const version of [...new Set(picked.map((p) => p.version))]) {
      const current = record.versions[version]!;
      const approved = picked.filter((p) => p.version === version).map((p) => p.change);
      const tools = approved.filter((c) => c.subject === "tool" && c.manifest && c.endpoint);
      const definitions = await Promise.all(
        tools.map(async (c) => ({
          tool: c.name,
          manifest: c.manifest!,
          contractHash: await contractHashOf(c.manifest!),
          pinHash: c.contractHash,
          endpoint: c.endpoint!,
        })),
      );
      const collisions = await this.#collisions(
        name,
        definitions.filter((d) => !current.tools[d.tool]),
        record.degraded === true,
      );
      if (collisions.length) throw new UpstreamError(409, `Upstream ${name}: tool name(s) taken by other skills`, { collisions });
      const served: string[] = [];
      for (const definition of definitions) {
        served.push(await this.#serve(name, version, definition, now));
        current.tools[definition.tool] = definition.manifest.name;
      }
      current.offerings = withApproved(current.offerings, approved);
      held.versions[version] = (held.versions[version] ?? []).filter((c) => !approved.includes(c));
      if (!held.versions[version]!.length) delete held.versions[version];
      reports.push({
        upstream: name,
        version,
        served,
        offerings: offeringNames(current.offerings),
        held: [],
        removed: [],
        skipped: [],
        approved: approved.map((c) => ({ key: approvalKeyOf(c), contractHash: c.contractHash })),
      });
    }
    await this.#put(record, held);
    return reports;
  }

  /** Removes an upstream (or one of its versions) and every deployment of its tools; undefined when there was none. */
  async remove(name: string, version?: string, now = Date.now()): Promise<string[] | undefined> {
    const record = await this.get(name);
    if (!record || (version && !record.versions[version])) return undefined;
    const versions = version ? [version] : Object.keys(record.versions);
    const ids = versions.flatMap((v) => Object.values(record.versions[v]!.tools).map((skill) => deploymentId(skill, v)));
    const removed = await this.registry.deregister(ids, now);
    const held = await this.held(name);
    for (const v of versions) {
      forgetSessions(record.versions[v]!.url);
      delete record.versions[v];
      delete held.versions[v];
    }
    if (Object.keys(record.versions).length) await this.#put(record, held);
    else {
      await this.store.del(UPSTREAM_KEYS.record(name));
      await this.store.del(UPSTREAM_KEYS.held(name));
      await this.store.zrem(UPSTREAM_KEYS.index, name);
      this.#records.delete(name);
      this.#names = undefined;
    }
    forgetAccessToken(name);
    return removed;
  }

  /** The upstreams whose last refresh is older than `everyMs`, refreshed (the scheduled handler). */
  async refreshDue(everyMs: number, now = Date.now()): Promise<SyncReport[]> {
    const reports: SyncReport[] = [];
    for (const record of await this.list()) {
      const last = Math.min(...Object.values(record.versions).map((v) => v.refresh?.at ?? 0));
      if (now - last < everyMs) continue;
      reports.push(
        ...(await this.refresh(record.name, now).catch(
          (error) => (console.error(`[upstream] refresh of ${record.name} failed:`, error instanceof Error ? error.message : error), []),
        )),
      );
    }
    return reports;
  }

  // -------------------------------------------------------------------------------------------

  #urlsOf(registration: UpstreamRegistration): Array<[string, string]> {
    const urls: Array<[string, string]> = [];
    if (registration.url) urls.push(["an upstream URL", registration.url]);
    const documentUrl = registration.kind === "openapi" ? documentUrlOf(registration.document) : undefined;
    if (documentUrl) urls.push(["an OpenAPI document URL", documentUrl]);
    // Every credential URL: the client credentials' and the token exchange's (which receives each caller's access token).
    if (registration.auth.type === "client_credentials" || registration.auth.type === "token-exchange") urls.push(["a token URL", registration.auth.tokenUrl]);
    return urls;
  }

  /** Reads one version's definitions, within `DEFINITIONS_TIMEOUT_MS`, as the operator, with the version's credential. */
  async #definitions(
    record: UpstreamRecord,
    version: string,
    auth: StoredAuth,
    where: { url?: string; documentUrl?: string; inline?: string | Record<string, unknown> },
  ): Promise<DefinitionsRead> {
    const signal = AbortSignal.timeout(DEFINITIONS_TIMEOUT_MS);
    const source: ToolSource & { operationTags?: string[] } = { upstream: record.name, version, tags: record.tags, ...options(record) };
    const credential = await credentialFor(this.store, this.settings.upstreamKey, record.name, auth, OPERATOR, signal).catch((): CallCredential => ({
      headers: {},
      sessionKey: "",
    }));
    const definitions: Definition[] = [];
    const skipped: Skipped[] = [];
    if (record.kind === "mcp") {
      const url = where.url!;
      const target = mcpTarget(url, `Upstream ${record.name}`, credential, OPERATOR, signal);
      let era: McpEra;
      let listed: Awaited<ReturnType<typeof listTools>>;
      try {
        era = await discoverEra(target);
        listed = await listTools(target, era);
      } catch (error) {
        throw new UpstreamError(502, `Could not read ${record.name}'s tools: ${error instanceof Error ? error.message : "failed"}`);
      }
      skipped.push(...listed.invalid);
      const offered = await listOfferings(target, era).catch(() => undefined);
      // Its Agent Skills, when it serves them; when they cannot be read, what was pinned stays (a refresh's reconcile).
      const skills = await readUpstreamSkills(target, era).catch((error: unknown) => {
        skipped.push({ tool: "skills", reason: `could not be read: ${error instanceof Error ? error.message.slice(0, 300) : "failed"}` });
        return undefined;
      });
      skipped.push(...(skills?.skipped ?? []));
      const appUris = new Set<string>();
      for (const tool of listed.tools) {
        if (!selects(source, tool.name)) continue;
        const made = mcpManifestOf(source, tool);
        if ("refused" in made) skipped.push({ tool: tool.name, reason: made.refused });
        else {
          definitions.push(await definitionOf(tool.name, made.manifest, { upstream: { kind: "mcp", name: record.name, url, tool: tool.name, era } }));
          const app = toolUiOf(tool._meta)?.resourceUri;
          if (app && offered?.resources.some((r) => r.uri === app)) appUris.add(app);
        }
      }
      // The apps its served tools show, each read now and pinned; when they cannot be read, what was pinned stays.
      const apps =
        appUris.size ?
          await readUpstreamApps(target, era, [...appUris].sort(), { bytes: LIST_BUDGET_BYTES }).catch((error: unknown) => {
            skipped.push({ tool: "apps", reason: `could not be read: ${error instanceof Error ? error.message.slice(0, 300) : "failed"}` });
            return undefined;
          })
        : { apps: [], skipped: [] };
      skipped.push(...(apps?.skipped ?? []));
      const base = offered ?? { resources: [], resourceTemplates: [], prompts: [] };
      const offerings = offered || skills ? { ...base, ...(skills ? { skills: skills.skills } : {}), ...(apps ? { apps: apps.apps } : {}) } : undefined;
      return { url, era, definitions, skipped, ...(offerings ? { offerings } : {}) };
    }
    if (record.kind === "a2a") return this.#agentDefinitions(record, source, where.documentUrl!, credential, signal);
    // A document's host gets the API's credential only when it is the API's own origin, or the operator says so.
    const sameOrigin = !!where.url && !!where.documentUrl && new URL(where.url).origin === new URL(where.documentUrl).origin;
    const documentHeaders = sameOrigin || record.documentAuth ? credential.headers : {};
    const document = where.inline ?? (await this.#readDocument(record.name, where.documentUrl!, documentHeaders, signal));
    let parsed: Record<string, unknown>;
    try {
      parsed = parseDocument(document);
    } catch (error) {
      throw new UpstreamError(
        400,
        `Upstream ${record.name}: the OpenAPI document cannot be used: ${error instanceof Error ? error.message.slice(0, 300) : "it does not parse"}`,
      );
    }
    const url = where.url ?? serverUrlOf(parsed);
    if (!url)
      throw new UpstreamError(400, `Upstream ${record.name}: the document names no absolute server URL; send "url", the base URL its operations are called on`);
    const refusal = this.settings.urlRefusal(url, "an upstream URL") ?? urlSecretRefusal(url, "an upstream URL");
    if (refusal) throw new UpstreamError(400, `Invalid upstream: ${refusal}`);
    const operations = operationsOf(parsed, source);
    skipped.push(...operations.skipped);
    for (const op of operations.skills)
      definitions.push(await definitionOf(op.tool, op.manifest, { upstream: { kind: "openapi", name: record.name, url, operation: op.operation } }));
    return { url, era: undefined, definitions, skipped };
  }

  /**
   * An A2A agent's skills, from its card: each selected skill a tool, called at the card's JSON-RPC
   * interface (which must be at the card's own origin, and pass the URL policy).
   */
  async #agentDefinitions(
    record: UpstreamRecord,
    source: ToolSource,
    cardUrl: string,
    credential: CallCredential,
    signal: AbortSignal,
  ): Promise<DefinitionsRead> {
    const card = await readAgentCard({ url: cardUrl, label: `Upstream ${record.name}`, headers: credential.headers, signal }).catch((error: unknown) => {
      throw new UpstreamError(502, `Could not read ${record.name}'s Agent Card: ${error instanceof Error ? error.message : "failed"}`);
    });
    const endpoint = jsonRpcInterfaceOf(card, cardUrl);
    if ("refused" in endpoint) throw new UpstreamError(400, `Upstream ${record.name}: ${endpoint.refused}`);
    const refusal = this.settings.urlRefusal(endpoint.url, "an agent's JSON-RPC URL") ?? urlSecretRefusal(endpoint.url, "an agent's JSON-RPC URL");
    if (refusal) throw new UpstreamError(400, `Invalid upstream: ${refusal}`);
    const definitions: Definition[] = [];
    const skipped: Skipped[] = [];
    for (const skill of card.skills) {
      if (!selects(source, skill.id)) continue;
      const made = a2aManifestOf(source, skill);
      if ("refused" in made) skipped.push({ tool: skill.id, reason: made.refused });
      else definitions.push(await definitionOf(skill.id, made.manifest, { upstream: { kind: "a2a", name: record.name, url: endpoint.url, skill: skill.id } }));
    }
    return { url: endpoint.url, era: undefined, agent: { name: card.name, description: card.description, version: card.version }, definitions, skipped };
  }

  async #readDocument(name: string, url: string, headers: Record<string, string>, signal: AbortSignal): Promise<string> {
    try {
      const response = await fetch(url, {
        headers: { ...headers, accept: "application/json, application/yaml, text/yaml, */*;q=0.5" },
        redirect: "manual",
        signal,
      });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
      return await boundedText(response, MAX_DOCUMENT_BYTES);
    } catch (error) {
      throw new UpstreamError(
        502,
        `Could not read ${name}'s OpenAPI document from ${redactedUrl(url)} (200, at most ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB, no redirect): ${error instanceof Error ? error.message.slice(0, 200) : "failed"}`,
      );
    }
  }

  /** The tools whose names are held by skills that are not this upstream's (a degraded fallback may share one). */
  async #collisions(
    name: string,
    definitions: Array<Pick<Definition, "tool" | "manifest">>,
    degraded: boolean,
  ): Promise<Array<{ tool: string; skill: string; takenBy: string }>> {
    const skills = await this.registry.readSkills(definitions.map((d) => d.manifest.name));
    const collisions: Array<{ tool: string; skill: string; takenBy: string }> = [];
    for (const d of definitions) {
      const others = Object.values(skills.get(d.manifest.name)?.deployments ?? {}).filter((other) => !isOf(other, name));
      const clash = others.find((other) => (other.role === "degraded") === degraded);
      if (clash) collisions.push({ tool: d.tool, skill: d.manifest.name, takenBy: clash.id });
    }
    return collisions;
  }

  /** Registers one definition as `<skill>@<version>` (the operator's word replaces an older one). */
  async #serve(name: string, version: string, definition: Definition, now: number): Promise<string> {
    const outcome = await this.registry.register(
      {
        manifest: definition.manifest,
        endpoint: definition.endpoint,
        registrationId: `upstream:${name}@${version}:${definition.pinHash}`,
        contractHash: definition.contractHash,
        force: true,
      },
      now,
    );
    return outcome.deployment.id;
  }

  /** A refresh of one version's tools: what is held, withdrawn or kept. */
  async #reconcile(
    record: UpstreamRecord,
    version: string,
    current: UpstreamVersion,
    definitions: Definition[],
    skipped: Skipped[],
    before: HeldChange[],
    now: number,
  ): Promise<SyncReport & { changes: HeldChange[] }> {
    const report = {
      upstream: record.name,
      version,
      served: [] as string[],
      offerings: [] as string[],
      held: [] as HeldReport[],
      removed: [] as string[],
      skipped,
      changes: [] as HeldChange[],
    };
    const skills = await this.registry.readSkills([...new Set(Object.values(current.tools))]);
    const deployed = new Map<string, Deployment>();
    for (const skill of Object.values(current.tools)) {
      const d = skills.get(skill)?.deployments[deploymentId(skill, version)];
      if (d) deployed.set(d.id, d);
    }
    const seen = new Set<string>();
    for (const definition of definitions) {
      seen.add(definition.tool);
      const skill = current.tools[definition.tool];
      const served = skill ? deployed.get(deploymentId(skill, version)) : undefined;
      const earlier = before.find((h) => h.subject === "tool" && h.name === definition.tool);
      const servedPin = served && (await definitionHashOf({ manifest: served.manifest, endpoint: served.endpoint }));
      if (served && servedPin === definition.pinHash) {
        report.served.push(served.id);
        continue;
      }
      const previous = served ? { manifest: served.manifest, endpoint: served.endpoint } : undefined;
      const breaking = !!served && changesBetween(served.manifest, definition.manifest).breaking.length > 0;
      // Where it is called is part of what is pinned: an endpoint change is named, and held like any other.
      const endpointChanged = !!served && JSON.stringify(served.endpoint) !== JSON.stringify(definition.endpoint);
      const change: HeldChange = {
        subject: "tool",
        name: definition.tool,
        kind: skill ? "changed" : "new",
        contractHash: definition.pinHash,
        ...(servedPin ? { previousHash: servedPin, previous } : {}),
        manifest: definition.manifest,
        endpoint: definition.endpoint,
        changes:
          served ?
            [
              ...manifestChanges(served.manifest, definition.manifest),
              ...(endpointChanged ? manifestChanges({ endpoint: served.endpoint }, { endpoint: definition.endpoint }) : []),
            ]
          : [],
        breaking,
        withdrawn: breaking || (!!earlier?.withdrawn && !served),
        seenAt: earlier?.contractHash === definition.pinHash ? earlier.seenAt : now,
      };
      if (breaking && served) await this.registry.deregister([served.id], now);
      else if (served) report.served.push(served.id);
      report.changes.push(change);
    }
    const gone = Object.entries(current.tools).filter(([tool]) => !seen.has(tool));
    if (gone.length) {
      await this.registry.deregister(
        gone.map(([, skill]) => deploymentId(skill, version)),
        now,
      );
      for (const [tool] of gone) {
        delete current.tools[tool];
        current.removed = [...current.removed.filter((r) => r.tool !== tool), { tool, at: now }].slice(-100);
        report.removed.push(tool);
      }
    }
    return report;
  }
}

/** What the operator said of every tool of an upstream, as its record and each of its tools keep it. */
function options(source: Pick<UpstreamRecord, "timeoutMs" | "degraded" | "breaker" | "guardrails" | "include" | "exclude" | "operationTags" | "documentAuth">) {
  return {
    ...(source.timeoutMs ? { timeoutMs: source.timeoutMs } : {}),
    ...(source.guardrails ? { guardrails: source.guardrails } : {}),
    ...(source.degraded ? { degraded: true } : {}),
    ...(source.breaker ? { breaker: source.breaker } : {}),
    ...(source.include ? { include: source.include } : {}),
    ...(source.exclude ? { exclude: source.exclude } : {}),
    ...(source.operationTags ? { operationTags: source.operationTags } : {}),
    ...(source.documentAuth ? { documentAuth: true } : {}),
  };
}

/** Where an OpenAPI document is read: its URL, or undefined for a document sent itself (its text or its JSON). */
function documentUrlOf(document: string | Record<string, unknown>): string | undefined {
  return typeof document === "string" && /^https?:\/\/\S+$/i.test(document.trim()) ? document.trim() : undefined;
}

/** One tool read: its manifest and endpoint, each hash. */
async function definitionOf(tool: string, manifest: SkillManifest, endpoint: { upstream: UpstreamEndpoint }): Promise<Definition> {
  return { tool, manifest, contractHash: await contractHashOf(manifest), pinHash: await definitionHashOf({ manifest, endpoint }), endpoint };
}

/** One MCP server as a call (or a definitions read) reaches it, with its credential for `caller`. */
function mcpTarget(url: string, label: string, credential: CallCredential, caller: string, signal: AbortSignal): McpTarget {
  // A 2025 server keeps state per session: each caller has its own, even with a shared credential.
  return {
    url,
    label,
    headers: credential.headers,
    ...(credential.query ? { query: credential.query } : {}),
    sessionKey: `${credential.sessionKey}\n${caller}`,
    signal,
  };
}

/** `<subject> <name>` of each offering. */
function offeringNames(offerings: Offerings | undefined): string[] {
  if (!offerings) return [];
  return OFFERING_SUBJECTS.flatMap((s) =>
    ((offerings[s.list] ?? []) as Array<Parameters<typeof s.keyOf>[0]>).map((item) => `${s.subject} ${(s.keyOf as (item: unknown) => string)(item)}`),
  );
}

/** The served offerings with approved held ones in place (a changed one replaced, a new one added). */
function withApproved(offerings: Offerings | undefined, approved: HeldChange[]): Offerings | undefined {
  const changes = approved.filter((c) => c.subject !== "tool" && c.offering);
  if (!changes.length) return offerings;
  const next: Offerings = {
    resources: [...(offerings?.resources ?? [])],
    resourceTemplates: [...(offerings?.resourceTemplates ?? [])],
    prompts: [...(offerings?.prompts ?? [])],
    ...(offerings?.skills || changes.some((c) => c.subject === "skill") ? { skills: [...(offerings?.skills ?? [])] } : {}),
    ...(offerings?.apps || changes.some((c) => c.subject === "app") ? { apps: [...(offerings?.apps ?? [])] } : {}),
  };
  for (const subject of OFFERING_SUBJECTS) {
    const keyOf = subject.keyOf as (item: unknown) => string;
    const list = next[subject.list] as unknown[];
    for (const change of changes.filter((c) => c.subject === subject.subject)) {
      const at = list.findIndex((item) => keyOf(item) === change.name);
      if (at >= 0) list[at] = change.offering;
      else list.push(change.offering);
    }
  }
  return next;
}

/** A held change as a report names it. */
function heldReportOf(change: HeldChange): HeldReport {
  return {
    subject: change.subject,
    name: change.name,
    kind: change.kind,
    contractHash: change.contractHash,
    breaking: change.breaking,
    withdrawn: change.withdrawn,
    changes: change.changes,
  };
}

/**
 * An MCP tool's own failure (`isError`) as the call chain counts it: the tool failing, as an SDK
 * skill's exception is (-32603: audited, observed, counted by its breaker); the result itself
 * rides in `data.toolResult`, and an MCP caller gets it as the upstream sent it.
 */
function toolFailure(skill: string, result: UpstreamToolResult): RpcError {
  const said = result.content.find((block): block is { type: "text"; text: string } => block.type === "text")?.text ?? "";
  return new RpcError(ErrorCode.InternalError, `${skill} reported an error${said ? `: ${said.slice(0, 300)}` : ""}`, { toolResult: result });
}

/** True when a deployment is one of upstream `name`'s tools. */
export function isOf(deployment: Deployment, name: string): boolean {
  return "upstream" in deployment.endpoint && deployment.endpoint.upstream.name === name;
}

/**
 * An upstream as the admin API shows it: no secret (each version's credential described, its URLs
 * with query values and long opaque path segments redacted), its held changes beside each version.
 * @example upstreamView(record, await upstreams.held(record.name))
 */
export function upstreamView(record: UpstreamRecord, held: HeldDoc): UpstreamView {
  const { auth: _auth, versions, ...rest } = record;
  return {
    ...rest,
    versions: Object.fromEntries(
      Object.entries(versions).map(([version, { auth: _own, ...v }]) => [
        version,
        {
          ...v,
          url: redactedUrl(v.url),
          ...(v.documentUrl ? { documentUrl: redactedUrl(v.documentUrl) } : {}),
          auth: describeAuth(authOf(record, version)),
          held: held.versions[version] ?? [],
        },
      ]),
    ),
  };
}

/**
 * The audit entries of a sync: one per held or removed definition and per approved one (with its
 * hash), by whoever ran it (an admin, or `refresh` for the scheduled handler), so a changed tool,
 * resource or prompt is never taken in silently.
 * @example recordSync(runtime.audit, reports, "refresh", ctx.waitUntil)
 */
export function recordSync(audit: AuditLog, reports: SyncReport[], by: string, waitUntil: (promise: Promise<unknown>) => void): void {
  const at = Date.now();
  for (const report of reports) {
    const where = `upstream ${report.upstream}@${report.version}`;
    for (const held of report.held) {
      const what = `${SUBJECT_WORDS[held.subject]} ${held.name}`;
      audit.record(
        {
          type: "admin",
          at,
          by,
          action: `${where}: held ${held.kind} ${what} ${held.contractHash}${held.breaking ? " (breaking)" : ""}${held.withdrawn ? ", withdrawn until approved" : ""}`,
          status: 202,
        },
        waitUntil,
      );
    }
    for (const removed of report.removed)
      audit.record(
        {
          type: "admin",
          at,
          by,
          action: `${where}: ${removed.includes(" ") ? removed : `tool ${removed}`} withdrawn (the upstream no longer lists it)`,
          status: 200,
        },
        waitUntil,
      );
    for (const refused of report.skipped.filter((s) => s.reason.startsWith("not held:")))
      audit.record({ type: "admin", at, by, action: `${where}: a change of ${refused.tool} was not held: ${refused.reason}`, status: 409 }, waitUntil);
    if (report.approved?.length)
      audit.record(
        { type: "admin", at, by, action: `${where}: approved ${report.approved.map((a) => `${a.key} ${a.contractHash}`).join(", ")}`, status: 200 },
        waitUntil,
      );
  }
}
