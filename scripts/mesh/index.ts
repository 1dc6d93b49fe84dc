/**
 * The local mesh: the gateway and any number of skill Workers in one Miniflare (workerd)
 * instance, the gateway bound to each skill by a service binding, every skill also on its own
 * loopback port for direct calls. Used by `npm run dev`, the integration tests and the benchmark.
 */
import { createHash } from "node:crypto";
import { type AddressInfo, createServer } from "node:net";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { Log, LogLevel, Miniflare, type MiniflareOptions, type ModuleDefinition, type WorkerOptions, globsToRegExps, testRegExps } from "miniflare";
import { miniflareOptionsOfConfig, readWranglerConfig } from "./wrangler-config.js";
import type { z } from "zod";
import { AdminErrorSchema, RegistrationAnswerSchema } from "../../src/admin/api/index.js";
import type { SkillManifest } from "../../src/skill/manifest.js";
import type { SkillEndpoint } from "../../src/registry/deployments/model.js";
import { type Bundle, ROOT, bindingNameOf, bundleAll, bundleWorker, isPipelineDir, workerNameOf } from "./bundle.js";
import { LocalScripts } from "./namespace.js";
import { LOADER_BINDING, SCRIPTS_BINDING } from "../../src/federation/dispatch/index.js";
import { CODE_LOADER_BINDING } from "../../src/gateway/code-mode/sandbox.js";

export interface MeshOptions {
  /** Skill folders (each with wrangler.toml), e.g. `skillDirs()`: each its own Worker, bound to the gateway. */
  skills: string[];
  /**
   * Skill folders uploaded into the local dispatch namespace instead (scripts/mesh/namespace.ts),
   * registered by script name (`{"dispatch": "skill-<folder>"}`). More can be added while the mesh
   * runs (`mesh.dispatch`).
   */
  dispatched?: string[];
  /** The gateway's folder (with wrangler.toml); default the repository root. */
  gateway?: string;
  adminToken: string;
  /** Use the upstash driver against this REST endpoint; default: the in-memory store. */
  upstash?: { url: string; token: string };
  /** Gateway port on `host`; 0 = any free port. */
  port?: number;
  host?: string;
  /** Register every skill with the gateway after start (default true). */
  register?: boolean;
  /** Extra vars for the gateway Worker. */
  gatewayVars?: Record<string, string>;
  /** Extra vars for every skill Worker. */
  skillVars?: Record<string, string>;
  /** Print the Workers' logs (default false). */
  verbose?: boolean;
  /** Receives every line the Workers log (instead of printing them), e.g. for a test to read. */
  onLog?: (line: { level: string; message: string }) => void;
  /** Opens the V8 inspector of every Worker on this port (profiling). */
  inspectorPort?: number;
  /** Bundles the Workers without minifying them, so a CPU profile names functions and modules. */
  unminified?: boolean;
}

export interface MeshSkill {
  dir: string;
  workerName: string;
  /** The gateway's service binding to this skill. */
  binding: string;
  /** Direct URL of the skill Worker (bypassing the gateway). */
  url: string;
  manifest: SkillManifest;
  /** A pipeline folder (`pipeline.yaml`): registered with `"pipeline": true`. */
  pipeline: boolean;
}

/** A skill in the local dispatch namespace. */
export interface DispatchedSkill {
  dir: string;
  /** Its script name in the namespace (`skill-<folder>`): its registered endpoint is `{ dispatch: script }`. */
  script: string;
  /** The stored version (a hash of its code and settings). */
  version: string;
}

