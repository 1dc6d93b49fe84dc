/**
 * What skills serve besides their tool: MCP resources (fixed URIs and URI templates) and prompts
 * they declare in `defineSkill` (src/skill), listed to a caller for the skills it may call, and
 * read or got from the skill's Worker — the version routed to the caller, as a call is routed —
 * over the same hop as a call (signed, with the caller context), charged against the caller's
 * rate and audited as a call. A prompt is listed as `<skill>.<prompt>`: names stay unique across
 * skills.
 *
 * A federated MCP upstream's resources and prompts (src/upstream, read at each sync) go the same
 * way: listed to a caller that may call one of the upstream's tools, prompts as
 * `<upstream>.<prompt>`, read or got from the upstream with its credential for the caller.
 */
import { ErrorCode, RpcError } from "../jsonrpc/index.js";
import { type BindingEnv, forwardCall } from "../forward/index.js";
import {
  type GetPromptResult,
  GetPromptResultSchema,
  type Prompt,
  type ReadResourceResult,
  ReadResourceResultSchema,
  type Resource,
  type ResourceTemplate,
  matchUriTemplate,
} from "../mcp-protocol/index.js";
import { routeKeyOf, selectDeployment } from "../routing/index.js";
import type { z } from "zod";
import type { SkillSummary } from "./catalog.js";
import { registryEntry } from "./invoke.js";
import { chargeCaller, readAudit } from "./policies.js";
import type { GatewayRuntime } from "./runtime.js";
import type { CallScope } from "./scope.js";
import { getUpstreamPrompt, readUpstreamResource } from "../upstream/mcp-client.js";
import { upstreamTag } from "../upstream/definitions.js";

