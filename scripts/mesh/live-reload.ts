/**
 * Live reload for `npm run dev`: watches the sources, rebundles what changed and restarts the
 * mesh on the same ports (Mesh.reload), then puts the registry back as it was — every
 * deployment re-registered (a skill whose definition changed with its new one, a removed folder
 * left out), every routing table re-applied — so canary weights and registrations made by hand
 * survive an edit even on the in-memory store, which a workerd restart empties. A Worker that
 * does not bundle is reported and the last good mesh keeps serving.
 */
import { type FSWatcher, existsSync, readdirSync, statSync, watch } from "node:fs";
import { basename, join, relative, sep } from "node:path";
import { checkContracts } from "../../src/registry/contracts/index.js";
import { type DeploymentsPageAnswer, DeploymentsPageAnswerSchema } from "../../src/admin/api/index.js";
import type { Deployment } from "../../src/registry/deployments/model.js";
import { ROOT } from "./bundle.js";
import { type Mesh, RegistrationError, adminCall, registerSkill } from "./index.js";

/** What a reload keeps of the registry: the deployments and routing tables of `GET /admin/deployments`. */
export type RegistryView = Pick<DeploymentsPageAnswer, "deployments" | "routes">;

/**
 * Every deployment and routing table of a gateway, following the admin API's pages.
 * @example const before = await readRegistry(mesh.gatewayUrl, token)
 */
export async function readRegistry(gatewayUrl: string, adminToken: string): Promise<RegistryView> {
  const view: RegistryView = { deployments: [], routes: {} };
  let cursor: string | undefined;
  do {
    const page = DeploymentsPageAnswerSchema.parse(
      await adminCall(gatewayUrl, adminToken, "GET", `/deployments${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`),
    );
    view.deployments.push(...page.deployments);
    Object.assign(view.routes, page.routes);
    cursor = page.nextCursor;
  } while (cursor);
  return view;
}

export interface RestoreReport {
  /** `greet@1.0.0 (new)`, `greet@1.0.0 (definition changed)`, `old@1.0.0 (removed)`. */
  changes: string[];
  /** Warnings a deployed gateway or the contract check would turn into refusals. */
  warnings: string[];
}

/**
 * Puts `before` back on the mesh's gateway after a reload: the mesh's skills registered by
 * binding with their current manifests, deployments registered by URL as they were, routing
 * tables re-applied for the versions still there, removed skills deregistered.
 */
export async function restoreRegistry(
  mesh: Mesh,
  adminToken: string,
  before: RegistryView,
  committed: () => Parameters<typeof checkContracts>[1],
): Promise<RestoreReport> {
  const report: RestoreReport = { changes: [], warnings: [] };
  const previous = new Map(before.deployments.map((d) => [d.id, d]));
  const served = new Set<string>();
  // The version that was stable registers first, so that it is the stable one again (the first
  // version of a name to register is; later ones join as canaries at 0%).
  const wasStable = (skill: Mesh["skills"][number]) => previous.get(`${skill.manifest.name}@${skill.manifest.version}`)?.role === "stable";
  const ordered = [...mesh.skills].sort((a, b) => Number(wasStable(b)) - Number(wasStable(a)));
  for (const skill of ordered) {
    const { name, version } = skill.manifest;
    const id = `${name}@${version}`;
    served.add(id);
    const old = previous.get(id);
    const endpoint = { binding: skill.binding };
    let answer: Awaited<ReturnType<typeof registerSkill>>;
    try {
      const pipeline = skill.pipeline ? { pipeline: true } : {};
      answer = await registerSkill(
        mesh.gatewayUrl,
        adminToken,
        endpoint,
        old && "binding" in old.endpoint ? { registrationId: old.registrationId, ...pipeline } : pipeline,
      );
    } catch (error) {
      if (!(error instanceof RegistrationError) || error.status !== 409) throw error;
      // The store kept the old definition (--redis): in development the edit wins, with a warning.
      report.warnings.push(`${id}: its definition changed under the same version (a deployed gateway refuses that: bump the version). ${error.reason}`);
      answer = await registerSkill(mesh.gatewayUrl, adminToken, endpoint, { force: true, ...(skill.pipeline ? { pipeline: true } : {}) });
    }
    const changed =
      !old ? "new"
      : old.contractHash !== answer.deployment.contractHash ? "definition changed"
      : undefined;
    if (changed) {
      report.changes.push(`${id} (${changed})`);
      for (const problem of checkContracts(
        [skill.manifest],
        committed().filter((c) => c.name === name),
      )) {
        if (!/no contract committed/.test(problem)) report.warnings.push(problem);
      }
    }
  }
  const bindings = new Set(mesh.skills.map((s) => s.binding));
  for (const old of before.deployments) {
    if (served.has(old.id)) continue;
    if ("binding" in old.endpoint && !bindings.has(old.endpoint.binding)) {
      await adminCall(mesh.gatewayUrl, adminToken, "DELETE", `/deployments/${encodeURIComponent(old.id)}`).catch(() => undefined); // gone already on the memory store
      report.changes.push(`${old.id} (removed)`);
    } else if ("url" in old.endpoint) {
      await reregister(mesh.gatewayUrl, adminToken, old, old.endpoint);
    }
  }
  const { deployments } = await readRegistry(mesh.gatewayUrl, adminToken);
  const versions = new Map<string, Set<string>>();
  for (const d of deployments) versions.set(d.name, (versions.get(d.name) ?? new Set()).add(d.version));
  for (const [name, table] of Object.entries(before.routes)) {
    const kept = Object.fromEntries(
      Object.entries(table).map(([group, weights]) => [
        group,
        Object.fromEntries(Object.entries(weights).filter(([version]) => versions.get(name)?.has(version))),
      ]),
    );
    const nonEmpty = Object.fromEntries(Object.entries(kept).filter(([, weights]) => Object.keys(weights).length));
    if (!Object.keys(nonEmpty).length) continue;
    await adminCall(mesh.gatewayUrl, adminToken, "PUT", `/skills/${encodeURIComponent(name)}/routes`, { routes: nonEmpty }).catch((error: Error) => {
      report.warnings.push(`${name}: its routing table could not be restored (${error.message})`);
    });
  }
  return report;
}