export interface Mesh {
  /** The gateway's URL: its own workerd socket (see startMesh). */
  gatewayUrl: string;
  skills: MeshSkill[];
  /** The skills in the local dispatch namespace. */
  dispatched: DispatchedSkill[];
  /** The local dispatch namespace's scripts. */
  scripts: LocalScripts;
  /**
   * Bundles a skill folder and uploads it into the local dispatch namespace while the mesh runs
   * (no restart), registering it unless told not to.
   */
  dispatch(dir: string, options?: { register?: boolean; force?: boolean }): Promise<DispatchedSkill>;
  miniflare: Miniflare;
  dispose(): Promise<void>;
  /**
   * Rebundles (what changed; the rest comes from the cache) and restarts the mesh with these skill
   * folders, on the same ports. Throws, leaving the mesh as it was, when a Worker does not bundle.
   * workerd restarts every Worker: the in-memory store starts empty (scripts/dev.ts restores
   * the registry); nothing is registered here.
   */
  reload(skills: string[]): Promise<void>;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

/** The Miniflare options of a bundled Worker, as `wrangler dev` would start it, named `name`. */
export function workerOptionsOf(bundle: Bundle, name: string): WorkerOptions {
  const workerOptions = miniflareOptionsOfConfig(bundle.configPath);
  const modules = modulesOf(bundle.scriptPath, (workerOptions.modulesRules as ModuleRule[] | undefined) ?? []);
  // Module names relative to the bundle, not to the working directory (a test run from elsewhere).
  const root = dirname(bundle.scriptPath);
  return { ...workerOptions, name, modulesRoot: root, ...(modules ? { modules } : { modules: true, scriptPath: bundle.scriptPath }) } as WorkerOptions;
}

/** A module rule, as far as `modulesOf` reads it (Miniflare's own type reaches lint as `any`). */
interface ModuleRule {
  type: string;
  include: string[];
  fallthrough?: boolean;
}

/**
 * A bundle's modules, listed: its script and each file wrangler wrote beside it that the script
 * imports (`"./<file>"`), typed by the Worker's module rules (wrangler.toml's `[[rules]]` and the
 * defaults) as Miniflare types them (its own glob matching; a rule after a rule of the same type
 * without `fallthrough` does not count). Given a list, Miniflare does not parse the script to
 * find its imports (2.2 s of CPU for the gateway's, at every mesh start); undefined when an
 * imported file fits no rule, and Miniflare then finds and types them itself.
 */
function modulesOf(scriptPath: string, rules: ModuleRule[]): ModuleDefinition[] | undefined {
  const finalised = new Set<string>();
  const compiled = rules.flatMap((rule) => {
    if (finalised.has(rule.type)) return [];
    if (!rule.fallthrough) finalised.add(rule.type);
    return [{ type: rule.type, include: globsToRegExps(rule.include, { endAnchor: true }) }];
  });
  const dir = dirname(scriptPath);
  const script = readFileSync(scriptPath, "utf8");
  const modules: ModuleDefinition[] = [{ type: "ESModule", path: scriptPath, contents: script }];
  for (const file of readdirSync(dir)) {
    const path = join(dir, file);
    if (path === scriptPath || !script.includes(`"./${file}"`)) continue;
    const rule = compiled.find((r) => testRegExps(r.include, path));
    if (!rule) return undefined;
    modules.push({ type: rule.type, path } as ModuleDefinition);
  }
  return modules;
}

interface MeshWorker {
  bundle: Bundle;
  workerName: string;
  binding: string;
}

/** Fixed ports for a restart: the gateway's and each skill's (by Worker name) as they are now. */
interface Ports {
  gateway: number;
  skills: Map<string, number>;
}

/**
 * A port nothing listens on now on `host` (the kernel's pick, then closed again).
 * @example const port = await freePort("127.0.0.1")
 */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The Miniflare options of the whole mesh: the gateway bound to each skill, every Worker on its own socket. */
function miniflareOptionsOf(options: MeshOptions, gatewayBundle: Bundle, skills: MeshWorker[], scripts: LocalScripts, ports?: Ports): MiniflareOptions {
  const host = options.host ?? "127.0.0.1";
  const gatewayVars: Record<string, string> = {
    SKILLMESH_ADMIN_TOKEN: options.adminToken,
    // A local mesh: no credential is asked for (a deployed gateway asks by default), skills on
    // loopback URLs may register, and a page DNS-rebound to this loopback gateway (under its own
    // host name) is refused.
    SKILLMESH_AUTH: "off",
    SKILLMESH_ALLOW_PRIVATE_ENDPOINTS: "true",
    // Upstreams' credentials are sealed with a key of this mesh, stable while its admin token is.
    SKILLMESH_UPSTREAM_KEY: createHash("sha256").update(`skillmesh-upstream-key:${options.adminToken}`).digest("hex"),
    ...(isLoopback(host) ? { SKILLMESH_ALLOWED_HOSTS: "localhost,127.0.0.1,[::1]" } : {}),
    ...(options.upstash ?
      { SKILLMESH_STORE: "upstash", UPSTASH_REDIS_REST_URL: options.upstash.url, UPSTASH_REDIS_REST_TOKEN: options.upstash.token }
    : { SKILLMESH_STORE: "memory" }),
    ...options.gatewayVars,
  };
  const gateway = workerOptionsOf(gatewayBundle, "gateway");
  // A pipeline's binding to the deployed gateway (by its wrangler name) is the mesh's gateway.
  const gatewayName = readWranglerConfig(gatewayBundle.configPath).name;
  return {
    // Every Worker gets its own socket (unsafeDirectSockets), the gateway on `port`: Miniflare's
    // own entry Worker would add a hop production does not have (it halves the gateway's
    // throughput in `npm run bench`), so its port is left to chance and unused.
    host: "127.0.0.1",
    port: 0,
    // WARN, not INFO: INFO adds a "Ready on" line for Miniflare's unused entry port, not the gateway's.
    log: options.verbose ? new Log(LogLevel.WARN) : new Log(LogLevel.NONE),
    cf: false, // no network here: do not fetch the `Request.cf` placeholder
    ...(options.inspectorPort ? { inspectorPort: options.inspectorPort } : {}),
    ...(options.onLog ? { handleStructuredLogs: ({ level, message }: { level: string; message: string }) => void options.onLog!({ level, message }) } : {}),
    workers: [
      {
        ...gateway,
        bindings: { ...(gateway.bindings ?? {}), ...gatewayVars },
        // The mesh's own skills only: the [[services]] of wrangler.toml name Workers deployed to Cloudflare.
        // The local dispatch namespace: a Worker Loader over the script store (src/federation/dispatch/local.ts).
        serviceBindings: { ...Object.fromEntries(skills.map((s) => [s.binding, s.workerName])), [SCRIPTS_BINDING]: scripts.answer },
        // Code mode's sandbox: a fresh isolate per script (src/gateway/code-mode).
        workerLoaders: { [LOADER_BINDING]: {}, [CODE_LOADER_BINDING]: {} },
        unsafeDirectSockets: [{ host, port: ports?.gateway ?? options.port ?? 0 }],
      } as WorkerOptions,
      ...skills.map((s) => {
        const worker = workerOptionsOf(s.bundle, s.workerName);
        const port = ports?.skills.get(s.workerName) ?? 0;
        const serviceBindings = Object.fromEntries(
          Object.entries((worker.serviceBindings ?? {}) as Record<string, string | { name: string }>).map(([binding, target]) => [
            binding,
            (typeof target === "string" ? target : target.name) === gatewayName ? "gateway" : target,
          ]),
        );
        return {
          ...worker,
          serviceBindings,
          bindings: { ...(worker.bindings ?? {}), ...options.skillVars },
          unsafeDirectSockets: [{ host: "127.0.0.1", port }],
        } as WorkerOptions;
      }),
    ],
  } as MiniflareOptions;
}

/** Each skill's direct URL and manifest, read from the running mesh. */
async function meshSkillsOf(miniflare: Miniflare, skills: MeshWorker[]): Promise<MeshSkill[]> {
  const meshSkills: MeshSkill[] = [];
  for (const s of skills) {
    const url = (await miniflare.unsafeGetDirectURL(s.workerName)).toString().replace(/\/$/, "");
    const manifest = (await (await fetch(`${url}/manifest`)).json()) as SkillManifest;
    meshSkills.push({ dir: s.bundle.dir, workerName: s.workerName, binding: s.binding, url, manifest, pipeline: isPipelineDir(s.bundle.dir) });
  }
  return meshSkills;
}

/** The skills' Worker names and bindings, from their folder names (which must differ). */
function meshWorkersOf(bundles: Bundle[]): MeshWorker[] {
  const workers = bundles.map((bundle) => ({ bundle, workerName: workerNameOf(bundle.dir), binding: bindingNameOf(bundle.dir) }));
  const seen = new Map<string, string>();
  for (const { bundle, binding } of workers) {
    const other = seen.get(binding);
    if (other) throw new Error(`${other} and ${bundle.dir} would both be bound as ${binding}: give one folder another name`);
    seen.set(binding, bundle.dir);
  }
  return workers;
}

/**
 * Bundles (cached) and starts the mesh; registers the skills unless told not to.
 * @example const mesh = await startMesh({ skills: skillDirs(), adminToken: "dev" }); …; await mesh.dispose()
 */
export async function startMesh(options: MeshOptions): Promise<Mesh> {
  const dispatchedDirs = options.dispatched ?? [];
  const bundles = await bundleAll([options.gateway ?? ROOT, ...options.skills, ...dispatchedDirs], { unminified: options.unminified });
  const gatewayBundle = bundles[0]!;
  const skills = meshWorkersOf(bundles.slice(1, 1 + options.skills.length));
  const gatewayName = readWranglerConfig(gatewayBundle.configPath).name ?? "skillmesh-gateway";
  const scripts = new LocalScripts();
  const upload = (bundle: Bundle): DispatchedSkill => {
    const script = workerNameOf(bundle.dir);
    return { dir: bundle.dir, script, version: scripts.put(bundle, script, gatewayName, options.skillVars) };
  };
  const dispatched = bundles.slice(1 + options.skills.length).map(upload);
  let running = { gateway: gatewayBundle, skills };
  const miniflare = new Miniflare(miniflareOptionsOf(options, gatewayBundle, skills, scripts));
  try {
    await miniflare.ready;
    const gatewayUrl = (await miniflare.unsafeGetDirectURL("gateway")).toString().replace(/\/$/, "");
    /** Registers a skill of the local namespace by its script name (a pipeline folder as a pipeline). */
    const registerDispatched = (skill: DispatchedSkill, force = false) =>
      registerSkill(
        gatewayUrl,
        options.adminToken,
        { dispatch: skill.script },
        { ...(isPipelineDir(skill.dir) ? { pipeline: true } : {}), ...(force ? { force: true } : {}) },
      );
    const mesh: Mesh = {
      gatewayUrl,
      skills: await meshSkillsOf(miniflare, skills),
      dispatched,
      scripts,
      dispatch: async (dir, { register = true, force = false } = {}) => {
        const skill = upload(await bundleWorker(dir, { unminified: options.unminified }));
        mesh.dispatched = [...mesh.dispatched.filter((d) => d.script !== skill.script), skill];
        if (register) await registerDispatched(skill, force);
        return skill;
      },
      miniflare,
      dispose: () => miniflare.dispose(),
      reload: async (dirs) => {
        // Bundle first: a bundling error throws here and the running mesh is left as it was.
        const [nextGateway, ...nextBundles] = await bundleAll([options.gateway ?? ROOT, ...dirs], { unminified: options.unminified });
        const next = meshWorkersOf(nextBundles);
        // Same ports after the restart: the gateway's URL and every skill's direct URL stay valid.
        const ports: Ports = {
          gateway: Number(new URL(gatewayUrl).port),
          skills: new Map(mesh.skills.map((s) => [s.workerName, Number(new URL(s.url).port)])),
        };
        // A new skill gets a free port picked here: asked for port 0, Miniflare would reuse the
        // port of the Worker that had its position before — another skill's, still asked for.
        for (const s of next) if (!ports.skills.has(s.workerName)) ports.skills.set(s.workerName, await freePort("127.0.0.1"));
        try {
          await miniflare.setOptions(miniflareOptionsOf(options, nextGateway!, next, scripts, ports));
          mesh.skills = await meshSkillsOf(miniflare, next);
          running = { gateway: nextGateway!, skills: next };
        } catch (error) {
          // It bundled but does not start (or serve its manifest): back to the last good Workers.
          await miniflare.setOptions(miniflareOptionsOf(options, running.gateway, running.skills, scripts, ports));
          mesh.skills = await meshSkillsOf(miniflare, running.skills);
          throw error;
        }
      },
    };
    if (options.register ?? true) {
      for (const skill of mesh.skills)
        await registerSkill(gatewayUrl, options.adminToken, { binding: skill.binding }, skill.pipeline ? { pipeline: true } : {});
      for (const skill of mesh.dispatched) await registerDispatched(skill);
    }
    return mesh;
  } catch (error) {
    await miniflare.dispose();
    throw error;
  }
}

/** A registration the gateway refused or never answered: `status` 0 when it could not be reached. */
export class RegistrationError extends Error {
  constructor(
    what: string,
    /** Why, without the "registering …" prefix of the message. */
    readonly reason: string,
    readonly status: number,
  ) {
    super(`registering ${what}: ${reason}`);
  }
}

const isRedirect = (status: number) => status >= 300 && status < 400;
const redirectRefusal = (response: Response) =>
  `the gateway answered HTTP ${response.status} (a redirect to ${response.headers.get("location") ?? "somewhere"}), which is not followed with the admin token: set SKILLMESH_URL to the gateway's own URL`;

/** Calls the admin API; throws with its message on anything but 2xx. @example await adminCall(url, token, "GET", "/keys") */
export async function adminCall(gatewayUrl: string, adminToken: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${gatewayUrl}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: "manual", // the admin token goes to this gateway, never where a redirect points
  });
  if (isRedirect(response.status)) throw new Error(`${method} /admin${path}: ${redirectRefusal(response)}`);
  const answer: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const refusal = AdminErrorSchema.safeParse(answer).data?.error;
    // A refusal that names its problems (a package's) lists them, one a line.
    const problems =
      Array.isArray(refusal?.issues) && refusal.issues.every((issue) => typeof issue === "string") ?
        refusal.issues.map((issue) => `\n  - ${issue}`).join("")
      : "";
    throw new Error(`${method} /admin${path}: HTTP ${response.status} ${refusal?.message ?? ""}${problems}`);
  }
  return answer;
}

