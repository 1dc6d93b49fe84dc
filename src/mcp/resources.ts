/**
 * Resources, prompts (and completions of their arguments) and Agent Skills over MCP, one row of
 * `METHODS` per method: its params' schema and its answer. A list reads the caller's catalog (`McpBackend.catalog`: what its grants
 * let it use, at the versions routed to it); a read or a get is an operation of the one call chain
 * (`McpBackend.run`: resolved for this caller, charged, traced, audited). What is listed:
 * - skills' own resources, templates and prompts (declared in `defineSkill`) and federated MCP
 *   upstreams' (src/gateway/chain/offerings.ts);
 * - the Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): `skills/list` and
 *   `skills/get`, each file's `sha256:` digest, and every file of a package as a
 *   `skill://<name>/<path>` resource (`resources/list` lists each package's `SKILL.md`); a
 *   federated upstream's skills beside them, as `skill://<upstream>/<skill-path>/<path>`.
 * Both eras; in 2026-07-28 every list and read carries the caching fields (`CacheableResult`).
 */
import { z } from "zod";
import { SKILL_FILE, parseSkillUri } from "../registry/packages/index.js";
import type { ServedFile } from "../gateway/chain/answers.js";
import { ErrorCode, RpcError, parseParams } from "../protocols/jsonrpc/index.js";
import type { PromptGet, ResourceRead } from "../gateway/chain/operation.js";
import {
  CompleteParamsSchema,
  GetPromptParamsSchema,
  type InputRound,
  McpErrorCode,
  ReadResourceParamsSchema,
  isInputRequired,
  resourceContentsOf,
} from "../protocols/mcp/index.js";
import { UTF8_DECODER } from "../lib/utf8/index.js";
import type { McpBackend } from "./backend.js";
import { withHandle } from "./request-state.js";

/** The Skills extension's name in capabilities' `extensions`. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

const CursorParamsSchema = z.object({ cursor: z.string().optional() }).loose();

/** What a row's answer knows of its request besides its params. */
export interface ResourceContext {
  backend: McpBackend;
  pageSize: number;
  /** The request is of the 2026-07-28 revision. */
  stateless: boolean;
  /** A 2025 request's session (`mcpSessionOf`; "" without one): what its subscriptions belong to. */
  session?: string;
  /** Set for 2026-07-28: `ttlMs` and `cacheScope` on every list and read. */
  caching?: { ttlMs: number; cacheScope: "public" | "private" };
  /** Set for 2026-07-28: what the caller can answer of input requests, and on a retry its answers and state handle. */
  inputRound?: InputRound;
}

/** A package file's bytes as a resource's contents: text for text, base64 `blob` otherwise. */
export function fileContentsOf(uri: string, file: ServedFile) {
  const mimeType = file.contentType.split(";")[0]!.trim();
  return resourceContentsOf(uri, mimeType, /^text\/|^application\/(json|yaml)/.test(mimeType) ? UTF8_DECODER.decode(file.bytes) : file.bytes);
}

/** A row of the table: how a method's params parse, and what it answers; `sessions`: a 2025 session's method only. */
interface Row<P> {
  params: z.ZodType<P>;
  answer(params: P, context: ResourceContext): Promise<object>;
  sessions?: true;
}
const row = <P>(params: z.ZodType<P>, answer: Row<P>["answer"], sessions?: true): Row<P> => ({ params, answer, ...(sessions ? { sessions } : {}) });

/**
 * The methods answered here, by name. A new method is a new row: a list reads
 * `context.backend.catalog()`, an operation goes through `context.backend.run`.
 */
