/**
 * Resources and prompts over MCP — skills' own (declared in `defineSkill`, read from their Workers
 * through `McpBackend.readResource`/`getPrompt`) and Agent Skills packages' — and the Skills extension (SEP-2640, `io.modelcontextprotocol/skills`) —
 * `skills/list` and `skills/get` with each file's `sha256:` digest — and the resources it rides on:
 * every file of a package is a `skill://<name>/<path>` resource, read with `resources/read`;
 * `resources/list` lists each package's `SKILL.md`. Both eras; in 2026-07-28 every list and read
 * carries the caching fields (`CacheableResult`). What a caller sees is what `McpBackend.packages` gives it (its grants applied there).
 */
import { z } from "zod";
import { SKILL_FILE, SKILL_URI_SCHEME, parseSkillUri } from "../agent-skills/index.js";
import { GetPromptParamsSchema, ReadResourceParamsSchema, resourceContentsOf } from "../mcp-protocol/index.js";
import type { PackageCatalog } from "../gateway/packages.js";
import { ErrorCode, RpcError, parseParams } from "../jsonrpc/index.js";
import { UTF8_DECODER } from "../utf8/index.js";
import type { McpBackend } from "./backend.js";

/** The Skills extension's name in capabilities' `extensions`. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";
/** The methods answered here. */
export const AGENT_SKILL_METHODS = ["skills/list", "skills/get", "resources/list", "resources/templates/list", "resources/read", "prompts/list", "prompts/get"] as const;

const CursorParamsSchema = z.object({ cursor: z.string().optional() }).loose();

/** How the list answers are cached (2026-07-28) and paged. */
export interface ListOptions {
  pageSize: number;
  /** Set for 2026-07-28: `ttlMs` and `cacheScope` on every list. */
  caching?: { ttlMs: number; cacheScope: "public" | "private" };
}

/** A package file's bytes as a resource's contents: text for text, base64 `blob` otherwise. */
function fileContentsOf(uri: string, bytes: Uint8Array, contentType: string) {
  const mimeType = contentType.split(";")[0]!.trim();
  return resourceContentsOf(uri, mimeType, /^text\/|^application\/(json|yaml)/.test(mimeType) ? UTF8_DECODER.decode(bytes) : bytes);
}

/** No packages: a backend that serves none. */
const NONE: PackageCatalog = { page: () => ({ items: [] }), find: () => undefined, all: () => [] };
const packagesOf = async (backend: McpBackend) => (await backend.packages?.()) ?? NONE;

/** The contents of a resource: an Agent Skills package's file (`skill://`), else a skill's or an upstream's resource. */
async function readOf(backend: McpBackend, uri: string): Promise<{ contents: unknown[] } | undefined> {
  const named = parseSkillUri(uri);
  if (!named) return uri.startsWith(SKILL_URI_SCHEME) ? undefined : backend.readResource?.(uri);
  const file = await backend.readAgentSkillFile?.(named.name, named.path);
  return file && { contents: [fileContentsOf(uri, file.bytes, file.contentType)] };
}

/**
 * Answers one of `AGENT_SKILL_METHODS` for `backend`'s caller; -32602 for an unknown skill or
 * resource (as the 2026-07-28 resources page says, `-32002` before it).
 * @example await answerAgentSkills("skills/list", {}, backend, { pageSize: 100 })
 */
export async function answerAgentSkills(method: (typeof AGENT_SKILL_METHODS)[number], params: unknown, backend: McpBackend, options: ListOptions): Promise<unknown> {
  const caching = options.caching ?? {};
  switch (method) {
    case "skills/list": {
      const { cursor } = parseParams(CursorParamsSchema, params ?? {});
      const { items, nextCursor } = (await packagesOf(backend)).page(options.pageSize, cursor);
      return { skills: items.map(({ entry: { uri, frontmatter, resources } }) => ({ uri, frontmatter, resources })), ...(nextCursor ? { nextCursor } : {}), ...caching };
    }
    case "skills/get": {
      const { uri } = parseParams(ReadResourceParamsSchema, params);
      const named = parseSkillUri(uri);
      const entry = named?.path === SKILL_FILE ? (await packagesOf(backend)).find(named.name)?.entry : undefined;
      if (!entry) throw new RpcError(ErrorCode.InvalidParams, `Unknown skill: ${uri.slice(0, 200)}; skills/list lists them (a skill's URI ends in /${SKILL_FILE})`);
      return { skill: { uri: entry.uri, frontmatter: entry.frontmatter, resources: entry.resources } };
    }
    case "resources/list": {
      const { cursor } = parseParams(CursorParamsSchema, params ?? {});
      const { items, nextCursor } = (await packagesOf(backend)).page(options.pageSize, cursor);
      // The skills' and upstreams' own resources come first, all of them, on the first page.
      const declared = cursor === undefined ? ((await backend.offerings?.())?.resources ?? []) : [];
      return { resources: [...declared, ...items.map((p) => ({ uri: p.entry.uri, name: p.name, description: p.description, mimeType: "text/markdown" }))], ...(nextCursor ? { nextCursor } : {}), ...caching };
    }
    case "resources/templates/list":
      return { resourceTemplates: (await backend.offerings?.())?.resourceTemplates ?? [], ...caching };
    case "prompts/list":
      return { prompts: (await backend.offerings?.())?.prompts ?? [], ...caching };
    case "prompts/get": {
      const { name, arguments: args } = parseParams(GetPromptParamsSchema, params);
      const prompt = await backend.getPrompt?.(name, args ?? {});
      if (!prompt) throw new RpcError(ErrorCode.InvalidParams, `Unknown prompt: ${name.slice(0, 200)}; prompts/list lists them`);
      return { ...prompt, ...caching };
    }
    case "resources/read": {
      const { uri } = parseParams(ReadResourceParamsSchema, params);
      const read = await readOf(backend, uri);
      if (!read) throw new RpcError(ErrorCode.InvalidParams, "Resource not found", { uri: uri.slice(0, 200) });
      return { ...read, ...caching };
    }
  }
}
