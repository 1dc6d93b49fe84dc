/**
 * `npm run deploy -- --dry-run [--outdir dist]` bundles the gateway and every skill with
 * wrangler (`deploy --dry-run --outdir`) and prints each bundle's size. Needs no account.
 *
 * `npm run deploy` deploys for real: each skill with `wrangler deploy`, then the gateway (whose
 * service bindings name the skills), then registers each skill with the gateway's admin API
 * (SKILLMESH_URL, SKILLMESH_ADMIN_TOKEN; wrangler itself needs CLOUDFLARE_API_TOKEN). A skill
 * that the gateway's wrangler.toml binds as a service registers by binding; only a skill that
 * does not trust the caller-context header may register by its workers.dev URL
 * (scripts/mesh/deploy-plan.ts).
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { type Bundle, ROOT, bundleAll, skillDirs } from "./mesh/bundle.js";
import { registrationEndpointOf } from "./mesh/deploy-plan.js";
import { contractProblems } from "./contracts.js";
import { registerSkill } from "./mesh/index.js";
import { unstable_readConfig } from "wrangler";

const run = promisify(execFile);
const WRANGLER = join(ROOT, "node_modules/wrangler/bin/wrangler.js");

const { values } = parseArgs({
  options: {
    "dry-run": { type: "boolean", default: false },
    outdir: { type: "string", default: "dist" },
  },
});

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

async function dryRun(): Promise<void> {
  const dirs = [ROOT, ...skillDirs()];
  const outRoot = resolve(ROOT, values.outdir);
  console.log(`Bundling ${dirs.length} Workers with wrangler into ${relative(ROOT, outRoot) || "."}/ …`);
  const bundles = await bundleAll(dirs, { outRoot });
  printSizes(bundles);
}

function printSizes(bundles: Bundle[]): void {
  console.log(`\n${"worker".padEnd(34)}${"bundle".padStart(12)}${"gzip".padStart(12)}  file`);
  for (const bundle of bundles) {
    const name = unstable_readConfig({ config: bundle.configPath }).name ?? relative(ROOT, bundle.dir);
    const gzip = gzipSync(readFileSync(bundle.scriptPath)).length;
    console.log(`${name.padEnd(34)}${kib(bundle.bytes).padStart(12)}${kib(gzip).padStart(12)}  ${relative(ROOT, bundle.scriptPath)}`);
  }
}

async function wrangler(args: string[]): Promise<string> {
  const { stdout, stderr } = await run(process.execPath, [WRANGLER, ...args], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  return `${stdout}\n${stderr}`;
}

async function deploy(): Promise<void> {
  const gatewayUrl = process.env.SKILLMESH_URL?.replace(/\/$/, "");
  const adminToken = process.env.SKILLMESH_ADMIN_TOKEN;
  if (!gatewayUrl || !adminToken || !process.env.CLOUDFLARE_API_TOKEN) {
    throw new Error("npm run deploy needs SKILLMESH_URL (the gateway's URL), SKILLMESH_ADMIN_TOKEN and CLOUDFLARE_API_TOKEN; `npm run deploy -- --dry-run` needs none");
  }
  // Nothing is uploaded while a skill would break the contracts committed in contracts/.
  const problems = await contractProblems();
  if (problems.length) throw new Error(`Not deploying: the contract check failed\n${problems.map((p) => `  ✗ ${p}`).join("\n")}`);
  const gatewayConfig = unstable_readConfig({ config: join(ROOT, "wrangler.toml") });
  const bindingByService = new Map<string, string>((gatewayConfig.services ?? []).map((s: { service: string; binding: string }) => [s.service, s.binding]));

  // Skills first: the gateway's service bindings name them.
  const deployed: Array<{ name: string; endpoint: ReturnType<typeof registrationEndpointOf>; versionId?: string }> = [];
  for (const dir of skillDirs()) {
    const config = unstable_readConfig({ config: join(dir, "wrangler.toml") });
    const skill = { name: config.name!, trustsContext: config.vars?.SKILLMESH_TRUST_CONTEXT === "true" };
    if (skill.trustsContext && config.workers_dev !== false) throw new Error(`${skill.name} trusts the caller context, so it must set workers_dev = false`);
    console.log(`Deploying ${skill.name} …`);
    const output = await wrangler(["deploy", "-c", join(dir, "wrangler.toml")]);
    const url = output.match(/https:\/\/\S+\.workers\.dev/)?.[0];
    deployed.push({ name: skill.name, endpoint: registrationEndpointOf(skill, bindingByService, url), versionId: output.match(/Current Version ID:\s*(\S+)/)?.[1] });
  }
  console.log("Deploying the gateway …");
  await wrangler(["deploy", "-c", join(ROOT, "wrangler.toml")]);
  for (const { name, endpoint, versionId } of deployed) {
    const { deployment, changed } = await registerSkill(gatewayUrl, adminToken, endpoint, versionId ? { registrationId: versionId } : {});
    console.log(`  ${name}: registered ${deployment.id} as ${deployment.role}${changed ? "" : " (unchanged)"}`);
  }
}

try {
  await (values["dry-run"] ? dryRun() : deploy());
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
