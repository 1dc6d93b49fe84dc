/**
 * `npm run dev` — the whole mesh locally in workerd: the gateway and every folder of skills/,
 * registered with the gateway, on http://127.0.0.1:8787 (the embedded memory store).
 * `npm run dev -- --redis` — the same on a real redis-server (started here) through the local
 * Upstash REST endpoint, with the `upstash` driver. With UPSTASH_REDIS_REST_URL and
 * UPSTASH_REDIS_REST_TOKEN in the environment (and no --redis), on that Redis.
 * `npm run dev -- --auth` — require credentials as a deployed gateway does, and print an API key
 * for every skill.
 * `npm run dev -- --dispatch` — every skill uploaded into the local dispatch namespace instead of
 * bound to the gateway (src/federation/dispatch/local.ts, as Workers for Platforms serves them): registered by
 * script name, a skill's edit or a new skill folder served without restarting the gateway.
 * Options: --port N (0 = any free port), --verbose (Workers' logs), --skill DIR (one more skill
 * folder, e.g. a test fixture; repeatable), --skills-dir DIR (the folder of skill folders instead
 * of skills/), --agent-skills-dir DIR (the folder of Agent Skills packages instead of the
 * agent-skills/ beside the skills folder), --no-watch (no live reload).
 *
 * Every package of agent-skills/ (a folder with a SKILL.md) is registered after the skills it
 * uses, and again after every reload; an edit under agent-skills/ registers what changed (a
 * package changed under a version the gateway has is refused, as a deploy would refuse it).
 *
 * Live reload (scripts/mesh/live-reload.ts): an edit under skills/ (or --skills-dir), src/ or
 * routes/ (or a --skill folder) rebundles what changed, restarts the mesh on the same ports and restores the registry;
 * a new skill folder is served, a removed one deregistered. A Worker that does not bundle or
 * start is reported and the last good version keeps serving.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { committedContracts, pipelineProblems } from "./contracts.js";
import { ROOT, skillDirs } from "./mesh/bundle.js";
import { type Mesh, adminCall, startMesh } from "./mesh/index.js";
import { KeyCreatedSchema } from "../src/admin/api/index.js";
import { agentSkillDirs, registerAgentSkill } from "./mesh/agent-skills.js";
import { writeDevState } from "./mesh/dev-state.js";
import { type RegistryView, readRegistry, restoreRegistry, watchSources } from "./mesh/live-reload.js";
import type { SkillManifest } from "../src/skill/manifest.js";
import { startLocalUpstash } from "./redis-rest/serve.js";

const { values } = parseArgs({
  options: {
    redis: { type: "boolean", default: false },
    auth: { type: "boolean", default: false },
    port: { type: "string", default: process.env.PORT ?? "8787" },
    verbose: { type: "boolean", default: false },
    skill: { type: "string", multiple: true, default: [] },
    "skills-dir": { type: "string", default: join(ROOT, "skills") },
    "agent-skills-dir": { type: "string" },
    "no-watch": { type: "boolean", default: false },
    dispatch: { type: "boolean", default: false },
  },
});

/** How often `npm run dev` fires the gateway's scheduled handler. */
const ROLLOUT_TICK_MS = 5_000;

const stops: Array<() => Promise<void>> = [];
async function shutdown(code: number): Promise<never> {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  process.exit(code);
}
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

