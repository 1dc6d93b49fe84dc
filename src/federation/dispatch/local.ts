/**
 * The local dispatch namespace of `npm run dev`: Miniflare cannot dispatch to a namespace on this
 * machine, so the gateway runs each script with a Worker Loader (the runtime's dynamic Workers),
 * its code read from the dev server's script store (`SKILL_SCRIPTS`, what `npm run dev` uploads).
 * A script added or replaced while the mesh runs is served at its next call (its version is looked
 * up again after `VERSION_TTL_MS`), without restarting the gateway. One isolate per script version:
 * every `fetch` it makes goes to the gateway's `SkillEgress` entrypoint (routes/egress.ts), told the
 * script's name, which answers by the egress the registry holds for that script — what the
 * dispatch's parameters tell the outbound Worker on Cloudflare.
 *
 * Not as on Cloudflare: workerd does not enforce the limits it is given (CPU, subrequests).
 */
import { z } from "zod";
import { type DispatchOptions, type SkillNamespace, ScriptNotFound } from "./namespace.js";

/** How long a script's version is believed before the store is asked again. */
export const VERSION_TTL_MS = 1_000;

/** A script in the store: what the Worker Loader runs, as `npm run dev` uploaded it. */
export const StoredScriptSchema = z.object({
  version: z.string(),
  compatibilityDate: z.string(),
  compatibilityFlags: z.array(z.string()).optional(),
  mainModule: z.string(),
  modules: z.record(z.string(), z.union([z.string(), z.object({ js: z.string() }), z.object({ text: z.string() }), z.object({ json: z.unknown() })])),
  /** Its plain vars. */
  vars: z.record(z.string(), z.string()).optional(),
  /** Its service bindings to the gateway, by binding name (a user Worker binds no sibling). */
  gatewayBindings: z.array(z.string()).optional(),
});
export type StoredScript = z.infer<typeof StoredScriptSchema>;

/** The store's address for a script's record (`/scripts/<name>`) or its version alone (`…/version`). */
export const SCRIPTS_ORIGIN = "http://scripts.local";

/** What the gateway's `SkillEgress` entrypoint is told of a local script's requests: the script they come from. */
export interface EgressOf {
  script: string;
}

/** The gateway's own entrypoints, as a script's egress and its bindings to the gateway reach them. */
interface GatewayExports {
  SkillEgress(options: { props: unknown }): Fetcher;
  default(options: { props: unknown }): Fetcher;
}

export class LocalNamespace implements SkillNamespace {
  readonly #versions = new Map<string, { version: string; at: number }>();

  private constructor(
    private readonly loader: WorkerLoader,
    private readonly scripts: Fetcher,
  ) {}

  /** The local namespace over a Worker Loader and a script store, when both bindings are there. */
  static of(loader: unknown, scripts: unknown): LocalNamespace | undefined {
    if (typeof (loader as WorkerLoader | undefined)?.get !== "function" || typeof (scripts as Fetcher | undefined)?.fetch !== "function") return undefined;
    return new LocalNamespace(loader as WorkerLoader, scripts as Fetcher);
  }

  /** The script's Worker; its egress is the registry's for the script, not `options.egress` (one isolate serves every dispatch). */
  async worker(script: string, { limits }: DispatchOptions): Promise<Fetcher> {
    const version = await this.#versionOf(script);
    // The gateway's own module: its entrypoints are where a script's requests go.
    const gateway = (await import("cloudflare:workers")).exports as unknown as GatewayExports;
    const stub = this.loader.get(`${script}@${version}`, async () => {
      const code = await this.#read(`/scripts/${script}`, StoredScriptSchema, script);
      return {
        compatibilityDate: code.compatibilityDate,
        ...(code.compatibilityFlags ? { compatibilityFlags: code.compatibilityFlags } : {}),
        mainModule: code.mainModule,
        modules: code.modules as WorkerLoaderWorkerCode["modules"],
        env: { ...code.vars, ...Object.fromEntries((code.gatewayBindings ?? []).map((name) => [name, gateway.default({ props: {} })])) },
        globalOutbound: gateway.SkillEgress({ props: { script } satisfies EgressOf }),
      };
    });
    return stub.getEntrypoint(undefined, limits ? { limits } : undefined);
  }

  /** The script's current version: believed for `VERSION_TTL_MS`, then asked of the store again. */
  async #versionOf(script: string): Promise<string> {
    const known = this.#versions.get(script);
    if (known && Date.now() - known.at < VERSION_TTL_MS) return known.version;
    const { version } = await this.#read(`/scripts/${script}/version`, z.object({ version: z.string() }), script);
    this.#versions.set(script, { version, at: Date.now() });
    return version;
  }

  async #read<T extends z.ZodType>(path: string, schema: T, script: string): Promise<z.output<T>> {
    const response = await this.scripts.fetch(`${SCRIPTS_ORIGIN}${path}`);
    if (response.status === 404) {
      this.#versions.delete(script);
      throw new ScriptNotFound(script);
    }
    if (!response.ok) throw new Error(`the local script store answered HTTP ${response.status} for ${script}`);
    return schema.parse(await response.json());
  }
}
