/**
 * Upstreams behind the gateway (docs/architecture.md, "Federation"): registering one reads its
 * definitions (an MCP server's `tools/list`, an OpenAPI document's operations), pins each as a
 * deployment in the registry under `<upstream>.<tool>@<version>` with its contract hash, and
 * keeps the upstream's record (`sm:upstream:<name>`, credentials sealed). A refresh reads the
 * definitions again: a new or changed tool is held for an operator's approval (a breaking change
 * withdraws the tool meanwhile), a removed one is withdrawn. Calls of the deployments reach
 * `Upstreams.call`, through every policy of the call chain.
 */
import type { AuditLog } from "../audit/index.js";
import { boundedText } from "../body/index.js";
import { changesBetween } from "../contracts/index.js";
import type { UpstreamAsk, UpstreamCaller, UpstreamRequest } from "../forward/index.js";
import { safeJson } from "../json/index.js";
import { ErrorCode, RpcError } from "../jsonrpc/index.js";
import type { RegistryRepository } from "../registry/repository.js";
import { type Deployment, type UpstreamEndpoint, deploymentId } from "../registry/model.js";
import { contractHashOf, manifestChanges } from "../registry/contract.js";
import type { SkillManifest } from "../skill/manifest.js";
import type { Store } from "../store/index.js";
import { OPERATOR, credentialFor, describeAuth, forgetAccessToken, sealAuth } from "./credentials.js";
import { type Skipped, type ToolSource, mcpManifestOf, selects } from "./definitions.js";
import { type McpTarget, type UpstreamOfferings, callTool, discoverEra, forgetSessions, getUpstreamPrompt, listOfferings, listTools, readUpstreamResource } from "./mcp-client.js";
import { type HeldChange, type McpEra, type StoredAuth, type UpstreamRecord, UpstreamRecordSchema, type UpstreamRegistration, type UpstreamVersion } from "./model.js";
import { MAX_DOCUMENT_BYTES, callOperation, operationsOf, parseDocument, serverUrlOf } from "./openapi.js";

export const UPSTREAM_KEYS = {
  /** Every upstream's name, scored by when it was first registered. */
  index: "sm:upstreams",
  record: (name: string) => `sm:upstream:${name}`,
} as const;

/** How long an isolate uses an upstream's record before reading it again. */
const RECORD_TTL_MS = 5_000;
/** How long reading an upstream's definitions may take. */
const DEFINITIONS_TIMEOUT_MS = 15_000;

/** An upstream registration the gateway refuses; `status` is the admin API's answer. */
export class UpstreamError extends Error {
  constructor(readonly status: 400 | 404 | 409 | 502, message: string, readonly details?: unknown) {
    super(message);
    this.name = "UpstreamError";
  }
}

/** One definition read from an upstream: the tool's name there, its manifest and endpoint. */
interface Definition {
  tool: string;
  manifest: SkillManifest;
  contractHash: string;
  endpoint: { upstream: UpstreamEndpoint };
}

/** One version's definitions as read: where it answers, its era (MCP), what it serves and skips. */
interface DefinitionsRead {
  url: string;
  era: McpEra | undefined;
  definitions: Definition[];
  skipped: Skipped[];
  /** An MCP upstream's resources, templates and prompts. */
  offerings?: UpstreamOfferings;
}

/** What a registration or refresh did, for the admin's answer and the audit log. */
export interface SyncReport {
  upstream: string;
  version: string;
  /** Skills served (registered or kept). */
  served: string[];
  held: Array<Pick<HeldChange, "tool" | "kind" | "breaking" | "withdrawn" | "changes">>;
  removed: string[];
  skipped: Skipped[];
}

/** Settings the upstreams need: the key that seals credentials and the URL policy. */
export interface UpstreamSettings {
  upstreamKey?: string;
  /** Why a URL may not be called, or undefined (src/forward/endpoint-policy.ts). */
  urlRefusal: (url: string, what: string) => string | undefined;
}

/**
 * The gateway's upstreams: their records, the calls of their tools, and the operator's changes.
 * @example const report = await runtime.upstreams.register(registration, "admin-token")
 */