try {
  const adminToken = process.env.SKILLMESH_ADMIN_TOKEN || `dev-${randomBytes(12).toString("hex")}`;
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`--port ${values.port}: a port number (0 = any free port)`);
  // workerd's own error for a busy port is a long native stack trace: say it first, plainly.
  if (port !== 0 && (await portInUse("127.0.0.1", port))) {
    throw new Error(
      `Port ${port} on 127.0.0.1 is in use (another npm run dev?). Stop it, or pick another port: npm run dev -- --port ${port + 1} (0 = any free port).`,
    );
  }
  let upstash: { url: string; token: string } | undefined;
  let store = "memory";
  const { UPSTASH_REDIS_REST_URL: envUrl, UPSTASH_REDIS_REST_TOKEN: envToken } = process.env;
  if (values.redis) {
    const local = await startLocalUpstash(); // says how to install redis-server when it is missing
    stops.push(() => local.stop());
    upstash = { url: local.url, token: local.token };
    store = "upstash → a local redis-server";
    console.log(
      `redis-server on ${local.redisUrl}, Upstash REST endpoint on ${local.url}${envUrl ? " (--redis: UPSTASH_REDIS_REST_URL of the environment is not used)" : ""}`,
    );
  } else if (envUrl || envToken) {
    // The environment names a Redis (Upstash or any endpoint of its REST protocol): use it.
    if (!envUrl || !envToken)
      throw new Error("UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN go together: set both to use that Redis, or neither for the memory store");
    upstash = { url: envUrl, token: envToken };
    store = `upstash → ${envUrl} (UPSTASH_REDIS_REST_URL)`;
  }

  const skillsRoot = resolve(values["skills-dir"]);
  const extraDirs = values.skill.map((dir) => resolve(dir));
  /** The skills to serve: every folder of the skills folder (as it is now), and the --skill ones. */
  const meshSkillDirs = () => [...skillDirs(skillsRoot), ...extraDirs];
  const dirs = meshSkillDirs();
  console.log(`Bundling the gateway and ${dirs.length} skills with wrangler (cached after the first start)…`);
  const gatewayVars: Record<string, string> = {
    ...(values.auth ? { SKILLMESH_AUTH: "required" } : {}),
    ...(values.verbose ? { SKILLMESH_LOG_CALLS: "true" } : {}),
  };
  const dispatch = values.dispatch;
  const mesh = await startMesh({
    skills: dispatch ? [] : dirs,
    dispatched: dispatch ? dirs : [],
    adminToken,
    upstash,
    port,
    verbose: values.verbose,
    gatewayVars,
  });
  stops.push(() => mesh.dispose());
  // No Cron Triggers run locally: tick the rollouts (src/registry/delivery) as the gateway's once-a-minute
  // cron does in production, every few seconds so that a local rollout moves at a local pace.
  const ticker = setInterval(
    () =>
      void mesh.miniflare
        .getWorker("gateway")
        .then((gateway) => gateway.scheduled({ cron: "* * * * *" }))
        .catch(() => {}),
    ROLLOUT_TICK_MS,
  );
  stops.push(async () => clearInterval(ticker));

  const url = mesh.gatewayUrl;
  // Where it runs, for the other commands of the project its skills/ is in (skillmesh new prints its curl for it).
  // Removed on exit, however the process ends (wrangler's own SIGINT handler may exit before ours is done).
  process.once("exit", writeDevState(dirname(skillsRoot), { url, auth: values.auth, pid: process.pid }));
  const registry = await readRegistry(url, adminToken);
  // Pipelines checked against the skills they call, as `skillmesh contracts check` does.
  for (const problem of pipelineProblems(dirs, servedManifests(mesh, registry))) console.log(`⚠ ${problem}`);
  console.log(`\nSkillmesh gateway: ${url}   (store: ${store}; auth: ${values.auth ? "required" : "off, as a local default — --auth to require keys"})`);
  console.log(`  JSON-RPC: POST ${url}/rpc    MCP: POST ${url}/mcp\n`);
  const roleOf = (name: string, version: string) => {
    const deployment = registry.deployments.find((d) => d.id === `${name}@${version}`);
    const weight = registry.routes[name]?.["*"]?.[version];
    return `${deployment?.role ?? "?"}${weight === undefined ? "" : ` ${weight}%`}`;
  };
  for (const skill of mesh.skills) {
    const { name, version } = skill.manifest;
    console.log(`  ${`${name}@${version}`.padEnd(28)} ${roleOf(name, version).padEnd(12)} direct: ${skill.url}`);
  }
  for (const { name, version, endpoint } of registry.deployments) {
    if ("dispatch" in endpoint) console.log(`  ${`${name}@${version}`.padEnd(28)} ${roleOf(name, version).padEnd(12)} dispatched: ${endpoint.dispatch}`);
  }
  const packagesRoot = resolve(values["agent-skills-dir"] ?? join(dirname(skillsRoot), "agent-skills"));
  const packageLines = await registerPackages(url, adminToken, agentSkillDirs(packagesRoot));
  if (packageLines.length)
    console.log(
      `\nAgent Skills (${relative(ROOT, packagesRoot) || "."}/, served at ${url}/.well-known/agent-skills/index.json and over MCP):\n${packageLines.map((line) => `  ${line}`).join("\n")}`,
    );
  if (values.auth)
    console.log(`\nAPI key for every skill (send it as Authorization: Bearer …):\n  export SKILLMESH_KEY=${await createDevKey(url, adminToken)}`);
  const authHeader = values.auth ? ` -H "Authorization: Bearer $SKILLMESH_KEY"` : "";
  console.log(`
Try it:
  curl -s ${url}/rpc -H 'content-type: application/json'${authHeader} \\
    -d '{"jsonrpc":"2.0","method":"modbus.decode","params":{"frame":"11 03 00 6B 00 03 76 87"},"id":1}'
  MCP hosts and the Inspector: Streamable HTTP at ${url}/mcp

Admin API token (for /admin/*):
  export SKILLMESH_ADMIN_TOKEN=${adminToken}
  curl -s ${url}/admin/deployments -H "Authorization: Bearer $SKILLMESH_ADMIN_TOKEN"

${values["no-watch"] ? "" : `Watching ${relative(ROOT, skillsRoot) || "."}/, ${relative(ROOT, packagesRoot) || "."}/, src/ and routes/: an edit reloads what changed. `}Ctrl-C stops the mesh.`);
  if (!values["no-watch"]) {
    const watched = [skillsRoot, packagesRoot, join(ROOT, "src"), join(ROOT, "routes"), ...extraDirs];
    const reloader = liveReload(mesh, adminToken, meshSkillDirs, Boolean(upstash), packagesRoot, dispatch ? [skillsRoot, ...extraDirs] : undefined);
    const stopWatching = watchSources(watched, (paths) => reloader.schedule(paths), undefined, [packagesRoot]);
    stops.push(async () => stopWatching());
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  await shutdown(1);
}

