/**
 * `npm run deploy -- --dry-run [--outdir dist]` bundles the gateway and every skill with
 * wrangler (`deploy --dry-run`, cached by the sources: scripts/mesh/bundle.ts) into the outdir,
 * prints each bundle's size, and runs the contract check (a skill without a committed contract
 * fails it). Needs no account.
 *
 * `npm run deploy [-- --register-timeout 60] [--env staging]` deploys for real (the gateway's
 * wrangler.toml top level, or its `[env.<name>]`), printing each step as it goes. A gateway with a
 * dispatch namespace (`SKILL_NAMESPACE`) gets every skill it does not bind uploaded into the
 * namespace (created when missing) with the outbound Worker (workers/egress), is itself uploaded
 * only when its build changed (`SKILLMESH_BUILD`), and has the scripts no skill folder holds any
 * more retired (docs/guides/deploying.md "Where skills run"):
 *   1. checks everything it can before any upload: credentials, the secrets' values, the
 *      contracts (contracts/), that no skill changed under a version the target gateway
 *      (SKILLMESH_URL) has registered, that every skill trusting the caller context has a binding;
 *   2. uploads each skill's bundle with `wrangler deploy --no-bundle` (the bundle the checks
 *      read, so what is uploaded is what was checked), then the gateway's (its service bindings name the
 *      skills); the gateway with the secrets set in this process's environment (`--secrets-file`,
 *      a 0600 file removed afterwards, on Ctrl-C too); a secret not set here keeps its value on
 *      Cloudflare. Skills get no secret: one reached by URL gets the public key of
 *      SKILLMESH_HOP_KEY (`--var SKILLMESH_HOP_PUBLIC_KEY:…`);
 *   3. registers every skill with the gateway's admin API (SKILLMESH_URL, https or loopback
 *      only, else the workers.dev URL wrangler printed for the gateway; redirects are not
 *      followed, so the admin token goes nowhere else), a pipeline folder as a pipeline, waiting up to --register-timeout seconds for a
 *      gateway that does not answer yet, with wrangler's version id as the registration id.
 *   4. registers every Agent Skills package of agent-skills/ (its files go to the gateway's R2
 *      bucket), after the skills it names.
 * It stops at the first failure with a report of what was done and what was not. Nothing is
 * registered unless every upload succeeded, and a re-run is always safe: an upload of the same
 * code is a new version of the same Worker, and a registration of a deployment the gateway has
 * keeps its role (stable, canary). Wrangler needs CLOUDFLARE_API_TOKEN (and CLOUDFLARE_ACCOUNT_ID
 * when the token sees several accounts); CLOUDFLARE_API_BASE_URL points it elsewhere (tests).
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { z } from "zod";
import { RETIRED_HOP_SECRET, hopPublicKeyOf } from "../src/protocols/hop/index.js";
import { type Bundle, ROOT, bundleAll, isPipelineDir, skillDirs, wranglerErrorOf } from "./mesh/bundle.js";
import type { WranglerConfig } from "./mesh/wrangler-config.js";
import {
  GATEWAY_SECRETS,
  type SecretsPlan,
  gatewayUrlRefusal,
  gatewayBuildOf,
  registrationEndpointOf,
  sameVersionChanges,
  secretsFor,
  skillVarsOf,
} from "./mesh/deploy-plan.js";
import { DeploymentSchema, type SkillEndpoint } from "../src/registry/deployments/model.js";
import { NAMESPACE_BINDING } from "../src/federation/dispatch/index.js";
import type { SkillManifest } from "../src/skill/manifest.js";

const run = promisify(execFile);

/**
 * What loads wrangler and miniflare (~2.3 s of imports), imported once the checks that need
 * neither have passed: a deploy refused for its credentials, secrets or URL says so at once.
 */
async function tools() {
  const [config, contracts, mesh, packages] = await Promise.all([
    import("./mesh/wrangler-config.js"),
    import("./contracts.js"),
    import("./mesh/index.js"),
    import("./mesh/agent-skills.js"),
  ]);
  return {
    readWranglerConfig: config.readWranglerConfig,
    environmentOf: config.environmentOf,
    dispatchedBindingsRefusal: config.dispatchedBindingsRefusal,
    contractReport: contracts.contractReport,
    RegistrationError: mesh.RegistrationError,
    registerSkill: mesh.registerSkill,
    adminCall: mesh.adminCall,
    agentSkillDirs: packages.agentSkillDirs,
    registerAgentSkill: packages.registerAgentSkill,
  };
}
type Tools = Awaited<ReturnType<typeof tools>>;

