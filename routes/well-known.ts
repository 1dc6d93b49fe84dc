/**
 * `/.well-known/oauth-protected-resource` (and `…/mcp`, the path-suffixed form of RFC 9728 §3.1):
 * the gateway's Protected Resource Metadata, so an MCP client that gets a 401 finds the
 * authorization server to ask for a token. 404 when OAuth is not configured.
 *
 * `/.well-known/agent-skills/index.json` and the files it points to: the Agent Skills packages the
 * caller sees (src/gateway/chain/packages.ts), as Cloudflare's discovery draft (v0.2.0) lists them —
 * a `skill-md` entry (a package of one file) or an `archive` one (its `.tar.gz`), each with the
 * digest of what it points to — behind the same credentials as /rpc
 * and /mcp, with ETags (a file's is its digest).
 */
import { type Context, Hono } from "hono";
import { protectedResourceMetadata } from "../src/identity/auth/oauth.js";
import { type GatewayEnv, gatewayRuntime } from "../src/gateway/chain/runtime.js";
import { ErrorCode, failure } from "../src/protocols/jsonrpc/index.js";
import { SKILL_FILE, pathOfSegments, skillUriOf } from "../src/registry/packages/index.js";
import { type Caller, requireCaller } from "../src/identity/auth/index.js";
import { Kept } from "../src/lib/kept/index.js";
import type { PackageCatalog } from "../src/gateway/chain/packages.js";
import { enter } from "./enter.js";
import type { Operation } from "../src/gateway/chain/operation.js";
import type { ServedFile } from "../src/gateway/chain/answers.js";
import { performed } from "./performed.js";
import { ARCHIVE_SUFFIX } from "../src/registry/packages/archive.js";
import { type CallScope, answerHeadersOf } from "../src/gateway/chain/scope.js";
import { sha256Hex } from "../src/lib/hash/index.js";

type WellKnownEnv = { Bindings: GatewayEnv; Variables: { caller: Caller } };
export const wellKnownRoutes = new Hono<WellKnownEnv>();

wellKnownRoutes.get("/oauth-protected-resource/*", (c) => metadata(c.env));
wellKnownRoutes.get("/oauth-protected-resource", (c) => metadata(c.env));

function metadata(env: GatewayEnv): Response {
  const config = gatewayRuntime(env).config.auth.oauth;
  if (!config) return Response.json(failure(null, ErrorCode.MethodNotFound, "OAuth is not configured on this gateway"), { status: 404 });
  return Response.json(protectedResourceMetadata(config), { headers: { "cache-control": "public, max-age=300" } });
}

/** The discovery draft's index schema this gateway writes. */
export const AGENT_SKILLS_INDEX_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
const AGENT_SKILLS_PATH = "/.well-known/agent-skills";
/** How a read through these routes is named in the audit log and traces. */
const ASKED_AS = `GET ${AGENT_SKILLS_PATH}`;
const WELL_KNOWN_DOOR = { kind: "well-known" } as const;
const caller = requireCaller((env: GatewayEnv) => gatewayRuntime(env));

/**
 * How an answer may be cached: per credential when credentials are required, and by the headers
 * that route a caller to a package's version (a canary of a SKILL.md splits callers by them).
 */
const cachingOf = (env: GatewayEnv) => ({
  "cache-control": gatewayRuntime(env).config.auth.required ? "private, max-age=60" : "public, max-age=60",
  vary: "X-User-Group, X-User-Id",
});

/** The scope of a request through this door, or the 403 that refuses its credential here. */
const scopeOf = (c: Context<WellKnownEnv>): CallScope | Response => enter(c, WELL_KNOWN_DOOR);

/** Index bodies and their ETags, kept per `PackageCatalog.key()` (the same packages at the same versions). */
const indexes = new Kept<string, Promise<{ body: string; etag: string }>>(32);

