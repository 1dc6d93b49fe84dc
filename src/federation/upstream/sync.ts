/**
 * The sync of upstreams (docs/architecture.md, "Federation"): registering one reads its
 * definitions through its kind (kinds.ts) and pins each — a tool as a deployment in the registry
 * under `<upstream>.<tool>@<version>`, its manifest and endpoint hashed; an offering in the
 * version's record. A refresh reads them again: a new or changed one is held for an operator's
 * approval by its hash (held.ts; a breaking change of a tool withdraws it meanwhile), a removed one
 * is withdrawn. An approval serves what was held; a removal withdraws every tool of a version.
 */
import type { AuditLog } from "../../registry/audit/index.js";
import { changesBetween } from "../../registry/contracts/index.js";
import { agentCardUrlOf } from "../../protocols/a2a/index.js";
import type { RegistryRepository } from "../../registry/deployments/repository.js";
import { type Deployment, deploymentId } from "../../registry/deployments/model.js";
import { contractHashOf, manifestChanges } from "../../registry/deployments/contract.js";
import type { Store } from "../../store/index.js";
import { type CallCredential, OPERATOR, credentialFor, forgetAccessToken, sealAuth } from "./credentials.js";
import { type Skipped, urlSecretRefusal } from "./definitions.js";
import { OFFERING_SUBJECTS, SUBJECT_WORDS, approvalKeyOf, boundedHeld, definitionHashOf, reconcileOfferings } from "./held.js";
import { type Definition, type DefinitionsRead, type DefinitionsRequest, UpstreamError, type UpstreamSettings } from "./kind.js";
import { KINDS } from "./kinds.js";
import { forgetSessions } from "./mcp-session.js";
import type { HeldChange, HeldDoc, Offerings, StoredAuth, UpstreamRecord, UpstreamRegistration, UpstreamVersion } from "./model.js";
import { type UpstreamRecords, authOf, isOf } from "./records.js";

/** How long reading an upstream's definitions may take. */
const DEFINITIONS_TIMEOUT_MS = 15_000;

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

/** A refresh of one version's definitions against what it serves. */
interface Reconcile {
  record: UpstreamRecord;
  version: string;
  current: UpstreamVersion;
  read: DefinitionsRead;
  /** What was held for the version before this refresh. */
  before: HeldChange[];
  now: number;
}

/**
 * The operator's changes of upstreams, and the scheduled refresh.
 * @example const report = await upstreams.sync.register(registration)
 */
export class UpstreamSync {
  constructor(
    private readonly store: Store,
    private readonly registry: RegistryRepository,
    private readonly settings: UpstreamSettings,
    private readonly records: UpstreamRecords,
  ) {}

  /**
   * Registers an upstream version (a new upstream, or another version of one: its tools then
   * register as canaries at 0%) with its own credential: reads its definitions and serves each
   * selected one, and its resources, templates and prompts. Refused (409) when a tool's name is
   * another skill's, unless one of the two is a degraded fallback.
   */
  async register(registration: UpstreamRegistration, now = Date.now()): Promise<SyncReport> {
    const { name, version } = registration;
    const existing = await this.records.get(name);
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
    const held = await this.records.held(name);
    delete held.versions[version];
    await this.records.put(record, held);
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
    const record = await this.records.get(name);
    if (!record) throw new UpstreamError(404, `No upstream ${name}; GET /admin/upstreams lists them`);
    const heldBefore = await this.records.held(name);
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
      const report = await this.#reconcile({ record, version, current, read, before, now });
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
    await this.records.put(record, held);
    return reports;
  }

  /**
   * Serves held changes the operator reviewed, each named by its approval key (a tool's name,
   * `<subject>:<name>` for an offering) with the `contractHash` the operator saw. All or nothing:
   * a key not held (404), or held now with another hash (409: it changed since it was reviewed),
   * refuses the whole approval and changes nothing.
   */
  async approve(name: string, approval: Approval, now = Date.now()): Promise<SyncReport[]> {
    const record = await this.records.get(name);
    if (!record) throw new UpstreamError(404, `No upstream ${name}; GET /admin/upstreams lists them`);
    if (approval.version && !record.versions[approval.version]) throw new UpstreamError(404, `Upstream ${name} has no version ${approval.version}`);
    const wanted = new Map(Object.entries({ ...approval.tools, ...approval.offerings }));
    const held = await this.records.held(name);
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
    await this.records.put(record, held);
    return reports;
  }

  /** Removes an upstream (or one of its versions) and every deployment of its tools; undefined when there was none. */
  async remove(name: string, version?: string, now = Date.now()): Promise<string[] | undefined> {
    const record = await this.records.get(name);
    if (!record || (version && !record.versions[version])) return undefined;
    const versions = version ? [version] : Object.keys(record.versions);
    const ids = versions.flatMap((v) => Object.values(record.versions[v]!.tools).map((skill) => deploymentId(skill, v)));
    const removed = await this.registry.deregister(ids, now);
    const held = await this.records.held(name);
    for (const v of versions) {
      forgetSessions(record.versions[v]!.url);
      delete record.versions[v];
      delete held.versions[v];
    }
    if (Object.keys(record.versions).length) await this.records.put(record, held);
    else {
      await this.records.drop(name);
    }
    forgetAccessToken(name);
    return removed;
  }

  /** The upstreams whose last refresh is older than `everyMs`, refreshed (the scheduled handler). */
  async refreshDue(everyMs: number, now = Date.now()): Promise<SyncReport[]> {
    const reports: SyncReport[] = [];
    for (const record of await this.records.list()) {
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
  async #definitions(record: UpstreamRecord, version: string, auth: StoredAuth, where: DefinitionsRequest["where"]): Promise<DefinitionsRead> {
    const signal = AbortSignal.timeout(DEFINITIONS_TIMEOUT_MS);
    const source = { upstream: record.name, version, tags: record.tags, ...options(record) };
    const credential = await credentialFor(this.store, { secret: this.settings.upstreamKey, upstream: record.name, auth, caller: OPERATOR, signal }).catch(
      (): CallCredential => ({ headers: {}, sessionKey: "" }),
    );
    return KINDS[record.kind].definitions({ record, version, source, credential, where, signal, urlRefusal: this.settings.urlRefusal });
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
  async #reconcile({ record, version, current, read, before, now }: Reconcile): Promise<SyncReport & { changes: HeldChange[] }> {
    const { definitions, skipped } = read;
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