const WRANGLER = join(ROOT, "node_modules/wrangler/bin/wrangler.js");

const { values } = parseArgs({
  options: {
    "dry-run": { type: "boolean", default: false },
    outdir: { type: "string", default: "dist" },
    "register-timeout": { type: "string", default: "60" },
    env: { type: "string" },
  },
});

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/**
 * The mesh a deploy of environment `envName` makes: the gateway's configuration (its top level,
 * or its `[env.<name>]`), its dispatch namespace and the namespace's outbound Worker, the skills it
 * binds (by Worker name), and why a skill's configuration may not go into the namespace (it binds
 * what the outbound Worker cannot see) — what the dry run prints and the deploy does, decided once.
 * Throws when the gateway's wrangler.toml has no such environment.
 */
function meshPlanOf(envName: string | undefined, loaded: Tools) {
  const { readWranglerConfig, environmentOf, dispatchedBindingsRefusal } = loaded;
  const gatewayConfigPath = join(ROOT, "wrangler.toml");
  if (envName && environmentOf(gatewayConfigPath, envName) !== envName)
    throw new Error(`--env ${envName}, but the gateway's wrangler.toml has no [env.${envName}]`);
  const gatewayConfig = readWranglerConfig(gatewayConfigPath, envName);
  // Skills the gateway does not bind go into its dispatch namespace, when it has one.
  const namespace = gatewayConfig.dispatch_namespaces?.find((n) => n.binding === NAMESPACE_BINDING);
  const bindingByService = new Map<string, string>((gatewayConfig.services ?? []).map((s) => [s.service, s.binding]));
  const egress = namespace?.outbound ? egressUploadOf(namespace.outbound.service, envName, loaded) : undefined;
  /** Whether a skill (by its Worker name) goes into the namespace. */
  const dispatches = (name: string) => !!namespace && !bindingByService.has(name);
  /** Why a skill going into the namespace may not (it binds what reaches past the outbound Worker), or undefined. */
  const dispatchRefusal = (config: WranglerConfig) => (dispatches(config.name!) ? dispatchedBindingsRefusal(config, gatewayConfig.name!) : undefined);
  return { gatewayConfigPath, gatewayConfig, namespace, bindingByService, egress, dispatches, dispatchRefusal };
}

async function dryRun(): Promise<void> {
  const loaded = await tools();
  const { readWranglerConfig, environmentOf, contractReport } = loaded;
  // The mesh a deploy of this environment would make: each Worker's name there, and where it goes.
  const envName = values.env;
  let plan: ReturnType<typeof meshPlanOf>;
  try {
    plan = meshPlanOf(envName, loaded);
  } catch (error) {
    console.error(`A deploy would stop here: ${(error as Error).message}`);
    process.exit(1);
  }
  const { gatewayConfigPath, namespace, egress } = plan;
  const dirs = [ROOT, ...skillDirs(), ...(egress ? [EGRESS_DIR] : [])];
  const outRoot = resolve(ROOT, values.outdir);
  console.log(`Bundling ${dirs.length} Workers with wrangler into ${relative(ROOT, outRoot) || "."}/ …`);
  const bundles = await bundleAll(dirs, { outRoot });
  const refusals: string[] = [];
  const rows = bundles.map((bundle) => {
    const env = environmentOf(bundle.configPath, envName);
    const config = readWranglerConfig(bundle.configPath, env);
    const isGateway = resolve(bundle.configPath) === resolve(gatewayConfigPath);
    const isEgress = !!egress && resolve(bundle.configPath) === resolve(egress.configPath);
    const dispatched = !isGateway && !isEgress && plan.dispatches(config.name!);
    const refusal = dispatched ? plan.dispatchRefusal(config) : undefined;
    if (refusal) refusals.push(`${config.name} (${relative(ROOT, bundle.configPath)}): ${refusal}`);
    const where =
      isGateway ? "the gateway"
      : isEgress ? `the outbound Worker of ${namespace!.namespace}`
      : dispatched ? `script of ${namespace!.namespace}`
      : "Worker";
    return { bundle, name: config.name ?? relative(ROOT, bundle.dir), where };
  });
  printSizes(rows, envName);
  if (refusals.length) {
    console.error(
      `\nA deploy would stop here: a skill binds what its dispatch namespace's outbound Worker cannot see\n${refusals.map((r) => `  ✗ ${r}`).join("\n")}`,
    );
    process.exit(1);
  }
  // What a real deploy checks first (but the gateway's registry, which needs credentials).
  console.log("\nChecking the contracts (contracts/) …");
  const { problems } = await contractReport();
  if (problems.length) {
    console.error(`A deploy would stop here: the contract check failed\n${problems.map((p) => `  ✗ ${p}`).join("\n")}`);
    process.exit(1);
  }
  console.log("  ✓ every skill and Agent Skill matches its committed contract");
}

