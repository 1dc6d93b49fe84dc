/**
 * An upstream's tools as skills: the manifest each MCP tool (or OpenAPI operation, see
 * src/federation/upstream/openapi.ts) is registered with, under a stable name `<upstream>.<tool>`, and what
 * of the upstream's definitions an operator selected. The manifest is the contract: its hash is
 * what the gateway pins, and a later definition with another hash is held for approval.
 */
import { type AgentSkill, SKILL_INPUT_SCHEMA } from "../../protocols/a2a/index.js";
import { globMatcher } from "../../lib/glob/index.js";
import { MAX_JSON_DEPTH, exceedsDepth } from "../../lib/json/index.js";
import { type ListedTool, type ToolUi, toolUiOf } from "../../protocols/mcp/index.js";
import { DEFAULT_TIMEOUT_MS, MAX_MANIFEST_BYTES, SkillNameSchema, type SkillManifest, TagSchema, UPSTREAM_TAG_PREFIX } from "../../skill/manifest.js";
import { UPSTREAM_GUARDRAILS } from "../../policies/guardrails/schema.js";
import { utf8Length } from "../../lib/utf8/index.js";

/** What the operator said of every tool of one upstream version. */
export interface ToolSource {
  upstream: string;
  version: string;
  tags: string[];
  timeoutMs?: number;
  degraded?: boolean;
  breaker?: SkillManifest["breaker"];
  guardrails?: SkillManifest["guardrails"];
  include?: string[];
  exclude?: string[];
}

/** A tool the gateway will not serve, and why (shown to the operator). */
export interface Skipped {
  tool: string;
  reason: string;
}

/** The tag every tool of an upstream carries: `upstream:<name>` (grants and virtual servers can select by it). */
export function upstreamTag(upstream: string): string {
  return `${UPSTREAM_TAG_PREFIX}${upstream}`;
}

/**
 * The skill name of an upstream's tool, or why it cannot have one.
 * @example skillNameOf("everything", "get-sum") // { name: "everything.get-sum" }
 */
export function skillNameOf(upstream: string, tool: string): { name: string } | { refused: string } {
  const name = `${upstream}.${tool}`;
  const checked = SkillNameSchema.safeParse(name);
  return checked.success ? { name } : { refused: `${name} is not a valid skill name (${checked.error.issues[0]?.message})` };
}

/**
 * True when the operator's selection keeps a tool: it matches an `include` glob (or there are
 * none) and no `exclude` glob.
 * @example selects({ include: ["get-*"] }, "get-sum") // true
 */
export function selects(source: Pick<ToolSource, "include" | "exclude">, tool: string): boolean {
  const included = !source.include?.length || source.include.some((glob) => globMatcher(glob)(tool));
  return included && !(source.exclude ?? []).some((glob) => globMatcher(glob)(tool));
}

/**
 * The manifest an MCP tool is served with: its description, schemas, title and annotations as
 * the upstream lists them; `idempotent` when it says it is idempotent or read-only (so the
 * gateway retries it and replays keyed calls); the operator's tags and `upstream:<name>`.
 * @example const made = mcpManifestOf(source, { name: "echo", description: "Echoes", inputSchema: { type: "object" } })
 */
export function mcpManifestOf(source: ToolSource, tool: ListedTool): { manifest: SkillManifest } | { refused: string } {
  const named = skillNameOf(source.upstream, tool.name);
  if ("refused" in named) return named;
  const annotations = tool.annotations;
  const manifest: SkillManifest = {
    name: named.name,
    version: source.version,
    description: tool.description ?? tool.title ?? `${tool.name} (from the ${source.upstream} MCP server)`,
    idempotent: annotations?.idempotentHint === true || annotations?.readOnlyHint === true,
    ...operatorFieldsOf(source),
    ...(tool.title ? { title: tool.title } : {}),
    ...(annotations && Object.keys(annotations).length ? { annotations } : {}),
    ...uiOf(source.upstream, tool),
    answers: "tool-result",
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? {},
  };
  const bound = boundsRefusal(manifest);
  return bound ? { refused: bound } : { manifest };
}

/**
 * The manifest an A2A agent's skill is served with: its name as the title, its description, the
 * input every skill takes (a text message, and the conversation or task it continues), the
 * operator's tags and `upstream:<name>` (never the card's tags: an agent does not pick the grants
 * that reach it). Not idempotent: a message may start work.
 * @example const made = a2aManifestOf(source, { id: "summarize", name: "Summarize", description: "Summarizes a text." })
 */
export function a2aManifestOf(source: ToolSource, skill: AgentSkill): { manifest: SkillManifest } | { refused: string } {
  const named = skillNameOf(source.upstream, skill.id);
  if ("refused" in named) return named;
  const manifest: SkillManifest = {
    name: named.name,
    version: source.version,
    description: skill.description || skill.name,
    idempotent: false,
    ...operatorFieldsOf(source),
    title: skill.name,
    answers: "tool-result",
    inputSchema: structuredClone(SKILL_INPUT_SCHEMA) as unknown as SkillManifest["inputSchema"],
    outputSchema: {},
  };
  const bound = boundsRefusal(manifest);
  return bound ? { refused: bound } : { manifest };
}

