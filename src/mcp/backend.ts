/**
 * What the MCP server (src/mcp) needs from the gateway: its catalog, its one call chain for calls
 * and jobs, and who calls. routes/mcp.ts builds one per request; the tests build their own.
 */
import type { SkillSummary } from "../gateway/catalog.js";
import type { PackageCatalog } from "../gateway/packages.js";
import type { SkillOfferings } from "../gateway/skill-resources.js";
import type { GetPromptResult, ReadResourceResult } from "../mcp-protocol/index.js";
import type { CallStreaming } from "../gateway/policies.js";
import type { CatalogQuery } from "../gateway/search.js";
import type { CatalogHit } from "../catalog-search/index.js";
import type { JobView } from "../jobs/index.js";
import type { JsonRpcParams, RequestSlot } from "../jsonrpc/index.js";

/** What the MCP server needs from the gateway. */
export interface McpBackend {
  /** Every skill the registry serves now. */
  catalog(): Promise<SkillSummary[]>;
  /**
   * One skill as the catalog lists it (undefined: none, or not for this caller), without needing
   * the whole catalog: a new isolate answers a `tools/call` before its registry has loaded.
   */
  skill(name: string): Promise<SkillSummary | undefined>;
  /** Calls a skill (or a built-in, such as `jobs.get`) through the gateway's call chain; a failure is a thrown `RpcError`. */
  call(name: string, params: JsonRpcParams, slot: RequestSlot, streaming: CallStreaming): Promise<unknown>;
  /** Submits a skill call as an async job (src/jobs): `{status, jobId}`. */
  submit(name: string, params: JsonRpcParams, slot: RequestSlot): Promise<unknown>;
  /** The caller's job as it stands, read from the store (not a call: a waiting `tasks/result` polls it). */
  job(jobId: string): Promise<JobView | undefined>;
  /** Who calls (the caller id of the request): a 2025 `notifications/cancelled` reaches only its own calls. */
  caller: string;
  /** Counts one call against the caller's rate and quota (a long request that is no skill call), or throws -32005. */
  admit(): Promise<void>;
  /** The caller's budget (`X-Timeout-Ms`), if it sent one: how long a waiting `tasks/result` may wait. */
  budgetMs?: number;
  /** The Agent Skills packages this caller may see, each at the version it is served (none when absent). */
  packages?(): Promise<PackageCatalog>;
  /** The resources, resource templates and prompts of the skills this caller may call (src/gateway/skill-resources.ts). */
  offerings?(): Promise<SkillOfferings>;
  /** Reads a skill's resource (not a `skill://` one); undefined when no skill of the caller's declares the URI. */
  readResource?(uri: string): Promise<ReadResourceResult | undefined>;
  /** Gets a skill's prompt by its listed name; undefined when the caller has none of that name. */
  getPrompt?(name: string, args: Record<string, string>): Promise<GetPromptResult | undefined>;
  /** The tools and Agent Skills this caller may use that best match a query (the compact catalog's search). */
  search?(query: CatalogQuery): Promise<CatalogHit[]>;
  /** Reads one file of a package this caller sees (charged and audited as a call; a refusal is a thrown `RpcError`); undefined when there is none. */
  readAgentSkillFile?(name: string, path: string): Promise<{ bytes: Uint8Array; contentType: string } | undefined>;
}