/** The answer of `GET /admin/skills/:name`, as far as the deploy reads it. */
const RegisteredSkillSchema = z.object({ deployments: z.array(DeploymentSchema.pick({ id: true, manifest: true })) });

/**
 * What the target gateway has registered of these skills; undefined when it cannot be reached
 * (a first deploy: the gateway is not up yet). A refused admin token stops the deploy here.
 */
async function registeredDeployments(
  gatewayUrl: string,
  adminToken: string,
  names: string[],
): Promise<Array<{ id: string; manifest: SkillManifest }> | undefined> {
  const read = async (name: string) => {
    const response = await fetch(`${gatewayUrl}/admin/skills/${encodeURIComponent(name)}`, {
      headers: { authorization: `Bearer ${adminToken}` },
      redirect: "manual",
      signal: AbortSignal.timeout(15_000),
    }).catch(() => undefined);
    if (!response) return undefined; // not reachable
    if (response.status === 404) return []; // not registered there yet
    if (response.status === 401 || response.status === 403)
      throw new Error(`Not deploying: the gateway at ${gatewayUrl} refused the admin token (SKILLMESH_ADMIN_TOKEN)`);
    const answer = RegisteredSkillSchema.safeParse(await response.json().catch(() => undefined));
    if (!response.ok || !answer.success)
      throw new Error(`Not deploying: GET ${gatewayUrl}/admin/skills/${name} answered HTTP ${response.status}, not the deployments of ${name}`);
    return answer.data.deployments;
  };
  const answers = await Promise.all(names.map(read));
  return answers.some((answer) => answer === undefined) ? undefined : answers.flatMap((answer) => answer!);
}

/** Each Worker a deploy would upload, by its name in the environment deployed, with its sizes and what it is there. */
function printSizes(rows: Array<{ bundle: Bundle; name: string; where: string }>, envName: string | undefined): void {
  console.log(`\n${envName ? `--env ${envName}: ` : ""}${rows.length} Workers`);
  console.log(`${"worker".padEnd(34)}${"bundle".padStart(12)}${"gzip".padStart(12)}  ${"file".padEnd(44)}  as`);
  for (const { bundle, name, where } of rows) {
    const gzip = gzipSync(readFileSync(bundle.scriptPath)).length;
    console.log(`${name.padEnd(34)}${kib(bundle.bytes).padStart(12)}${kib(gzip).padStart(12)}  ${relative(ROOT, bundle.scriptPath).padEnd(44)}  ${where}`);
  }
}

/** A deploy that stopped: what it was doing, why, and what is done and not. */
class DeployStopped extends Error {
  constructor(
    readonly step: string,
    readonly reason: string,
    readonly done: string[],
    readonly notDone: string[],
    readonly advice: string,
  ) {
    super(`${step}: ${reason}`);
  }
}

