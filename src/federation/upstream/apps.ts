/**
 * An MCP upstream's Apps (the Apps extension): the `ui://` resources its tools show, pinned at each
 * sync like a federated Agent Skill's files. An app is code a host runs beside the user, and its
 * contents' `_meta.ui` says where it may connect (`csp`) and what it may use (`permissions`,
 * `domain`): so both are pinned — the `sha256:` of the contents' bytes and the `_meta.ui` as read —
 * a refresh that reads others holds the app for an operator's approval (src/federation/upstream/held.ts), and
 * until then a read is served only when it still has what was pinned (`appPinRefusal`).
 */
import { canonicalJson } from "../../lib/json/index.js";
import { sha256Hex } from "../../lib/hash/index.js";
import { type ReadResourceResult, isInputRequired } from "../../protocols/mcp/index.js";
import { readUpstreamResource } from "./mcp-client.js";
import type { McpTarget, ReadBudget } from "./mcp-session.js";
import type { McpEra, UpstreamApp } from "./model.js";
import { contentBytesOf } from "./packages.js";

/** What the apps of an upstream's tools read: those pinned, and those left out with why. */
export interface AppsRead {
  apps: UpstreamApp[];
  skipped: Array<{ tool: string; reason: string }>;
}

/**
 * Reads each app (by its URI upstream) and pins it: its contents' digest, size, media type and
 * `_meta.ui`. An app that cannot be read as one item of its URI is left out (not served), and the
 * report says why. The reads share `budget`.
 * @example const { apps } = await readUpstreamApps(target, era, ["ui://widget/map.html"], { bytes: LIST_BUDGET_BYTES })
 */
export async function readUpstreamApps(target: McpTarget, era: McpEra, uris: readonly string[], budget: ReadBudget): Promise<AppsRead> {
  const apps: UpstreamApp[] = [];
  const skipped: AppsRead["skipped"] = [];
  for (const uri of uris) {
    const read = await readUpstreamResource(target, era, uri, undefined, budget);
    const pinned = isInputRequired(read) ? undefined : await pinnedAppOf(read, uri);
    if (pinned) apps.push(pinned);
    else skipped.push({ tool: `app ${uri.slice(0, 200)}`, reason: "was not answered as one item of its URI, so it cannot be pinned" });
  }
  return { apps, skipped };
}

/** An app's read as pinned; undefined when it is not one item of `uri`. */
async function pinnedAppOf(read: ReadResourceResult, uri: string): Promise<UpstreamApp | undefined> {
  const bytes = contentBytesOf(read, uri);
  if (!bytes) return undefined;
  const [contents] = read.contents;
  const ui = contents!._meta?.ui;
  return {
    uri,
    digest: `sha256:${await sha256Hex(bytes)}`,
    bytes: bytes.length,
    ...(contents!.mimeType ? { mimeType: contents!.mimeType } : {}),
    ...(ui !== undefined ? { ui } : {}),
  };
}

/**
 * Why a read of an app is not what was pinned for it (its bytes or its `_meta.ui`, CSP and
 * permissions among them); undefined when it is.
 * @example await appPinRefusal(read, "ui://widget/map.html", pinned) // "has digest sha256:…, not the pinned sha256:…"
 */
export async function appPinRefusal(read: ReadResourceResult, uri: string, pinned: Pick<UpstreamApp, "digest" | "ui">): Promise<string | undefined> {
  const now = await pinnedAppOf(read, uri);
  if (!now) return "was not answered as one item of its URI";
  if (now.digest !== pinned.digest) return `has digest ${now.digest}, not the pinned ${pinned.digest}`;
  if (canonicalJson(now.ui ?? null) !== canonicalJson(pinned.ui ?? null)) return "has another _meta.ui (CSP, permissions or domain) than the pinned one";
  return undefined;
}