/** Whether something already listens on host:port. */
function portInUse(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "EADDRINUSE"));
    probe.listen(port, host, () => probe.close(() => resolve(false)));
  });
}

/** A key for every skill and group, named "dev"; printed once. */
async function createDevKey(url: string, adminToken: string): Promise<string> {
  return KeyCreatedSchema.parse(await adminCall(url, adminToken, "POST", "/keys", { name: "dev", skills: ["*"], groups: ["*"] })).key;
}

/**
 * Registers each package folder with the gateway; a line for each: its version and whether it
 * changed, or why the gateway refused it (a refusal does not stop the others).
 */
async function registerPackages(url: string, adminToken: string, dirs: string[]): Promise<string[]> {
  const lines: string[] = [];
  for (const dir of dirs) {
    try {
      const pkg = await registerAgentSkill(url, adminToken, dir);
      lines.push(
        `${`${pkg.name}@${pkg.version}`.padEnd(28)} ${pkg.files.length} file${pkg.files.length === 1 ? "" : "s"}, tools: ${pkg.tools.join(", ") || "none"}${pkg.changed ? "" : " (unchanged)"}`,
      );
      // A new version beside a stable one serves nobody until it is promoted (or canaried): say how.
      if (pkg.stable !== pkg.version) {
        const promote = `curl -s -X POST ${url}/admin/agent-skills/${encodeURIComponent(pkg.name)}/promote -H "authorization: Bearer $SKILLMESH_ADMIN_TOKEN" -H 'content-type: application/json' -d '{"version":"${pkg.version}"}'`;
        lines.push(
          `  ↳ a canary at 0%: callers still get ${pkg.stable}. Promote it with\n      ${promote}\n    (or split callers first: …/canary with {"version":"${pkg.version}","groups":{"*":10}})`,
        );
      }
    } catch (error) {
      lines.push(`✗ ${relative(ROOT, dir)}: ${(error as Error).message}`);
    }
  }
  return lines;
}

/** The manifests of the skills the mesh serves: bound ones as their Workers say, dispatched ones as registered. */
function servedManifests(mesh: Mesh, registry: RegistryView): SkillManifest[] {
  const scripts = new Set(mesh.dispatched.map((d) => d.script));
  return [
    ...mesh.skills.map((s) => s.manifest),
    ...registry.deployments.filter((d) => "dispatch" in d.endpoint && scripts.has(d.endpoint.dispatch)).map((d) => d.manifest),
  ];
}

/**
 * In `--dispatch` mode, an edit of skill folders only: each touched folder bundled and uploaded
 * into the local namespace again and registered (its edit wins over a definition the store kept,
 * as in a reload), a removed folder's script deleted and deregistered. The gateway keeps running.
 */