/** One Worker to upload: a skill, the namespace's outbound Worker or the gateway. */
interface Upload {
  name: string;
  configPath: string;
  /** The wrangler environment (`--env`) it is uploaded as, when its wrangler.toml defines the one deployed. */
  env?: string;
  /** A script of this dispatch namespace (`--dispatch-namespace`), not a Worker of the account. */
  namespace?: string;
  /** Its bundle (scripts/mesh/bundle.ts), uploaded as it is. */
  scriptPath: string;
  secrets: SecretsPlan;
  /** Vars added to wrangler.toml's (`--var`): a skill reached by URL gets the gateway's public hop key. */
  vars: Record<string, string>;
  /** Skills only: how the gateway reaches it (undefined until uploaded when it is by URL). */
  binding?: string;
  trustsContext?: boolean;
  /** Skills only: a pipeline folder, registered with `"pipeline": true`. */
  pipeline?: boolean;
}

/** The namespace's outbound Worker (src/federation/egress): uploaded with the skills when the namespace names one. */
const EGRESS_DIR = join(ROOT, "workers/egress");

/** The outbound Worker's upload, for the environment deployed; refused when the gateway's namespace names another Worker. */
function egressUploadOf(service: string, envName: string | undefined, { readWranglerConfig, environmentOf }: Tools): Omit<Upload, "scriptPath"> {
  const configPath = join(EGRESS_DIR, "wrangler.toml");
  const env = environmentOf(configPath, envName);
  const name = readWranglerConfig(configPath, env).name!;
  if (name !== service)
    throw new Error(
      `Not deploying: the dispatch namespace's outbound Worker is ${service}, but workers/egress deploys as ${name}${envName ? ` in --env ${envName}` : ""}`,
    );
  return { name, configPath, ...(env ? { env } : {}), secrets: { provided: {}, kept: [] }, vars: {} };
}

/** Calls the account's part of the Cloudflare API (as wrangler does, at CLOUDFLARE_API_BASE_URL when set). */
type CloudflareApi = (method: string, path: string, body?: unknown) => Promise<{ status: number; result: unknown }>;

