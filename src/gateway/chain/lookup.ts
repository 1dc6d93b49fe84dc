/**
 * Reads of the registry for a request: the whole view, or one skill's entry, each inside a
 * `skillmesh.registry.lookup` span; a store that fails them is a -32001 with `retryAfterMs`.
 */
import { type Access, mayCall } from "../../identity/auth/access.js";
import { ErrorCode, RpcError, errorText } from "../../protocols/jsonrpc/index.js";
import type { RegistryView, ToolEntry } from "../../registry/deployments/snapshot.js";
import type { SkillManifest } from "../../skill/manifest.js";
import { RETRY_AFTER_STORE_MS } from "../../store/index.js";
import { type Context, inSpan, trace } from "../../protocols/tracing/index.js";
import type { GatewayRuntime } from "./runtime.js";

const tracer = trace.getTracer("skillmesh-gateway");

/**
 * The registry as this isolate sees it (a snapshot, revalidated at most once a second), inside
 * a `skillmesh.registry.lookup` span.
 * @example const view = await registryView(runtime, scope.trace)
 */
export function registryView(runtime: GatewayRuntime, parent: Context): Promise<RegistryView> {
  return registryLookup(parent, () => runtime.snapshot.current());
}

/**
 * One skill's routing entry (undefined: no such skill), inside a `skillmesh.registry.lookup`
 * span; on a new isolate it is read on its own while the whole view loads (`keepLoading`).
 * @example const entry = await registryEntry(runtime, "text.summarize", scope.trace, scope.waitUntil)
 */
export function registryEntry(
  runtime: GatewayRuntime,
  name: string,
  parent: Context,
  keepLoading: (loading: Promise<unknown>) => void,
): Promise<ToolEntry | undefined> {
  return registryLookup(parent, () => runtime.snapshot.entry(name, keepLoading));
}

/**
 * The tool `name` as a caller may call it: its entry, when it exists and `mayCall` allows it;
 * `hidden` when it exists outside the caller's access (what the audit entry says; the caller is
 * told only "not found", as for a tool that does not exist).
 * @example const { entry, hidden } = await callableEntry(runtime, scope, "text.summarize")
 */
export async function callableEntry(
  runtime: GatewayRuntime,
  scope: { access: Access; trace: Context; waitUntil: (loading: Promise<unknown>) => void },
  name: string,
  trace: Context = scope.trace,
): Promise<{ entry?: ToolEntry; hidden: boolean }> {
  const entry = await registryEntry(runtime, name, trace, scope.waitUntil);
  if (!entry) return { hidden: false };
  return mayCall(scope.access, entry) ? { entry, hidden: false } : { hidden: true };
}

/** A read of the registry in its span; a store that fails it is a -32001 with `retryAfterMs`. */
async function registryLookup<T>(parent: Context, read: () => Promise<T>): Promise<T> {
  try {
    return await inSpan(tracer, "skillmesh.registry.lookup", parent, {}, read);
  } catch (error) {
    console.error("[gateway] registry unavailable:", errorText(error));
    throw new RpcError(ErrorCode.SkillUnavailable, `The skill registry is unavailable; retry after ${RETRY_AFTER_STORE_MS / 1000} s`, {
      retryAfterMs: RETRY_AFTER_STORE_MS,
    });
  }
}

/**
 * The manifest that speaks for a skill (its stable version's, else its first, else its degraded
 * one's): timeouts, TTLs, idempotency, guardrails.
 * @example manifestOf(entry).timeoutMs // 10000
 */
export function manifestOf(entry: ToolEntry): SkillManifest {
  return (entry.versions.find((d) => d.role === "stable") ?? entry.versions[0] ?? entry.degraded)!.manifest;
}