export class Upstreams implements UpstreamCaller {
  readonly #records = new Map<string, { record: Promise<UpstreamRecord | undefined>; until: number }>();

  constructor(
    private readonly store: Store,
    private readonly registry: RegistryRepository,
    private readonly settings: UpstreamSettings,
  ) {}

  // -------------------------------------------------------------------------------------------
  // Calls
  // -------------------------------------------------------------------------------------------

  /** Calls an upstream's tool with the upstream's credential for this caller (src/forward's `UpstreamCaller`). */
  async call(endpoint: UpstreamEndpoint, request: UpstreamRequest): Promise<unknown> {
    const { params } = request;
    if (Array.isArray(params)) throw new RpcError(ErrorCode.InvalidParams, `Invalid params: ${request.skill} takes named arguments (an object), not a list`);
    const record = await this.cached(endpoint.name);
    if (!record) throw new RpcError(ErrorCode.SkillUnavailable, `${request.skill}: its upstream ${endpoint.name} is no longer registered`, { retryAfterMs: 5_000 });
    const credential = await credentialFor(this.store, this.settings.upstreamKey, record.name, record.auth, request.caller, request.signal);
    const headers = { ...credential.headers, ...(request.traceparent ? { traceparent: request.traceparent } : {}) };
    const args = (params ?? {}) as Record<string, unknown>;
    if (endpoint.kind === "openapi") return callOperation({ url: endpoint.url, operation: endpoint.operation, args, headers, signal: request.signal, label: request.skill });
    const target = { url: endpoint.url, label: request.skill, headers, sessionKey: credential.sessionKey, signal: request.signal };
    return callTool(target, endpoint.era, endpoint.tool, args, {
      inputSchema: request.inputSchema,
      ...(request.onProgress ? { onProgress: request.onProgress } : {}),
      ...(request.inputRound ? { inputRound: request.inputRound } : {}),
    });
  }

  /**
   * Reads a resource or gets a prompt of one version of an MCP upstream, with the upstream's
   * credential for this caller, within `request.signal` (src/forward's `UpstreamCaller`).
   * @example await upstreams.ask({ upstream: "everything", version: "1.0.0" }, { method: "resources/read", params: { uri }, caller, signal })
   */
  async ask(target: { upstream: string; version: string }, request: UpstreamAsk): Promise<unknown> {
    const { upstream: name, version } = target;
    const record = await this.cached(name);
    const current = record?.versions[version];
    if (!record || !current?.era) throw new RpcError(ErrorCode.SkillUnavailable, `Upstream ${name} is no longer registered`, { retryAfterMs: 5_000 });
    const { caller, signal, params } = request;
    const credential = await credentialFor(this.store, this.settings.upstreamKey, record.name, record.auth, caller, signal);
    const headers = { ...credential.headers, ...(request.traceparent ? { traceparent: request.traceparent } : {}) };
    const mcp: McpTarget = { url: current.url, label: `Upstream ${name}`, headers, sessionKey: credential.sessionKey, signal };
    if (request.method === "resources/read") return readUpstreamResource(mcp, current.era, String(params.uri));
    return getUpstreamPrompt(mcp, current.era, String(params.name), (params.arguments ?? {}) as Record<string, string>);
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

  async #put(record: UpstreamRecord): Promise<void> {
    await this.store.set(UPSTREAM_KEYS.record(record.name), JSON.stringify(record));
    await this.store.zadd(UPSTREAM_KEYS.index, [{ score: record.createdAt, member: record.name }]);
    this.#records.delete(record.name);
  }

  // -------------------------------------------------------------------------------------------
  // The operator's changes
  // -------------------------------------------------------------------------------------------