/** A deployment registered by URL, registered again as it was (its manifest, id and TTL). */
async function reregister(gatewayUrl: string, adminToken: string, deployment: Deployment, endpoint: { url: string }): Promise<void> {
  const extra = {
    manifest: deployment.manifest,
    registrationId: deployment.registrationId,
    ...(deployment.ttlSeconds ? { ttlSeconds: deployment.ttlSeconds } : {}),
    ...(deployment.pipeline ? { pipeline: true } : {}),
  };
  await registerSkill(gatewayUrl, adminToken, endpoint, extra).catch(() => undefined); // a URL that stopped answering stays out
}

/** Files whose change changes nothing served: editor droppings, hidden files, node_modules. */
const IGNORED = /(~|\.swp|\.tmp)$|(^|[/\\])(\.|node_modules[/\\])/;
/** Files whose change does not change a bundle: tests and docs (a package's Markdown is its content). */
const NOT_BUNDLED = /(\.test\.ts|\.md)$/;

/**
 * Calls `onChange` with the changed paths (relative to the repository) once edits settle.
 * Watches each directory itself (not `recursive`: Node's recursive watcher on Linux loses a file
 * that an editor or `sed -i` replaces), adding directories as they appear. Tests and Markdown
 * are not watched but under `everyFile` (a folder of Agent Skills packages: SKILL.md is what is served).
 * @example const stop = watchSources([join(ROOT, "skills"), join(ROOT, "src")], (paths) => reload(paths))
 */
export function watchSources(dirs: string[], onChange: (paths: string[]) => void, settleMs = 200, everyFile: string[] = []): () => void {
  const ignored = (path: string) => IGNORED.test(basename(path)) || (NOT_BUNDLED.test(path) && !everyFile.some((root) => path.startsWith(`${root}/`)));
  const pending = new Set<string>();
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  const changed = (path: string) => {
    pending.add(relative(ROOT, path).split(sep).join("/"));
    clearTimeout(timer);
    timer = setTimeout(() => {
      // Files that exist first: an editor's or sed's temporary files come and go.
      const paths = [...pending].sort((a, b) => Number(existsSync(join(ROOT, b))) - Number(existsSync(join(ROOT, a))));
      pending.clear();
      onChange(paths);
    }, settleMs);
  };
  const watchTree = (dir: string) => {
    if (watchers.has(dir) || ignored(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (_event, file) => {
        const path = file && join(dir, file.toString());
        if (!path || ignored(path)) return;
        if (isDirectory(path)) watchTree(path);
        changed(path);
      });
    } catch {
      return; // gone already
    }
    watcher.on("error", () => {
      watcher.close();
      watchers.delete(dir);
    });
    watchers.set(dir, watcher);
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) watchTree(join(dir, entry.name));
  };
  for (const dir of dirs) watchTree(dir);
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers.values()) watcher.close();
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
