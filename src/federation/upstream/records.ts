/**
 * The upstreams' records in the store: one per upstream (`sm:upstream:<name>`, credentials sealed,
 * per version), its held changes apart (`sm:upstream:<name>:held`, read by the operator's views and
 * changes only), and an index of names. The caller's path reads them through a few seconds' cache
 * per isolate (`cached`, `names`); the sync writes them (`put`, `drop`).
 */
import { z } from "zod";
import { safeJson } from "../../lib/json/index.js";
import type { Deployment } from "../../registry/deployments/model.js";
import type { Store } from "../../store/index.js";
import { describeAuth } from "./credentials.js";
import { redactedUrl } from "./definitions.js";
import { type HeldDoc, HeldDocSchema, type StoredAuth, type UpstreamRecord, UpstreamRecordSchema, type UpstreamView } from "./model.js";

/** Where an upstream's records are kept. */
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

/** How long an isolate uses an upstream's record before reading it again. */
const RECORD_TTL_MS = 5_000;

/**
 * The upstreams' records, read and written.
 * @example const record = await records.cached("everything")
 */
export class UpstreamRecords {
  readonly #records = new Map<string, { record: Promise<UpstreamRecord | undefined>; until: number }>();
  #names: { names: Promise<string[]>; until: number } | undefined;

  constructor(private readonly store: Store) {}

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

  /** An upstream's record, read now. */
  async get(name: string): Promise<UpstreamRecord | undefined> {
    const parsed = UpstreamRecordSchema.safeParse(safeJson((await this.store.get(UPSTREAM_KEYS.record(name))) ?? ""));
    return parsed.success ? parsed.data : undefined;
  }

  /** Every upstream's record, read now. */
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

  /** Writes an upstream's record (and its held changes), and forgets this isolate's copy. */
  async put(record: UpstreamRecord, held?: HeldDoc): Promise<void> {
    await this.store.set(UPSTREAM_KEYS.record(record.name), JSON.stringify(record));
    if (held) await this.store.set(UPSTREAM_KEYS.held(record.name), JSON.stringify(held));
    await this.store.zadd(UPSTREAM_KEYS.index, [{ score: record.createdAt, member: record.name }]);
    this.#records.delete(record.name);
    this.#names = undefined;
  }

  /** Removes an upstream's record and its held changes. */
  async drop(name: string): Promise<void> {
    await this.store.del(UPSTREAM_KEYS.record(name));
    await this.store.del(UPSTREAM_KEYS.held(name));
    await this.store.zrem(UPSTREAM_KEYS.index, name);
    this.#records.delete(name);
    this.#names = undefined;
  }
}

/** An upstream version's credential: its own, else (a record of before) the upstream's. */
export function authOf(record: UpstreamRecord, version: string | undefined): StoredAuth {
  return (
    (version !== undefined ? record.versions[version]?.auth : undefined) ??
    record.auth ??
    Object.values(record.versions).find((v) => v.auth)?.auth ?? { type: "none" }
  );
}

/** True when a deployment is one of upstream `name`'s tools. */
export function isOf(deployment: Deployment, name: string): boolean {
  return "upstream" in deployment.endpoint && deployment.endpoint.upstream.name === name;
}

/**
 * An upstream as the admin API shows it: no secret (each version's credential described, its URLs
 * with query values and long opaque path segments redacted), its held changes beside each version.
 * @example upstreamView(record, await upstreams.records.held(record.name))
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