  /**
   * Registers an upstream version (a new upstream, or another version of one: its tools then
   * register as canaries at 0%): reads its definitions and serves each selected one. Refused
   * (409) when a tool's name is another skill's, unless one of the two is a degraded fallback.
   */
  async register(registration: UpstreamRegistration, now = Date.now()): Promise<SyncReport> {
    const { name, version } = registration;
    const existing = await this.get(name);
    if (existing && existing.kind !== registration.kind) throw new UpstreamError(409, `${name} is registered as an ${existing.kind} upstream; remove it first to register another kind under its name`);
    for (const [what, url] of this.#urlsOf(registration)) {
      const refusal = this.settings.urlRefusal(url, what);
      if (refusal) throw new UpstreamError(400, `Invalid upstream: ${refusal}`);
    }
    const auth = await sealAuth(this.settings.upstreamKey, name, registration.auth);
    const record: UpstreamRecord = {
      name,
      kind: registration.kind,
      tags: registration.tags,
      auth,
      createdAt: existing?.createdAt ?? now,
      versions: { ...(existing?.versions ?? {}) },
      ...(registration.timeoutMs ? { timeoutMs: registration.timeoutMs } : {}),
      ...(registration.degraded ? { degraded: true } : {}),
      ...(registration.breaker ? { breaker: registration.breaker } : {}),
      ...(registration.include ? { include: registration.include } : {}),
      ...(registration.exclude ? { exclude: registration.exclude } : {}),
      ...(registration.kind === "openapi" && registration.operationTags ? { operationTags: registration.operationTags } : {}),
    };
    const documentUrl = registration.kind === "openapi" && typeof registration.document === "string" ? registration.document : undefined;
    const inline = registration.kind === "openapi" && typeof registration.document === "object" ? registration.document : undefined;
    const read = await this.#definitions(record, version, { url: registration.url, documentUrl, inline });
    const collisions = await this.#collisions(name, read.definitions, record.degraded === true);
    if (collisions.length) throw new UpstreamError(409, `Upstream ${name}: ${collisions.length} tool name(s) are taken by other skills; leave them out (exclude) or register under another name`, { collisions });
    const served: string[] = [];
    for (const definition of read.definitions) served.push(await this.#serve(name, version, definition, now));
    const previous = existing?.versions[version];
    // Tools this version served before and no longer does (re-registered with another selection) go.
    const stale = Object.entries(previous?.tools ?? {}).filter(([tool]) => !read.definitions.some((d) => d.tool === tool));
    if (stale.length) await this.registry.deregister(stale.map(([, skill]) => deploymentId(skill, version)), now);
    record.versions[version] = {
      url: read.url,
      ...(documentUrl ? { documentUrl } : {}),
      ...(read.era ? { era: read.era } : {}),
      registeredAt: now,
      tools: Object.fromEntries(read.definitions.map((d) => [d.tool, d.manifest.name])),
      held: [],
      removed: [],
      refresh: { at: now, ok: true },
      ...(read.offerings ? { offerings: read.offerings } : {}),
    };
    await this.#put(record);
    return { upstream: name, version, served, held: [], removed: stale.map(([tool]) => tool), skipped: read.skipped };
  }

  /**
   * Reads every version's definitions again. Unchanged tools stay; a new tool, or one whose
   * definition changed, is held for approval (a breaking change withdraws the tool until then);
   * a tool the upstream no longer lists is withdrawn. A version that cannot be read keeps serving
   * what it served, and its refresh status says why.
   */
  async refresh(name: string, now = Date.now()): Promise<SyncReport[]> {
    const record = await this.get(name);
    if (!record) throw new UpstreamError(404, `No upstream ${name}; GET /admin/upstreams lists them`);
    const reports: SyncReport[] = [];
    for (const [version, current] of Object.entries(record.versions)) {
      let read: DefinitionsRead;
      if (record.kind === "openapi" && !current.documentUrl) {
        // A document sent inline has nowhere to be read again: it changes when it is registered again.
        reports.push({ upstream: name, version, served: Object.values(current.tools).map((skill) => deploymentId(skill, version)), held: [], removed: [], skipped: [] });
        current.refresh = { at: now, ok: true };
        continue;
      }
      try {
        read = await this.#definitions(record, version, { url: current.url, documentUrl: current.documentUrl });
      } catch (error) {
        current.refresh = { at: now, ok: false, error: error instanceof Error ? error.message.slice(0, 300) : "failed" };
        continue;
      }
      reports.push(await this.#reconcile(record, version, current, read.definitions, read.skipped, now));
      current.refresh = { at: now, ok: true };
      if (read.offerings) current.offerings = read.offerings;
    }
    await this.#put(record);
    return reports;
  }

  /** Serves held definitions (all, or the named tools of one version): the operator approved them. */
  async approve(name: string, options: { version?: string; tools?: string[] } = {}, now = Date.now()): Promise<SyncReport[]> {
    const record = await this.get(name);
    if (!record) throw new UpstreamError(404, `No upstream ${name}; GET /admin/upstreams lists them`);
    if (options.version && !record.versions[options.version]) throw new UpstreamError(404, `Upstream ${name} has no version ${options.version}`);
    const reports: SyncReport[] = [];
    for (const [version, current] of Object.entries(record.versions)) {
      if (options.version && version !== options.version) continue;
      const approved = current.held.filter((h) => !options.tools || options.tools.includes(h.tool));
      if (!approved.length) continue;
      const definitions = approved.map((h) => ({ tool: h.tool, manifest: h.manifest, contractHash: h.contractHash, endpoint: h.endpoint }));
      const collisions = await this.#collisions(name, definitions.filter((d) => !current.tools[d.tool]), record.degraded === true);
      if (collisions.length) throw new UpstreamError(409, `Upstream ${name}: tool name(s) taken by other skills`, { collisions });
      const served: string[] = [];
      for (const definition of definitions) {
        served.push(await this.#serve(name, version, definition, now));
        current.tools[definition.tool] = definition.manifest.name;
      }
      current.held = current.held.filter((h) => !approved.includes(h));
      reports.push({ upstream: name, version, served, held: [], removed: [], skipped: [] });
    }
    await this.#put(record);
    return reports;
  }

  /** Removes an upstream (or one of its versions) and every deployment of its tools; false when there was none. */
  async remove(name: string, version?: string, now = Date.now()): Promise<string[] | undefined> {
    const record = await this.get(name);
    if (!record || (version && !record.versions[version])) return undefined;
    const versions = version ? [version] : Object.keys(record.versions);
    const ids = versions.flatMap((v) => Object.values(record.versions[v]!.tools).map((skill) => deploymentId(skill, v)));
    const removed = await this.registry.deregister(ids, now);
    for (const v of versions) {
      forgetSessions(record.versions[v]!.url);
      delete record.versions[v];
    }
    if (Object.keys(record.versions).length) await this.#put(record);
    else {
      await this.store.del(UPSTREAM_KEYS.record(name));
      await this.store.zrem(UPSTREAM_KEYS.index, name);
      this.#records.delete(name);
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
      reports.push(...(await this.refresh(record.name, now).catch((error) => (console.error(`[upstream] refresh of ${record.name} failed:`, error instanceof Error ? error.message : error), []))));
    }
    return reports;
  }

  // -------------------------------------------------------------------------------------------

  #urlsOf(registration: UpstreamRegistration): Array<[string, string]> {
    const urls: Array<[string, string]> = [];
    if (registration.url) urls.push(["an upstream URL", registration.url]);
    if (registration.kind === "openapi" && typeof registration.document === "string") urls.push(["an OpenAPI document URL", registration.document]);
    if (registration.auth.type === "client_credentials") urls.push(["a token URL", registration.auth.tokenUrl]);
    return urls;
  }

  /** Reads one version's definitions, within `DEFINITIONS_TIMEOUT_MS`, as the operator. */
  async #definitions(record: UpstreamRecord, version: string, where: { url?: string; documentUrl?: string; inline?: Record<string, unknown> }): Promise<DefinitionsRead> {
    const signal = AbortSignal.timeout(DEFINITIONS_TIMEOUT_MS);
    const source: ToolSource & { operationTags?: string[] } = {
      upstream: record.name,
      version,
      tags: record.tags,
      ...(record.timeoutMs ? { timeoutMs: record.timeoutMs } : {}),
      ...(record.degraded ? { degraded: true } : {}),
      ...(record.breaker ? { breaker: record.breaker } : {}),
      ...(record.include ? { include: record.include } : {}),
      ...(record.exclude ? { exclude: record.exclude } : {}),
      ...(record.operationTags ? { operationTags: record.operationTags } : {}),
    };
    const credential = await credentialFor(this.store, this.settings.upstreamKey, record.name, record.auth, OPERATOR, signal).catch(() => ({ headers: {}, sessionKey: "" }));
    const definitions: Definition[] = [];
    const skipped: Skipped[] = [];
    if (record.kind === "mcp") {
      const url = where.url!;
      const target = { url, label: `Upstream ${record.name}`, headers: credential.headers, sessionKey: credential.sessionKey, signal };
      let era: McpEra;
      let listed: Awaited<ReturnType<typeof listTools>>;
      try {
        era = await discoverEra(target);
        listed = await listTools(target, era);
      } catch (error) {
        throw new UpstreamError(502, `Could not read ${record.name}'s tools: ${error instanceof Error ? error.message : "failed"}`);
      }
      skipped.push(...listed.invalid);
      const offerings = await listOfferings(target, era).catch(() => undefined);
      for (const tool of listed.tools) {
        if (!selects(source, tool.name)) continue;
        const made = mcpManifestOf(source, tool);
        if ("refused" in made) skipped.push({ tool: tool.name, reason: made.refused });
        else definitions.push({ tool: tool.name, manifest: made.manifest, contractHash: await contractHashOf(made.manifest), endpoint: { upstream: { kind: "mcp", name: record.name, url, tool: tool.name, era } } });
      }
      return { url, era, definitions, skipped, ...(offerings ? { offerings } : {}) };
    }
    const document = where.inline ?? (await this.#readDocument(record.name, where.documentUrl!, credential.headers, signal));
    let parsed: Record<string, unknown>;
    try {
      parsed = parseDocument(document);
    } catch (error) {
      throw new UpstreamError(400, `Upstream ${record.name}: the OpenAPI document cannot be used: ${error instanceof Error ? error.message.slice(0, 300) : "it does not parse"}`);
    }
    const url = where.url ?? serverUrlOf(parsed);
    if (!url) throw new UpstreamError(400, `Upstream ${record.name}: the document names no absolute server URL; send "url", the base URL its operations are called on`);
    const refusal = this.settings.urlRefusal(url, "an upstream URL");
    if (refusal) throw new UpstreamError(400, `Invalid upstream: ${refusal}`);
    const operations = operationsOf(parsed, source);
    skipped.push(...operations.skipped);
    for (const op of operations.skills) {
      definitions.push({ tool: op.tool, manifest: op.manifest, contractHash: await contractHashOf(op.manifest), endpoint: { upstream: { kind: "openapi", name: record.name, url, operation: op.operation } } });
    }
    return { url, era: undefined, definitions, skipped };
  }

  async #readDocument(name: string, url: string, headers: Record<string, string>, signal: AbortSignal): Promise<string> {
    try {
      const response = await fetch(url, { headers: { ...headers, accept: "application/json, application/yaml, text/yaml, */*;q=0.5" }, redirect: "manual", signal });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
      return await boundedText(response, MAX_DOCUMENT_BYTES);
    } catch (error) {
      throw new UpstreamError(502, `Could not read ${name}'s OpenAPI document from ${url} (200, at most ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB, no redirect): ${error instanceof Error ? error.message.slice(0, 200) : "failed"}`);
    }
  }

  /** The tools whose names are held by skills that are not this upstream's (a degraded fallback may share one). */
  async #collisions(name: string, definitions: Definition[], degraded: boolean): Promise<Array<{ tool: string; skill: string; takenBy: string }>> {
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
      { manifest: definition.manifest, endpoint: definition.endpoint, registrationId: `upstream:${name}@${version}:${definition.contractHash}`, contractHash: definition.contractHash, force: true },
      now,
    );
    return outcome.deployment.id;
  }

  /** A refresh of one version: what is held, withdrawn or kept. */
  async #reconcile(record: UpstreamRecord, version: string, current: UpstreamVersion, definitions: Definition[], skipped: Skipped[], now: number): Promise<SyncReport> {
    const report: SyncReport = { upstream: record.name, version, served: [], held: [], removed: [], skipped };
    const ids = Object.values(current.tools).map((skill) => deploymentId(skill, version));
    const skills = await this.registry.readSkills([...new Set(Object.values(current.tools))]);
    const deployed = new Map<string, Deployment>();
    for (const id of ids) {
      const d = skills.get(id.slice(0, id.lastIndexOf("@")))?.deployments[id];
      if (d) deployed.set(id, d);
    }
    const seen = new Set<string>();
    const held: HeldChange[] = [];
    for (const definition of definitions) {
      seen.add(definition.tool);
      const skill = current.tools[definition.tool];
      const served = skill ? deployed.get(deploymentId(skill, version)) : undefined;
      const before = current.held.find((h) => h.tool === definition.tool);
      if (served?.contractHash === definition.contractHash) {
        report.served.push(served.id);
        continue;
      }
      const previous = served?.manifest ?? before?.manifest;
      const kind = skill ? "changed" : "new";
      const breaking = !!served && changesBetween(served.manifest, definition.manifest).breaking.length > 0;
      const change: HeldChange = {
        tool: definition.tool,
        kind,
        manifest: definition.manifest,
        contractHash: definition.contractHash,
        endpoint: definition.endpoint,
        ...(served?.contractHash ? { previousHash: served.contractHash } : {}),
        changes: previous && kind === "changed" ? manifestChanges(served?.manifest ?? previous, definition.manifest) : [],
        breaking,
        withdrawn: breaking || (!!before?.withdrawn && !served),
        seenAt: before?.contractHash === definition.contractHash ? before.seenAt : now,
      };
      if (breaking && served) await this.registry.deregister([served.id], now);
      else if (served) report.served.push(served.id);
      held.push(change);
      report.held.push({ tool: change.tool, kind: change.kind, breaking: change.breaking, withdrawn: change.withdrawn, changes: change.changes });
    }
    const gone = Object.entries(current.tools).filter(([tool]) => !seen.has(tool));
    if (gone.length) {
      await this.registry.deregister(gone.map(([, skill]) => deploymentId(skill, version)), now);
      for (const [tool] of gone) {
        delete current.tools[tool];
        current.removed = [...current.removed.filter((r) => r.tool !== tool), { tool, at: now }].slice(-100);
        report.removed.push(tool);
      }
    }
    current.held = held;
    return report;
  }
}