/** The discovery draft's index of the packages a caller sees: one file, its SKILL.md; more, the archive of them all. */
async function indexOf(packages: PackageCatalog): Promise<{ body: string; etag: string }> {
  const skills = packages.all().map(({ name, description, entry, record, version }) => {
    const archive = record.versions[version]?.archive;
    return archive ?
        { name, type: "archive", description, url: `${AGENT_SKILLS_PATH}/${encodeURIComponent(name)}${ARCHIVE_SUFFIX}`, digest: archive.digest }
      : {
          name,
          type: "skill-md",
          description,
          url: `${AGENT_SKILLS_PATH}/${encodeURIComponent(name)}/${SKILL_FILE}`,
          digest: entry.resources.find((r) => r.uri === entry.uri)!.digest,
        };
  });
  const body = JSON.stringify({ $schema: AGENT_SKILLS_INDEX_SCHEMA, skills });
  return { body, etag: `"${(await sha256Hex(body)).slice(0, 32)}"` };
}

/** The index: a listing of every package the caller sees, charged and audited as a read; built once per package revision, grants and routed versions. */
wellKnownRoutes.get("/agent-skills/index.json", caller, async (c) => {
  const scope = scopeOf(c);
  if (scope instanceof Response) return scope;
  const packages = await performed<PackageCatalog>(c, scope, { kind: "index", method: `${ASKED_AS}/index.json` });
  if (packages instanceof Response) return packages;
  const { body, etag } = await indexes.get(packages.key(), () => indexOf(packages));
  const headers = { ...answerHeadersOf(scope), "content-type": "application/json", ...cachingOf(c.env), etag };
  if (c.req.header("if-none-match") === etag) return new Response(null, { status: 304, headers });
  return new Response(body, { headers });
});

/** A package's archive (`<name>.tar.gz`), for a package of more than one file. */
wellKnownRoutes.get("/agent-skills/:archive{[^/]+\\.tar\\.gz}", caller, (c) => {
  const name = c.req.param("archive").slice(0, -ARCHIVE_SUFFIX.length);
  return served(c, `${name}${ARCHIVE_SUFFIX}`, { kind: "archive", method: ASKED_AS, package: name });
});

/** A file of a package the caller sees, at its path in the package (SKILL.md's relative links resolve here). */
wellKnownRoutes.get("/agent-skills/:name/*", caller, (c) => {
  const name = c.req.param("name");
  // The path after the name, each segment decoded as a skill:// URI's are (src/registry/packages).
  const path = pathOfSegments(new URL(c.req.url).pathname.split("/").slice(4)) ?? "";
  // A path that is no package file's is read anyway, and not found: charged and audited as any miss.
  return served(c, `${name}/${path}`, { kind: "resource", method: ASKED_AS, uri: path ? skillUriOf(name, path) : `skill://${encodeURIComponent(name)}/` });
});

/**
 * Serves what `operation` reads through the call chain (resolved for this caller, charged,
 * audited), with its digest as its ETag; a used-up rate is HTTP 429, a file the caller cannot
 * read (or that does not exist) 404.
 */
async function served(c: Context<WellKnownEnv>, what: string, operation: Operation) {
  const scope = scopeOf(c);
  if (scope instanceof Response) return scope;
  const file = await performed<ServedFile>(
    c,
    scope,
    operation,
    `No ${what.slice(0, 200)} in the Agent Skills you may read; ${AGENT_SKILLS_PATH}/index.json lists them`,
  );
  if (file instanceof Response) return file;
  // A package's file never runs as a page or a script of the gateway's origin: served as data (text
  // for scripts and markup), not sniffed, and sandboxed should a browser open it anyway.
  const headers = {
    ...answerHeadersOf(scope),
    "content-type": file.contentType,
    ...cachingOf(c.env),
    etag: `"${file.digest}"`,
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox; default-src 'none'",
  };
  if (c.req.header("if-none-match") === `"${file.digest}"`) return new Response(null, { status: 304, headers });
  return new Response(file.bytes, { headers });
}
