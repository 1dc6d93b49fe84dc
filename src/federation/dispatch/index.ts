/**
 * Skills deployed into a dispatch namespace (Workers for Platforms) and reached by script name at
 * run time: a skill, a version, a canary or a rollback is an upload and a registration, never a
 * gateway deploy, and a namespace has no 500-Worker limit. Every dispatch passes the skill's
 * per-call limits and the egress parameters its outbound Worker enforces (src/federation/egress).
 *
 * On Cloudflare the namespace is the `SKILL_NAMESPACE` binding (wrangler.toml
 * `[[dispatch_namespaces]]`). Miniflare cannot dispatch to a local namespace, so `npm run dev`
 * gives the gateway a Worker Loader and a script store instead (src/federation/dispatch/local.ts): the same
 * interface, the same call path.
 */
import { OUTBOUND_PARAMETER } from "../egress/index.js";
import { LocalNamespace } from "./local.js";
import { type DispatchLimits, type SkillNamespace, ScriptNotFound } from "./namespace.js";

export { type DispatchLimits, type DispatchOptions, type SkillNamespace, ScriptNotFound } from "./namespace.js";

/** The gateway's dispatch namespace binding (wrangler.toml `[[dispatch_namespaces]] binding`). */
export const NAMESPACE_BINDING = "SKILL_NAMESPACE";
/** Local only: the Worker Loader that runs the local namespace's scripts (`npm run dev`). */
export const LOADER_BINDING = "SKILL_LOADER";
/** Local only: the store the local namespace reads its scripts from (`npm run dev`'s uploads). */
export const SCRIPTS_BINDING = "SKILL_SCRIPTS";

/** The part of the runtime's `DispatchNamespace` binding the gateway calls. */
interface DispatchNamespaceBinding {
  get(name: string, args?: Record<string, unknown>, options?: { limits?: DispatchLimits; outbound?: Record<string, unknown> }): Fetcher;
}

const namespaces = new WeakMap<object, SkillNamespace | null>();

/**
 * The gateway's dispatch namespace: the `SKILL_NAMESPACE` binding on Cloudflare, the local one in
 * `npm run dev` (a Worker Loader and a script store), or undefined when it has neither.
 * @example const worker = await namespaceOf(env)?.worker("skill-echo-v2", { egress })
 */
export function namespaceOf(env: Record<string, unknown>): SkillNamespace | undefined {
  let namespace = namespaces.get(env);
  if (namespace === undefined) {
    namespace = bindingNamespace(env[NAMESPACE_BINDING]) ?? LocalNamespace.of(env[LOADER_BINDING], env[SCRIPTS_BINDING]) ?? null;
    namespaces.set(env, namespace);
  }
  return namespace ?? undefined;
}

/** The runtime's dispatch namespace binding as a `SkillNamespace`, if `binding` is one. */
function bindingNamespace(binding: unknown): SkillNamespace | undefined {
  if (typeof (binding as DispatchNamespaceBinding | undefined)?.get !== "function") return undefined;
  const namespace = binding as DispatchNamespaceBinding;
  return {
    async worker(script, { limits, egress }) {
      try {
        return namespace.get(script, {}, { ...(limits ? { limits } : {}), outbound: { [OUTBOUND_PARAMETER]: egress } });
      } catch (thrown) {
        // The runtime's words for a script the namespace does not hold.
        if (/^Worker not found/i.test((thrown as Error | undefined)?.message ?? "")) throw new ScriptNotFound(script);
        throw thrown;
      }
    },
  };
}