/** True when a deployment is one of upstream `name`'s tools. */
export function isOf(deployment: Deployment, name: string): boolean {
  return "upstream" in deployment.endpoint && deployment.endpoint.upstream.name === name;
}

/** An upstream as the admin API shows it: no secret, its versions with what they serve and hold. */
export function upstreamView(record: UpstreamRecord): Omit<UpstreamRecord, "auth"> & { auth: ReturnType<typeof describeAuth> } {
  return { ...record, auth: describeAuth(record.auth as StoredAuth) };
}

/**
 * The audit entries of a sync: one per held or removed definition, by whoever ran it (an admin,
 * or `refresh` for the scheduled handler), so a changed tool is never taken in silently.
 * @example recordSync(runtime.audit, reports, "refresh", ctx.waitUntil)
 */
export function recordSync(audit: AuditLog, reports: SyncReport[], by: string, waitUntil: (promise: Promise<unknown>) => void): void {
  const at = Date.now();
  for (const report of reports) {
    const where = `upstream ${report.upstream}@${report.version}`;
    for (const held of report.held) audit.record({ type: "admin", at, by, action: `${where}: held ${held.kind} tool ${held.tool}${held.breaking ? " (breaking)" : ""}${held.withdrawn ? ", withdrawn until approved" : ""}`, status: 202 }, waitUntil);
    for (const tool of report.removed) audit.record({ type: "admin", at, by, action: `${where}: tool ${tool} withdrawn (the upstream no longer lists it)`, status: 200 }, waitUntil);
  }
}
