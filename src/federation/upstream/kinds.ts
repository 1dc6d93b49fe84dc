/**
 * Every upstream kind by its name: what a record's or an endpoint's `kind` means.
 * @example await kindOf(endpoint).call(call)
 */
import type { UpstreamEndpoint } from "../../registry/deployments/model.js";
import { a2aKind } from "./a2a-kind.js";
import type { UpstreamKind } from "./kind.js";
import { mcpKind } from "./mcp-kind.js";
import { openapiKind } from "./openapi-kind.js";

/** Each kind's implementation, typed by its endpoint. */
export const KINDS: { [K in UpstreamEndpoint["kind"]]: UpstreamKind<Extract<UpstreamEndpoint, { kind: K }>> } = {
  mcp: mcpKind,
  openapi: openapiKind,
  a2a: a2aKind,
};

/** The implementation of a kind, for any of its endpoints (one lookup: TypeScript cannot tie a union's member to its entry). */
export const kindOf = (kind: UpstreamEndpoint["kind"]): UpstreamKind => KINDS[kind] as UpstreamKind;