async function redispatch(mesh: Mesh, adminToken: string, dirs: string[], paths: string[]): Promise<string[]> {
  const lines: string[] = [];
  const touched = dirs.filter((dir) => paths.some((path) => `${resolve(ROOT, path)}/`.startsWith(`${dir}/`)));
  // A module beside the folders (shared by several) changed: every skill again (unchanged bundles come from the cache).
  for (const dir of touched.length ? touched : dirs) {
    try {
      const skill = await mesh.dispatch(dir, { force: true });
      lines.push(`✓ ${relative(ROOT, dir)} uploaded as ${skill.script} (${skill.version})`);
    } catch (error) {
      lines.push(`✗ ${relative(ROOT, dir)}: ${(error as Error).message}`);
    }
  }
  const gone = new Set(mesh.dispatched.filter((d) => !dirs.includes(d.dir)).map((d) => d.script));
  if (!gone.size) return lines;
  for (const script of gone) mesh.scripts.delete(script);
  mesh.dispatched = mesh.dispatched.filter((d) => !gone.has(d.script));
  for (const d of (await readRegistry(mesh.gatewayUrl, adminToken)).deployments) {
    if (!("dispatch" in d.endpoint) || !gone.has(d.endpoint.dispatch)) continue;
    await adminCall(mesh.gatewayUrl, adminToken, "DELETE", `/deployments/${encodeURIComponent(d.id)}`).catch(() => undefined);
    lines.push(`✓ ${d.id} removed (its folder is gone)`);
  }
  return lines;
}

/**
 * Runs reloads one at a time; edits made during a reload are taken by the next one. With
 * `dispatchRoots` (`--dispatch`), an edit under them uploads the skills again (redispatch) instead
 * of restarting the mesh.
 */
function liveReload(mesh: Mesh, adminToken: string, meshSkillDirs: () => string[], persistentStore: boolean, packagesRoot: string, dispatchRoots?: string[]) {
  const queued = new Set<string>();
  let chain = Promise.resolve();
  const reload = async () => {
    if (!queued.size) return;
    const paths = [...queued];
    queued.clear();
    const started = Date.now();
    const packageDirs = agentSkillDirs(packagesRoot);
    if (paths.every((path) => resolve(ROOT, path).startsWith(`${packagesRoot}/`))) {
      // Only packages changed: register them again, the Workers keep running.
      console.log(`↻ ${paths.length === 1 ? paths[0] : `${paths[0]} and ${paths.length - 1} more`} changed: registering the Agent Skills again …`);
      for (const line of await registerPackages(mesh.gatewayUrl, adminToken, packageDirs))
        console.log(`  ${line.startsWith("✗") || line.startsWith("  ↳") ? line : `✓ ${line}`}`);
      return;
    }
    const what = paths.length === 1 ? paths[0] : `${paths[0]} and ${paths.length - 1} more`;
    if (dispatchRoots && paths.every((path) => dispatchRoots.some((root) => resolve(ROOT, path).startsWith(`${root}/`)))) {
      console.log(`↻ ${what} changed: uploading into the local dispatch namespace (the gateway keeps running) …`);
      for (const line of await redispatch(mesh, adminToken, meshSkillDirs(), paths)) console.log(`  ${line}`);
      return;
    }
    console.log(`↻ ${what} changed: reloading …`);
    const before = await readRegistry(mesh.gatewayUrl, adminToken);
    let failure: Error | undefined;
    try {
      await mesh.reload(dispatchRoots ? [] : meshSkillDirs());
    } catch (error) {
      failure = error as Error;
    }
    // The gateway restarted: the dispatched skills registered again, with what their folders hold now.
    const uploads = dispatchRoots ? await redispatch(mesh, adminToken, meshSkillDirs(), []) : [];
    // Also after a failure: a Worker that bundled but did not start had the mesh restarted twice.
    const report = await restoreRegistry(mesh, adminToken, before, () => committedContracts());
    report.warnings.push(...uploads.filter((line) => line.startsWith("✗")).map((line) => line.slice(2)));
    report.warnings.push(...pipelineProblems(meshSkillDirs(), servedManifests(mesh, await readRegistry(mesh.gatewayUrl, adminToken))));
    if (failure) {
      console.error(`✗ ${failure.message}\n  Still serving the last good version; save again to retry.`);
      return;
    }
    const changes = report.changes.length ? `: ${report.changes.join(", ")}` : "";
    // The packages again: a memory store restarted empty, and a package may name a skill that changed.
    for (const line of await registerPackages(mesh.gatewayUrl, adminToken, packageDirs)) if (line.startsWith("✗")) report.warnings.push(line.slice(2));
    console.log(`  ✓ reloaded in ${((Date.now() - started) / 1000).toFixed(1)} s${changes}`);
    for (const warning of report.warnings) console.log(`  ⚠ ${warning}`);
    // The memory store restarted empty: the printed key is gone with it (--redis keeps keys).
    if (values.auth && !persistentStore)
      console.log(`  the memory store restarted: new API key\n  export SKILLMESH_KEY=${await createDevKey(mesh.gatewayUrl, adminToken)}`);
  };
  return {
    schedule(paths: string[]) {
      for (const path of paths) queued.add(path);
      chain = chain.then(reload).catch((error: Error) => console.error(`✗ reload failed: ${error.message}`));
    },
  };
}
