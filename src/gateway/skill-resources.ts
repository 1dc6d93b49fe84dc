/**
 * What skills serve besides their tool: MCP resources (fixed URIs and URI templates) and prompts
 * they declare in `defineSkill` (src/skill), listed to a caller for the skills it may call, and
 * read or got from the skill's Worker — the version routed to the caller, as a call is routed —
 * over the same hop as a call (signed, with the caller context), charged against the caller's
 * rate and audited as a call. A prompt is listed as `<skill>.<prompt>`: names stay unique across
 * skills.
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
import { chargeCaller } from "./policies.js";
import type { GatewayRuntime } from "./runtime.js";
import type { CallScope } from "./scope.js";

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

/**
 * Reads a skill's resource: the skill of the catalog that declares the URI (a fixed one first, then
 * a template that matches); undefined when none does.
 * @example await readSkillResource(runtime, scope, env, catalog, "modbus://function-codes")
 */
export async function readSkillResource(runtime: GatewayRuntime, scope: CallScope, env: BindingEnv, catalog: SkillSummary[], uri: string): Promise<ReadResourceResult | undefined> {
  const owner = catalog.find((s) => s.resources?.some((r) => r.uri === uri)) ?? catalog.find((s) => s.resourceTemplates?.some((t) => matchUriTemplate(t.uriTemplate, uri)));
  if (!owner) return undefined;
  return askSkill(runtime, scope, env, owner.name, { method: "resources/read", params: { uri }, resource: uri }, ReadResourceResultSchema);
}

/**
 * Gets a prompt by its listed name (`<skill>.<prompt>`); undefined when no skill of the catalog has it.
 * @example await getSkillPrompt(runtime, scope, env, catalog, "modbus.decode.explain-frame", { frame: "11 03 …" })
 */
export async function getSkillPrompt(runtime: GatewayRuntime, scope: CallScope, env: BindingEnv, catalog: SkillSummary[], name: string, args: Record<string, string>): Promise<GetPromptResult | undefined> {
  const dot = name.lastIndexOf(".");
  const [skill, prompt] = [name.slice(0, dot), name.slice(dot + 1)];
  if (dot < 0 || !catalog.some((s) => s.name === skill && s.prompts?.some((p) => p.name === prompt))) return undefined;
  return askSkill(runtime, scope, env, skill, { method: "prompts/get", params: { name: prompt, arguments: args }, resource: `prompt:${name}` }, GetPromptResultSchema);
}

/** One read or get of a skill's Worker, routed, charged, checked and audited. */
async function askSkill<T>(runtime: GatewayRuntime, scope: CallScope, env: BindingEnv, skill: string, ask: { method: string; params: Record<string, unknown>; resource: string }, schema: z.ZodType<T>): Promise<T> {
  const started = Date.now();
  let deployment: string | undefined;
  const audit = (code: number) =>
    runtime.audit.record(
      { type: "call", at: started, caller: scope.context.caller, method: ask.method, resource: ask.resource.slice(0, 512), code, ms: Date.now() - started, ...(deployment ? { deployment } : {}), ...(scope.context.group ? { group: scope.context.group } : {}) },
      scope.waitUntil,
    );
  try {
    const entry = await registryEntry(runtime, skill, scope.trace, scope.waitUntil);
    const routed = entry && (selectDeployment(entry, routeKeyOf(scope.context)) ?? entry.degraded);
    if (!routed) throw new RpcError(ErrorCode.SkillUnavailable, `${skill} has no deployment to ask`);
    deployment = routed.id;
    await chargeCaller(runtime.store, scope);
    const answer = await forwardCall(routed, { method: ask.method, params: ask.params, context: scope.context, ...(runtime.config.hopKey ? { hopKey: runtime.config.hopKey } : {}) }, env);
    const checked = schema.safeParse(answer);
    if (!checked.success) throw new RpcError(ErrorCode.SkillUnavailable, `${skill} answered ${ask.method} with something that is not an MCP ${ask.method} result`);
    audit(0);
    return checked.data;
  } catch (error) {
    const failure = error instanceof RpcError ? error : new RpcError(ErrorCode.InternalError);
    if (!(error instanceof RpcError)) console.error(`[gateway] ${skill}: ${ask.method} failed unexpectedly, answered as -32603:`, error);
    audit(failure.code);
    throw failure;
  }
}
