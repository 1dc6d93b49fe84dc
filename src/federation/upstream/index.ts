/**
 * Upstreams behind the gateway (docs/architecture.md, "Federation"): MCP servers, OpenAPI services
 * and A2A agents whose tools are deployments of the registry. Split by job — the records in the
 * store (records.ts), the caller's path (calls.ts), the operator's sync (sync.ts), whose A2A
 * conversations are whose (conversations.ts) — and by kind (kind.ts, kinds.ts: one implementation
 * per kind, `mcp-kind.ts`, `openapi-kind.ts`, `a2a-kind.ts`, over its client).
 */
import type { RegistryRepository } from "../../registry/deployments/repository.js";
import type { Store } from "../../store/index.js";
import { UpstreamCalls } from "./calls.js";
import { AgentConversations } from "./conversations.js";
import type { UpstreamSettings } from "./kind.js";
import { UpstreamRecords } from "./records.js";
import { UpstreamSync } from "./sync.js";

/**
 * The gateway's upstreams: their records, the callers' calls, and the operator's sync.
 * @example const report = await runtime.upstreams.sync.register(registration)
 */
export class Upstreams {
  readonly records: UpstreamRecords;
  readonly conversations: AgentConversations;
  readonly calls: UpstreamCalls;
  readonly sync: UpstreamSync;

  constructor(store: Store, registry: RegistryRepository, settings: UpstreamSettings) {
    this.records = new UpstreamRecords(store);
    this.conversations = new AgentConversations(store);
    this.calls = new UpstreamCalls(store, settings, this.records, this.conversations);
    this.sync = new UpstreamSync(store, registry, settings, this.records);
  }
}