/**
 * Registers one deployment with a gateway's admin API and returns the answer.
 * @example await registerSkill("http://127.0.0.1:8787", token, { binding: "SKILL_HTML_EXTRACT" })
 */
export async function registerSkill(
  gatewayUrl: string,
  adminToken: string,
  endpoint: SkillEndpoint,
  extra: { registrationId?: string; ttlSeconds?: number; manifest?: SkillManifest; force?: boolean; pipeline?: boolean } = {},
): Promise<z.output<typeof RegistrationAnswerSchema>> {
  const what =
    "binding" in endpoint ? `binding ${endpoint.binding}`
    : "dispatch" in endpoint ? `script ${endpoint.dispatch}`
    : endpoint.url;
  let response: Response;
  try {
    response = await fetch(`${gatewayUrl}/admin/deployments`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ endpoint, ...extra }),
      signal: AbortSignal.timeout(30_000),
      redirect: "manual", // the admin token goes to this gateway, never where a redirect points
    });
  } catch (error) {
    // undici's "fetch failed" hides the reason in its cause (an AggregateError when it tried several addresses).
    const cause = (error as Error).cause as { code?: string; message?: string; errors?: Array<{ code?: string }> } | undefined;
    const why = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (error as Error).message;
    throw new RegistrationError(what, `cannot reach the gateway at ${gatewayUrl} (${why})`, 0);
  }
  if (isRedirect(response.status)) throw new RegistrationError(what, redirectRefusal(response), response.status);
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const refusal = AdminErrorSchema.safeParse(body);
    const changes = refusal.data?.error.issues as { changes?: string[] } | undefined;
    const detail = changes?.changes?.map((change) => `\n  - ${change}`).join("") ?? "";
    throw new RegistrationError(
      what,
      `HTTP ${response.status} ${refusal.data?.error.message ?? "(not a Skillmesh gateway's answer)"}${detail}`,
      response.status,
    );
  }
  const answer = RegistrationAnswerSchema.safeParse(body);
  if (!answer.success) throw new RegistrationError(what, `the answer is not a registration (is ${gatewayUrl} a Skillmesh gateway?)`, response.status);
  return answer.data;
}