/** What every tool of an upstream takes from the operator's registration: its tags, fallback role, timeout, breaker and guardrails. */
export function operatorFieldsOf(source: ToolSource) {
  return {
    tags: tagsOf(source),
    degraded: source.degraded === true,
    timeoutMs: source.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(source.breaker ? { breaker: source.breaker } : {}),
    guardrails: source.guardrails ?? UPSTREAM_GUARDRAILS,
  };
}

/** A tool's MCP App, its resource named as the gateway serves it (`appUriOf`). */
function uiOf(upstream: string, tool: ListedTool): { ui?: ToolUi } {
  const ui = toolUiOf(tool._meta);
  if (!ui) return {};
  return { ui: { ...ui, ...(ui.resourceUri ? { resourceUri: appUriOf(upstream, ui.resourceUri) } : {}) } };
}

/**
 * The URI the gateway serves an upstream's MCP App resource under: unique to the upstream (two
 * servers may both have `ui://map/view.html`), read from the upstream by its own URI.
 * @example appUriOf("maps", "ui://cesium-map/mcp-app.html") // "ui://maps/cesium-map/mcp-app.html"
 */
export function appUriOf(upstream: string, uri: string): string {
  return `ui://${upstream}/${uri.slice("ui://".length)}`;
}

/** The upstream's own tag first (grants and virtual servers select by it), then the operator's, deduplicated, within the manifest's bounds. */
export function tagsOf(source: ToolSource): string[] {
  return [...new Set([upstreamTag(source.upstream), ...source.tags])].filter((tag) => TagSchema.safeParse(tag).success).slice(0, 32);
}

/** Query parameters that carry a credential (a hosted server's `?api_key=…`). */
const CREDENTIAL_PARAM =
  /^(api[-_.]?key|key|apikey|x[-_]api[-_]key|token|access[-_]?token|auth|authorization|secret|client[-_]?secret|password|passwd|pwd|sig|signature|session|code)$/i;

/**
 * Why an upstream URL may not be registered as it is: a query parameter carries a credential,
 * which would be stored in clear and shown to every admin; undefined when none does.
 * @example urlSecretRefusal("https://mcp.example/mcp?api_key=abc", "an upstream URL") // "an upstream URL carries a secret in its query (api_key): …"
 */
export function urlSecretRefusal(url: string, what: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // the URL policy says what is wrong with it
  }
  const secret = [...parsed.searchParams.keys()].find((name) => CREDENTIAL_PARAM.test(name));
  if (!secret) return undefined;
  return `${what} carries a secret in its query (${secret.slice(0, 64)}): send it as the upstream's credential instead, {"type": "query", "name": "${secret.slice(0, 64)}", "value": "…"}, which is sealed and never shown`;
}

/**
 * A URL as an admin view shows it: query values, and path segments that could be a token —
 * 16 or more characters of a token's alphabet that are not lower-case words joined by `-` or `_`
 * (a mixed-case or letters-only token included) — replaced by `…`.
 * @example redactedUrl("https://mcp.example/s/5f0c2e9a7b1d4c3e8a6f0b2d9c7e1a4f/mcp?team=ops") // "https://mcp.example/s/…/mcp?team=…"
 * @example redactedUrl("https://mcp.example/customer-management/mcp") // as it is
 */
export function redactedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "(not a URL)";
  }
  const path = parsed.pathname
    .split("/")
    .map((segment) => (segment.length >= 16 && /^[A-Za-z0-9_~.%+=-]+$/.test(segment) && !/^[a-z]{1,15}(?:[-_.][a-z0-9]{1,15})*$/.test(segment) ? "…" : segment))
    .join("/");
  const query = [...parsed.searchParams.keys()].map((name) => `${encodeURIComponent(name)}=…`).join("&");
  if (!query && path === parsed.pathname && !parsed.username && !parsed.password) return url; // nothing to hide: as registered
  return `${parsed.origin}${path}${query ? `?${query}` : ""}`;
}

/**
 * A JSON value with every string that is an http(s) URL redacted (`redactedUrl`): what the admin
 * API answers a read-only admin, whichever route it is (routes/admin/index.ts).
 * @example redactedUrls({ endpoint: { url: "https://skill.example/a?key=1" } }) // { endpoint: { url: "https://skill.example/a?key=…" } }
 */
export function redactedUrls(value: unknown): unknown {
  if (typeof value === "string") return /^https?:\/\//i.test(value) ? redactedUrl(value) : value;
  if (Array.isArray(value)) return value.map(redactedUrls);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactedUrls(item)]));
  return value;
}

/** Why a manifest is past what the gateway registers (schema depth, size), or undefined. */
export function boundsRefusal(manifest: SkillManifest): string | undefined {
  if (exceedsDepth(manifest.inputSchema, MAX_JSON_DEPTH) || exceedsDepth(manifest.outputSchema, MAX_JSON_DEPTH))
    return `its schemas nest deeper than ${MAX_JSON_DEPTH} levels`;
  const bytes = utf8Length(JSON.stringify(manifest));
  return bytes > MAX_MANIFEST_BYTES ? `its definition is ${bytes} bytes; at most ${MAX_MANIFEST_BYTES} are registered` : undefined;
}