export const METHODS = {
  "skills/list": row(CursorParamsSchema, async ({ cursor }, { backend, pageSize, caching }) => {
    const catalog = backend.catalog();
    const { items, nextCursor } = (await catalog.packages()).page(pageSize, cursor);
    // Federated upstreams' skills come first, all of them, on the first page.
    const federated = cursor === undefined ? (await catalog.offerings()).packages.map((s) => s.entry) : [];
    return {
      skills: [...federated, ...items.map((p) => p.entry)].map(({ uri, frontmatter, resources }) => ({ uri, frontmatter, resources })),
      ...(nextCursor ? { nextCursor } : {}),
      ...caching,
    };
  }),
  "skills/get": row(ReadResourceParamsSchema, async ({ uri }, { backend, caching }) => {
    const named = parseSkillUri(uri);
    const catalog = backend.catalog();
    // A package's (skill://<name>/SKILL.md), else a federated upstream's (skill://<upstream>/<skill-path>/SKILL.md).
    const entry =
      (named?.path === SKILL_FILE ? (await catalog.packages()).find(named.name)?.entry : undefined) ??
      (named ? (await catalog.offerings()).packages.find((s) => s.entry.uri === uri)?.entry : undefined);
    if (!entry)
      throw new RpcError(ErrorCode.InvalidParams, `No skill is served at ${uri.slice(0, 200)}; skills/list lists them (a skill's URI ends in /${SKILL_FILE})`);
    return { skill: { uri: entry.uri, frontmatter: entry.frontmatter, resources: entry.resources }, ...caching };
  }),
  "resources/list": row(CursorParamsSchema, async ({ cursor }, { backend, pageSize, caching }) => {
    const catalog = backend.catalog();
    const { items, nextCursor } = (await catalog.packages()).page(pageSize, cursor);
    // The skills' and upstreams' own resources, and the upstreams' Agent Skills, come first, all of them, on the first page.
    const offerings = cursor === undefined ? await catalog.offerings() : undefined;
    const declared = offerings?.resources ?? [];
    const skills = [...(offerings?.packages ?? []), ...items];
    return {
      resources: [...declared, ...skills.map((p) => ({ uri: p.entry.uri, name: p.name, description: p.description, mimeType: "text/markdown" }))],
      ...(nextCursor ? { nextCursor } : {}),
      ...caching,
    };
  }),
  "resources/templates/list": row(CursorParamsSchema, async (_params, { backend, caching }) => ({
    resourceTemplates: (await backend.catalog().offerings()).resourceTemplates,
    ...caching,
  })),
  "prompts/list": row(CursorParamsSchema, async (_params, { backend, caching }) => ({ prompts: (await backend.catalog().offerings()).prompts, ...caching })),
  "prompts/get": row(GetPromptParamsSchema, async ({ name, arguments: args }, context) => {
    const prompt = await runAsking({ kind: "prompt", method: "prompts/get", name, arguments: args ?? {} }, name, context);
    return isInputRequired(prompt) ? prompt : { ...(prompt as object), ...context.caching };
  }),
  // Completes a prompt's argument or a template's variable of the caller's (its own name unknown
  // there, as for a prompts/get); no caching fields: values follow what is typed.
  "completion/complete": row(CompleteParamsSchema, async ({ ref, argument, context }, { backend }) => {
    return (await backend.run({
      kind: "completion",
      method: "completion/complete",
      ref,
      argument,
      ...(context?.arguments ? { given: context.arguments } : {}),
    })) as object;
  }),
  // 2025 revisions (`sessions`): the session's stream (GET /mcp) tells of an update to a resource it
  // subscribed to (src/mcp/listen.ts); a subscription is made for a resource the caller may read, as a read is.
  "resources/subscribe": row(
    ReadResourceParamsSchema,
    async ({ uri }, { backend, session, stateless }) => {
      const notFound = notFoundOf({ stateless });
      const { servedBy } = (await backend.run({ kind: "subscribe", method: "resources/subscribe", uri, notFound })) as { servedBy?: string };
      await backend.subscriptions.add(session!, uri, servedBy);
      return {};
    },
    true,
  ),
  "resources/unsubscribe": row(
    ReadResourceParamsSchema,
    async ({ uri }, { backend, session }) => {
      await backend.run({ kind: "session", method: "resources/unsubscribe", uri }); // the caller's own state: nothing to resolve
      await backend.subscriptions.remove(session!, uri);
      return {};
    },
    true,
  ),
  "resources/read": row(ReadResourceParamsSchema, async ({ uri }, context) => {
    const notFound = notFoundOf(context);
    const read = await runAsking({ kind: "resource", method: "resources/read", uri, notFound }, uri, context);
    if (isInputRequired(read)) return read;
    const contents = isPackageFile(read) ? { contents: [fileContentsOf(uri, read)] } : (read as object);
    return { ...contents, ...context.caching };
  }),
};

/** A missing resource in the request's revision: 2025-11-25 and before -32002, 2026-07-28 -32602. */
function notFoundOf({ stateless }: Pick<ResourceContext, "stateless">) {
  return { code: stateless ? ErrorCode.InvalidParams : McpErrorCode.ResourceNotFound, message: "Resource not found" };
}

/**
 * Runs a prompt get or resource read that an upstream may answer with input requests
 * (2026-07-28, SEP-2322): the caller's round goes with it (its state handle swapped for the state
 * it stands for), and an `input_required` answer reaches the caller with a handle of the
 * upstream's state bound to what asked (`asker`: the prompt's name, the resource's URI).
 */
async function runAsking(operation: PromptGet | ResourceRead, asker: string, { backend, inputRound }: ResourceContext): Promise<unknown> {
  const round =
    inputRound?.requestState === undefined ? inputRound : { ...inputRound, requestState: await backend.requestStates.kept(asker, inputRound.requestState) };
  const answer = await backend.run({ ...operation, ...(round ? { inputRound: round } : {}) });
  return isInputRequired(answer) ? withHandle(backend.requestStates, asker, answer) : answer;
}

export type ResourceMethod = keyof typeof METHODS;

/** Whether an MCP method is one of this table's. */
export const isResourceMethod = (method: string): method is ResourceMethod => Object.hasOwn(METHODS, method);

/**
 * Answers one of `METHODS` for `context.backend`'s caller.
 * @example await answerResources("skills/list", {}, { backend, pageSize: 100, stateless: false })
 */
export async function answerResources(method: ResourceMethod, params: unknown, context: ResourceContext): Promise<object> {
  const { params: schema, answer, sessions } = METHODS[method] as unknown as Row<unknown>;
  if (sessions && context.stateless)
    throw new RpcError(
      ErrorCode.MethodNotFound,
      `Method not found: ${method} (protocol 2026-07-28 has no sessions; subscriptions/listen tells of list changes)`,
    );
  if (sessions && !context.session)
    throw new RpcError(ErrorCode.InvalidRequest, `Invalid Request: ${method} needs a session: initialize first and send its Mcp-Session-Id`);
  return answer(parseParams(schema, params ?? {}), context);
}

/** Whether a read answered a package file's bytes (rather than an MCP read result). */
export function isPackageFile(read: unknown): read is ServedFile {
  return typeof read === "object" && read !== null && (read as { bytes?: unknown }).bytes instanceof Uint8Array;
}