/** The Cloudflare API of the account in CLOUDFLARE_ACCOUNT_ID, or undefined without one. */
function cloudflareApi(env: NodeJS.ProcessEnv): CloudflareApi | undefined {
  const { CLOUDFLARE_ACCOUNT_ID: account, CLOUDFLARE_API_TOKEN: token } = env;
  if (!account || !token) return undefined;
  const base = (env.CLOUDFLARE_API_BASE_URL || "https://api.cloudflare.com/client/v4").replace(/\/$/, "");
  return async (method, path, body) => {
    const response = await fetch(`${base}/accounts/${account}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      redirect: "manual",
      signal: AbortSignal.timeout(30_000),
    });
    const answer = (await response.json().catch(() => undefined)) as { result?: unknown; errors?: Array<{ message?: string }> } | undefined;
    if (!response.ok && response.status !== 404)
      throw new Error(`${method} ${path}: HTTP ${response.status} ${answer?.errors?.map((e) => e.message).join("; ") ?? ""}`);
    return { status: response.status, result: answer?.result };
  };
}

/** The plain vars of a Worker's live version (its settings), empty when it has none or does not exist. */
async function liveVars(api: CloudflareApi, worker: string): Promise<Record<string, string>> {
  const { status, result } = await api("GET", `/workers/scripts/${encodeURIComponent(worker)}/settings`);
  if (status !== 200) return {};
  const settings = z.object({ bindings: z.array(z.object({ name: z.string(), type: z.string(), text: z.string().optional() })) }).safeParse(result);
  const vars = (settings.data?.bindings ?? []).flatMap((b) => (b.type === "plain_text" && b.text !== undefined ? [[b.name, b.text] as const] : []));
  return Object.fromEntries(vars);
}

/** Creates the dispatch namespace when the account has none of that name; whether it did. */
async function ensureNamespace(api: CloudflareApi, name: string): Promise<boolean> {
  if ((await api("GET", `/workers/dispatch/namespaces/${encodeURIComponent(name)}`)).status === 200) return false;
  await api("POST", "/workers/dispatch/namespaces", { name });
  return true;
}

async function wrangler(args: string[]): Promise<string> {
  const { stdout, stderr } = await run(process.execPath, [WRANGLER, ...args], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  return `${stdout}\n${stderr}`;
}

/** Uploads one Worker with its secrets; returns wrangler's version id and workers.dev URL. */
async function upload(worker: Upload, secretsDir: string): Promise<{ versionId?: string; url?: string }> {
  const args = [
    "deploy",
    worker.scriptPath,
    "--no-bundle",
    "-c",
    worker.configPath,
    ...(worker.env ? ["--env", worker.env] : []),
    ...(worker.namespace ? ["--dispatch-namespace", worker.namespace] : []),
    ...Object.entries(worker.vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
  ];
  if (Object.keys(worker.secrets.provided).length) {
    const file = join(secretsDir, `${worker.name}.json`);
    writeFileSync(file, JSON.stringify(worker.secrets.provided), { mode: 0o600 });
    args.push("--secrets-file", file);
  }
  let output: string;
  try {
    output = await wrangler(args);
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(wranglerErrorOf(`${stdout}\n${stderr}`), { cause: error });
  }
  return { versionId: output.match(/Current Version ID:\s*(\S+)/)?.[1], url: output.match(/https:\/\/\S+\.workers\.dev/)?.[0] };
}

/** Registers one skill, waiting (polling each second) while the gateway is unreachable or answers 5xx. */
async function registerWhenReady(
  gatewayUrl: string,
  adminToken: string,
  endpoint: SkillEndpoint,
  extra: { registrationId?: string; pipeline?: boolean },
  deadline: number,
  { registerSkill, RegistrationError }: Tools,
) {
  let waiting = false;
  const patience = Math.max(0, Math.round((deadline - Date.now()) / 1000));
  for (;;) {
    try {
      return await registerSkill(gatewayUrl, adminToken, endpoint, extra);
    } catch (error) {
      const transient = error instanceof RegistrationError && (error.status === 0 || error.status >= 500);
      if (!transient || Date.now() >= deadline) throw error;
      if (!waiting) console.log(`  ${error.reason}; retrying each second for up to ${patience} s (--register-timeout) …`);
      waiting = true;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/**
 * Retires what the namespace serves but skills/ no longer has: every deployment the gateway has
 * registered by a script name that is not one of `current` is deregistered, then its script is
 * deleted from the namespace (in that order: no call is routed to a deleted script). The deploy
 * owns the namespace: a script registered by hand, not from skills/, is retired too.
 */
async function retireScripts(gatewayUrl: string, adminToken: string, namespace: string, current: Set<string>, api: CloudflareApi, { adminCall }: Tools) {
  const retired: string[] = [];
  const page = z.object({ deployments: z.array(DeploymentSchema.pick({ id: true, endpoint: true })), nextCursor: z.string().optional() });
  const gone = new Set<string>();
  let cursor: string | undefined;
  do {
    const answer = page.parse(await adminCall(gatewayUrl, adminToken, "GET", `/deployments${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`));
    for (const { id, endpoint } of answer.deployments) {
      if (!("dispatch" in endpoint) || current.has(endpoint.dispatch)) continue;
      await adminCall(gatewayUrl, adminToken, "DELETE", `/deployments/${encodeURIComponent(id)}`);
      console.log(`  ✓ ${id} retired: its script ${endpoint.dispatch} is in no skill folder`);
      retired.push(`${id} retired`);
      gone.add(endpoint.dispatch);
    }
    cursor = answer.nextCursor;
  } while (cursor);
  for (const script of gone) {
    const { status } = await api("DELETE", `/workers/dispatch/namespaces/${encodeURIComponent(namespace)}/scripts/${encodeURIComponent(script)}`);
    console.log(`  ✓ ${script} ${status === 404 ? "was not in" : "deleted from"} ${namespace}`);
  }
  return retired;
}

async function deploy(): Promise<void> {
  const env = process.env;
  const adminToken = env.SKILLMESH_ADMIN_TOKEN;
  if (!adminToken || !env.CLOUDFLARE_API_TOKEN) {
    throw new Error(
      "npm run deploy needs CLOUDFLARE_API_TOKEN (for wrangler) and SKILLMESH_ADMIN_TOKEN (the gateway's admin token; SKILLMESH_URL too unless the gateway is on workers.dev); `npm run deploy -- --dry-run` needs none",
    );
  }
  const registerTimeout = z.coerce.number().int().min(0).max(3_600).safeParse(values["register-timeout"]);
  if (!registerTimeout.success) throw new Error("--register-timeout is a number of seconds (0–3600)");

  // Everything that can be checked is checked before the first upload.
  if (env.SKILLMESH_HOP_SECRET) throw new Error(`Not deploying: ${RETIRED_HOP_SECRET}`);
  const urlRefusal = env.SKILLMESH_URL ? gatewayUrlRefusal(env.SKILLMESH_URL) : undefined;
  if (urlRefusal) throw new Error(`Not deploying: ${urlRefusal}`);
  const gatewaySecrets = secretsFor(GATEWAY_SECRETS, env);
  const hopPublicKey = env.SKILLMESH_HOP_KEY ? await hopPublicKeyOf(env.SKILLMESH_HOP_KEY) : undefined;
  const loaded = await tools();
  const { readWranglerConfig, environmentOf, contractReport, RegistrationError, agentSkillDirs, registerAgentSkill } = loaded;
  // The mesh deployed: the gateway's top level, or its `[env.<name>]` (a staging mesh beside production).
  const envName = values.env;
  let plan: ReturnType<typeof meshPlanOf>;
  try {
    plan = meshPlanOf(envName, loaded);
  } catch (error) {
    throw new Error(`Not deploying: ${(error as Error).message}`, { cause: error });
  }
  const { gatewayConfigPath, gatewayConfig, namespace, bindingByService, egress } = plan;
  const api = cloudflareApi(env);
  if (namespace && !api)
    throw new Error(`Not deploying: a deploy into the dispatch namespace ${namespace.namespace} needs CLOUDFLARE_ACCOUNT_ID (its account's id)`);
  let since = Date.now();
  console.log("Checking the contracts (contracts/) …");
  const { problems, current } = await contractReport();
  if (problems.length) throw new Error(`Not deploying: the contract check failed\n${problems.map((p) => `  ✗ ${p}`).join("\n")}`);
  console.log(`  ✓ every skill and Agent Skill matches its committed contract (${seconds(since)})`);
  // The target gateway's registry: a definition changed under a version it serves never reaches an upload.
  if (env.SKILLMESH_URL) {
    const gatewayUrl = env.SKILLMESH_URL.replace(/\/$/, "");
    const registered = await registeredDeployments(gatewayUrl, adminToken, [...new Set(current.map((m) => m.name))]);
    if (!registered) console.log(`  (the gateway at ${gatewayUrl} does not answer yet: what it has registered is checked when the skills register)`);
    const changed = registered ? sameVersionChanges(current, registered) : [];
    if (changed.length) throw new Error(`Not deploying: a skill changed under a version the gateway serves\n${changed.map((p) => `  ✗ ${p}`).join("\n")}`);
    if (registered) console.log(`  ✓ no skill changed under a version ${gatewayUrl} has registered`);
  }
  // What is uploaded is what was checked: each Worker's bundle (cached by its sources; the
  // contract check bundled the skills already), sent as it is (`--no-bundle`).
  since = Date.now();
  const bundles = new Map(
    (await bundleAll([...skillDirs(), ROOT, ...(egress ? [EGRESS_DIR] : [])])).map((bundle) => [resolve(bundle.configPath), bundle.scriptPath]),
  );
  console.log(`  ✓ every Worker bundled (${seconds(since)})`);
  const skills: Upload[] = skillDirs().map((dir) => {
    const configPath = join(dir, "wrangler.toml");
    const skillEnv = environmentOf(configPath, envName);
    const config = readWranglerConfig(configPath, skillEnv);
    const skill = { name: config.name!, trustsContext: config.vars?.SKILLMESH_TRUST_CONTEXT === "true" };
    // A skill going into the dispatch namespace binds nothing that reaches past its outbound Worker.
    const refusal = plan.dispatchRefusal(config);
    if (refusal) throw new Error(`Not deploying: ${skill.name} (${relative(ROOT, configPath)}): ${refusal}`);
    if (skill.trustsContext && config.workers_dev !== false)
      throw new Error(`Not deploying: ${skill.name} trusts the caller context, so it must set workers_dev = false`);
    if (skill.trustsContext) registrationEndpointOf(skill, bindingByService, undefined, namespace?.namespace); // throws when it has neither binding nor namespace
    const binding = bindingByService.get(skill.name);
    // No skill gets a secret; one reached by URL gets the key to check the gateway's signatures with.
    return {
      ...skill,
      configPath,
      ...(skillEnv ? { env: skillEnv } : {}),
      ...(!binding && namespace ? { namespace: namespace.namespace } : {}),
      scriptPath: bundles.get(resolve(configPath))!,
      secrets: { provided: {}, kept: [] },
      vars: skillVarsOf({ bound: !!binding || !!namespace }, hopPublicKey),
      binding,
      pipeline: isPipelineDir(dir),
    };
  });
  const gatewayScript = bundles.get(resolve(gatewayConfigPath))!;
  // With a namespace, a new skill is no gateway deploy: the live gateway with this very build
  // (bundle, configuration and secrets) is not uploaded again.
  const build = gatewayBuildOf(readFileSync(gatewayScript), gatewayConfig, gatewaySecrets.provided, adminToken);
  const gatewayLive = namespace ? (await liveVars(api!, gatewayConfig.name!)).SKILLMESH_BUILD === build : false;
  const gateway: Upload = {
    name: gatewayConfig.name!,
    configPath: gatewayConfigPath,
    ...(envName ? { env: envName } : {}),
    scriptPath: gatewayScript,
    secrets: gatewaySecrets,
    vars: { SKILLMESH_BUILD: build },
  };
  if (namespace) {
    since = Date.now();
    const created = await ensureNamespace(api!, namespace.namespace);
    console.log(`  ✓ dispatch namespace ${namespace.namespace} ${created ? "created" : "exists"} (${seconds(since)})`);
  }
  // Skills first (the gateway's service bindings name them), then the namespace's outbound Worker, then the gateway.
  const uploads = [...skills, ...(egress ? [{ ...egress, scriptPath: bundles.get(resolve(egress.configPath))! }] : []), ...(gatewayLive ? [] : [gateway])];
  if (gatewayLive) console.log(`  ✓ ${gateway.name} is live with this build (${build}): not uploaded again`);

  // Skills first: the gateway's service bindings name them.
  const uploaded: Array<Upload & { versionId?: string; url?: string }> = [];
  const secretsDir = mkdtempSync(join(tmpdir(), "skillmesh-deploy-"));
  chmodSync(secretsDir, 0o700);
  // Ctrl-C (or a CI runner's SIGTERM) mid-upload: `finally` would not run, the secrets would stay on disk.
  const removeSecrets = () => rmSync(secretsDir, { recursive: true, force: true });
  const onSignal = (signal: NodeJS.Signals) => {
    removeSecrets();
    console.error(
      `\n✗ Deploy interrupted (${signal}) while uploading; the temporary secrets file is removed. Run \`npm run deploy\` again: uploading a Worker again is safe.`,
    );
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  // First in line: wrangler, imported by tools() above, has handlers of its own that end the process.
  // (`npm run deploy` is `node --import tsx`, one process: tsx's own CLI runs a script in a child
  // it SIGKILLs when the child is slow to report a signal, and a SIGKILL would leave the file.)
  process.prependOnceListener("SIGINT", onSignal);
  process.prependOnceListener("SIGTERM", onSignal);
  try {
    for (const [i, worker] of uploads.entries()) {
      since = Date.now();
      console.log(`[${i + 1}/${uploads.length}] uploading ${worker.name} …`);
      try {
        uploaded.push({ ...worker, ...(await upload(worker, secretsDir)) });
      } catch (error) {
        throw new DeployStopped(
          `uploading ${worker.name}`,
          (error as Error).message,
          uploaded.map((w) => `${w.name} uploaded`),
          [...uploads.slice(i).map((w) => `${w.name} upload`), `${skills.length} registrations`],
          "Nothing was registered: the gateway routes to the deployments it had. Fix the cause and run `npm run deploy` again; uploading a Worker again is safe.",
        );
      }
      const { versionId } = uploaded.at(-1)!;
      const sent = Object.keys(worker.secrets.provided);
      const secrets = `${sent.length ? `; secrets set: ${sent.join(", ")}` : ""}${worker.secrets.kept.length ? `; kept as on Cloudflare: ${worker.secrets.kept.join(", ")}` : ""}`;
      console.log(`  ✓ version ${versionId ?? "(wrangler printed none)"} (${seconds(since)})${secrets}`);
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    removeSecrets();
  }

  const gatewayUrl = (env.SKILLMESH_URL || uploaded.find((w) => w.name === gateway.name)?.url)?.replace(/\/$/, "");
  const uploadedNames = uploaded.map((w) => `${w.name} uploaded`);
  const registered: string[] = [];
  const toRegister = uploaded.slice(0, skills.length);
  if (!gatewayUrl) {
    throw new DeployStopped(
      "registering",
      "no gateway URL: set SKILLMESH_URL (the gateway has no workers.dev URL)",
      uploadedNames,
      toRegister.map((s) => `${s.name} registration`),
      "Set SKILLMESH_URL and run `npm run deploy` again.",
    );
  }
  console.log(`Registering ${toRegister.length} skills with ${gatewayUrl} …`);
  const deadline = Date.now() + registerTimeout.data * 1_000;
  for (const [i, skill] of toRegister.entries()) {
    try {
      const endpoint = registrationEndpointOf(skill as { name: string; trustsContext: boolean }, bindingByService, skill.url, skill.namespace);
      const extra = { ...(skill.versionId ? { registrationId: skill.versionId } : {}), ...(skill.pipeline ? { pipeline: true } : {}) };
      const { deployment, changed } = await registerWhenReady(gatewayUrl, adminToken, endpoint, extra, deadline, loaded);
      const via =
        "binding" in endpoint ? `binding ${endpoint.binding}`
        : "dispatch" in endpoint ? `script ${endpoint.dispatch} of ${skill.namespace}`
        : endpoint.url;
      console.log(`  ✓ ${deployment.id} by ${via}: ${deployment.role}${changed ? "" : " (unchanged)"}`);
      registered.push(`${deployment.id} registered`);
    } catch (error) {
      throw new DeployStopped(
        `registering ${skill.name}`,
        error instanceof RegistrationError ? error.reason : (error as Error).message,
        [...uploadedNames, ...registered],
        toRegister.slice(i).map((s) => `${s.name} registration`),
        "Every Worker is uploaded; the gateway keeps routing to what it had registered. Fix the cause and run `npm run deploy` again: registering a deployment the gateway already has changes nothing but its registration id.",
      );
    }
  }
  const retired = namespace ? await retireScripts(gatewayUrl, adminToken, namespace.namespace, new Set(skills.map((s) => s.name)), api!, loaded) : [];
  const packageDirs = agentSkillDirs();
  const packages: string[] = [];
  if (packageDirs.length) console.log(`Registering ${packageDirs.length} Agent Skills with ${gatewayUrl} …`);
  for (const [i, dir] of packageDirs.entries()) {
    try {
      const pkg = await registerAgentSkill(gatewayUrl, adminToken, dir);
      console.log(`  ✓ ${pkg.name}@${pkg.version}: ${pkg.files.length} files${pkg.changed ? "" : " (unchanged)"}`);
      packages.push(`${pkg.name}@${pkg.version} registered`);
    } catch (error) {
      throw new DeployStopped(
        `registering the Agent Skill ${relative(ROOT, dir)}`,
        (error as Error).message,
        [...uploadedNames, ...registered, ...packages],
        packageDirs.slice(i).map((d) => `${relative(ROOT, d)} registration`),
        "Every Worker is uploaded and every skill registered; the gateway keeps serving the packages it had. Fix the cause and run `npm run deploy` again: registering a package version the gateway has changes nothing.",
      );
    }
  }
  console.log(
    `Deployed: ${uploaded.length} Workers uploaded, ${registered.length} skills${packages.length ? ` and ${packages.length} Agent Skills` : ""} registered with ${gatewayUrl}${retired.length ? `, ${retired.length} retired` : ""}.`,
  );
}

try {
  await (values["dry-run"] ? dryRun() : deploy());
} catch (error) {
  if (error instanceof DeployStopped) {
    console.error(`\n✗ Deploy stopped while ${error.step}: ${error.reason}`);
    console.error(`  done:     ${error.done.join(", ") || "nothing"}`);
    console.error(`  not done: ${error.notDone.join(", ")}`);
    console.error(`  ${error.advice}`);
  } else {
    console.error(error instanceof Error ? error.message : error);
  }
  process.exit(1);
}