/** The resources, templates and prompts of a catalog's skills, in skill name order. */
export interface SkillOfferings {
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

const offerings = new WeakMap<SkillSummary[], SkillOfferings>();

/**
 * What a caller's catalog offers besides tools, built once per catalog.
 * @example offeringsOf(catalogFor(view, scope.access)).prompts.map((p) => p.name) // ["modbus.decode.explain-frame"]
 */
export function offeringsOf(catalog: SkillSummary[]): SkillOfferings {
  let found = offerings.get(catalog);
  if (!found) {
    found = {
      resources: catalog.flatMap((s) => s.resources ?? []),
      resourceTemplates: catalog.flatMap((s) => s.resourceTemplates ?? []),
      prompts: catalog.flatMap((s) => (s.prompts ?? []).map((p) => ({ ...p, name: `${s.name}.${p.name}` }))),
    };
    offerings.set(catalog, found);
  }
  return found;
}

/** The MCP upstreams a caller may call a tool of, each at the version whose offerings it is shown (its first registered). */
async function upstreamsOf(runtime: GatewayRuntime, catalog: SkillSummary[]): Promise<Array<{ name: string; version: string; offerings: SkillOfferings }>> {
  const found = await Promise.all(
    upstreamNamesOf(catalog).map(async (name) => {
      const record = await runtime.upstreams.cached(name).catch(() => undefined); // a store outage hides them, not the rest
      const [version, current] = Object.entries(record?.versions ?? {}).sort(([, a], [, b]) => a.registeredAt - b.registeredAt)[0] ?? [];
      return version && current?.offerings ? [{ name, version, offerings: current.offerings }] : [];
    }),
  );
  return found.flat();
}
const UPSTREAM_TAG = upstreamTag("");
const upstreamNames = new WeakMap<SkillSummary[], string[]>();

/** The MCP upstreams of a catalog's federated tools (by their `upstream:<name>` tag), once per catalog. */
function upstreamNamesOf(catalog: SkillSummary[]): string[] {
  let names = upstreamNames.get(catalog);
  if (!names) {
    names = [...new Set(catalog.flatMap((s) => (s.answers === "tool-result" ? s.tags.filter((t) => t.startsWith(UPSTREAM_TAG)).map((t) => t.slice(UPSTREAM_TAG.length)) : [])))].sort();
    upstreamNames.set(catalog, names);
  }
  return names;
}

/**
 * Everything a caller's catalog offers besides tools: its skills' declarations (`offeringsOf`) and
 * its MCP upstreams' (prompts named `<upstream>.<prompt>`).
 * @example (await callerOfferings(runtime, catalog)).resources.map((r) => r.uri)
 */
export async function callerOfferings(runtime: GatewayRuntime, catalog: SkillSummary[]): Promise<SkillOfferings> {
  const own = offeringsOf(catalog);
  const upstreams = await upstreamsOf(runtime, catalog);
  if (!upstreams.length) return own;
  return {
    resources: [...own.resources, ...upstreams.flatMap((u) => u.offerings.resources)],
    resourceTemplates: [...own.resourceTemplates, ...upstreams.flatMap((u) => u.offerings.resourceTemplates)],
    prompts: [...own.prompts, ...upstreams.flatMap((u) => u.offerings.prompts.map((p) => ({ ...p, name: `${u.name}.${p.name}` })))],
  };
}

/** Of `owners`, the one that declares `uri`: as a fixed resource first, then by a template that matches. */
function ownerOf<T>(owners: T[], declared: (owner: T) => { resources?: Resource[] | undefined; resourceTemplates?: ResourceTemplate[] | undefined }, uri: string): T | undefined {
  return owners.find((o) => declared(o).resources?.some((r) => r.uri === uri)) ?? owners.find((o) => declared(o).resourceTemplates?.some((t) => matchUriTemplate(t.uriTemplate, uri)));
}

/**
 * Reads a skill's resource: the skill of the catalog that declares the URI (a fixed one first, then
 * a template that matches), else the MCP upstream that does; undefined when none does.
 * @example await readSkillResource(runtime, scope, env, catalog, "modbus://function-codes")
 */
export async function readSkillResource(runtime: GatewayRuntime, scope: CallScope, env: BindingEnv, catalog: SkillSummary[], uri: string): Promise<ReadResourceResult | undefined> {
  const ask = { method: "resources/read", resource: uri };
  const owner = ownerOf(catalog, (skill) => skill, uri);
  if (owner) return asked(runtime, scope, ask, ReadResourceResultSchema, (_signal, answeredBy) => viaSkill(runtime, scope, env, owner.name, "resources/read", { uri }, answeredBy));
  const upstream = ownerOf(await upstreamsOf(runtime, catalog), (u) => u.offerings, uri);
  if (!upstream) return undefined;
  return asked(runtime, scope, ask, ReadResourceResultSchema, (signal, answeredBy) => {
    answeredBy(`upstream:${upstream.name}@${upstream.version}`);
    return runtime.upstreams.ask(upstream.name, upstream.version, scope.context.caller, signal, (target, era) => readUpstreamResource(target, era, uri));
  });
}

/**
 * Gets a prompt by its listed name (`<skill>.<prompt>`, `<upstream>.<prompt>`); undefined when the
 * caller's catalog has none of that name.
 * @example await getSkillPrompt(runtime, scope, env, catalog, "modbus.decode.explain-frame", { frame: "11 03 …" })
 */
export async function getSkillPrompt(runtime: GatewayRuntime, scope: CallScope, env: BindingEnv, catalog: SkillSummary[], name: string, args: Record<string, string>): Promise<GetPromptResult | undefined> {
  const dot = name.lastIndexOf(".");
  if (dot < 0) return undefined;
  const [owner, prompt] = [name.slice(0, dot), name.slice(dot + 1)];
  const ask = { method: "prompts/get", resource: `prompt:${name}` };
  if (catalog.some((s) => s.name === owner && s.prompts?.some((p) => p.name === prompt))) {
    return asked(runtime, scope, ask, GetPromptResultSchema, (_signal, answeredBy) => viaSkill(runtime, scope, env, owner, "prompts/get", { name: prompt, arguments: args }, answeredBy));
  }
  // An upstream's prompt names may hold dots: the upstream is the name's first part.
  const upstream = (await upstreamsOf(runtime, catalog)).find((u) => name.startsWith(`${u.name}.`) && u.offerings.prompts.some((p) => p.name === name.slice(u.name.length + 1)));
  if (!upstream) return undefined;
  return asked(runtime, scope, ask, GetPromptResultSchema, (signal, answeredBy) => {
    answeredBy(`upstream:${upstream.name}@${upstream.version}`);
    return runtime.upstreams.ask(upstream.name, upstream.version, scope.context.caller, signal, (target, era) => getUpstreamPrompt(target, era, name.slice(upstream.name.length + 1), args));
  });
}

/** How long one read or get of an upstream may take. */
const UPSTREAM_ASK_MS = 10_000;

/** A skill's Worker asked, routed as a call is (`answeredBy` is told the deployment before it answers). */
async function viaSkill(runtime: GatewayRuntime, scope: CallScope, env: BindingEnv, skill: string, method: string, params: Record<string, unknown>, answeredBy: (deployment: string) => void): Promise<unknown> {
  const entry = await registryEntry(runtime, skill, scope.trace, scope.waitUntil);
  const routed = entry && (selectDeployment(entry, routeKeyOf(scope.context)) ?? entry.degraded);
  if (!routed) throw new RpcError(ErrorCode.SkillUnavailable, `${skill} has no deployment to ask`);
  answeredBy(routed.id);
  return forwardCall(routed, { method, params, context: scope.context, ...(runtime.config.hopKey ? { hopKey: runtime.config.hopKey } : {}) }, env);
}

/** One read or get: charged, run, its answer checked, audited (who answered, how it went). */
async function asked<T>(runtime: GatewayRuntime, scope: CallScope, ask: { method: string; resource: string }, schema: z.ZodType<T>, run: (signal: AbortSignal, answeredBy: (deployment: string) => void) => Promise<unknown>): Promise<T> {
  const record = readAudit(runtime, scope, ask.method, ask.resource);
  let deployment: string | undefined;
  const audit = (code: number) => record(code, deployment);
  try {
    await chargeCaller(runtime.store, scope);
    const answer = await run(AbortSignal.timeout(UPSTREAM_ASK_MS), (answering) => (deployment = answering));
    const checked = schema.safeParse(answer);
    if (!checked.success) throw new RpcError(ErrorCode.SkillUnavailable, `${deployment} answered ${ask.method} with something that is not an MCP ${ask.method} result`);
    audit(0);
    return checked.data;
  } catch (error) {
    const failure = error instanceof RpcError ? error : new RpcError(ErrorCode.InternalError);
    if (!(error instanceof RpcError)) console.error(`[gateway] ${ask.method} of ${ask.resource.slice(0, 100)} failed unexpectedly, answered as -32603:`, error);
    audit(failure.code);
    throw failure;
  }
}
