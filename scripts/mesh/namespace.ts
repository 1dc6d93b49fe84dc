/**
 * The local dispatch namespace's script store: what `npm run dev` and the tests "upload" a skill
 * into, and what the gateway's local namespace (src/federation/dispatch/local.ts) reads its scripts from
 * over the `SKILL_SCRIPTS` binding. A script is its wrangler bundle (the same bytes
 * `npm run deploy` uploads), its compatibility settings and vars; uploading one while the mesh
 * runs needs no restart: the gateway reads it at its first call.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Request as MiniflareRequest, Response as MiniflareResponse } from "miniflare";
import { Response as NodeResponse } from "miniflare";
import type { StoredScript } from "../../src/federation/dispatch/local.js";
import type { Bundle } from "./bundle.js";
import { dispatchedBindingsRefusal, miniflareOptionsOfConfig, readWranglerConfig } from "./wrangler-config.js";

export class LocalScripts {
  readonly #scripts = new Map<string, StoredScript>();

  /**
   * Stores a skill's bundle as the script `name` (replacing what was there) and returns its version.
   * `gatewayName` is the gateway's Worker name: a binding to it stays one; any other binding (another
   * Worker, a Durable Object, an mTLS certificate, …) is refused, as `npm run deploy` refuses it
   * (`dispatchedBindingsRefusal`).
   * @example const version = scripts.put(bundle, "skill-echo-v2", "skillmesh-gateway")
   */
  put(bundle: Bundle, name: string, gatewayName: string, vars: Record<string, string> = {}): string {
    const config = readWranglerConfig(bundle.configPath);
    const options = miniflareOptionsOfConfig(bundle.configPath) as { compatibilityDate?: string; compatibilityFlags?: string[] };
    const refusal = dispatchedBindingsRefusal(config, gatewayName);
    if (refusal) throw new Error(`${bundle.dir}: ${refusal}`);
    const gatewayBindings = (config.services ?? []).map((service) => service.binding);
    const modules = modulesOf(bundle);
    const plainVars = Object.fromEntries(Object.entries(config.vars ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
    const script: Omit<StoredScript, "version"> = {
      compatibilityDate: options.compatibilityDate ?? "2026-04-01",
      ...(options.compatibilityFlags?.length ? { compatibilityFlags: options.compatibilityFlags } : {}),
      mainModule: "index.js",
      modules,
      vars: { ...plainVars, ...vars },
      gatewayBindings,
    };
    const version = createHash("sha256").update(JSON.stringify(script)).digest("hex").slice(0, 16);
    this.#scripts.set(name, { version, ...script });
    return version;
  }

  /** Removes a script; later dispatches to it fail as on Cloudflare ("Worker not found"). */
  delete(name: string): boolean {
    return this.#scripts.delete(name);
  }

  /** The scripts' names. */
  names(): string[] {
    return [...this.#scripts.keys()];
  }

  /** The `SKILL_SCRIPTS` binding: `GET /scripts/<name>` (the script) and `GET /scripts/<name>/version`. */
  readonly answer = (request: MiniflareRequest): MiniflareResponse => {
    const match = /^\/scripts\/([^/]+)(\/version)?$/.exec(new URL(request.url).pathname);
    const script = match ? this.#scripts.get(decodeURIComponent(match[1]!)) : undefined;
    if (!script) return new NodeResponse("no such script", { status: 404 });
    return NodeResponse.json(match![2] ? { version: script.version } : script);
  };
}

/** A bundle's modules as the Worker Loader takes them: the script as `index.js`, the files it imports beside it as text. */
function modulesOf(bundle: Bundle): StoredScript["modules"] {
  const script = readFileSync(bundle.scriptPath, "utf8");
  const modules: StoredScript["modules"] = { "index.js": { js: script } };
  for (const match of script.matchAll(/["']\.\/([^"'/]+)["']/g)) {
    const file = match[1]!;
    if (file === basename(bundle.scriptPath) || modules[file]) continue;
    try {
      modules[file] = { text: readFileSync(join(dirname(bundle.scriptPath), file), "utf8") };
    } catch {
      // Not a file of the bundle: a string that looks like a path.
    }
  }
  return modules;
}
