/**
 * `npm run deploy`: the dry run's real wrangler bundles, and the real deploy end to end — wrangler
 * pointed at a stand-in of the Cloudflare API (test/support/cloudflare-api.ts, which records the
 * uploads) and registrations made with a real local gateway (the mesh, started without any
 * registration). The runs build on each other in order: a refused upload, an unreachable gateway,
 * then the re-run that completes.
 */
import { execFile, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { parse as parseYaml } from "yaml";
import { ROOT, skillDirs } from "../scripts/mesh/bundle.js";
import { currentManifests, writeContracts } from "../scripts/contracts.js";
import { GATEWAY_SECRETS } from "../scripts/mesh/deploy-plan.js";
import { agentSkillDirs } from "../scripts/mesh/agent-skills.js";
import { generateHopKeys } from "../src/protocols/hop/index.js";
import { type Mesh, adminCall, freePort, registerSkill, startMesh } from "../scripts/mesh/index.js";
import { type CloudflareApiStandIn, deployEnvOf, runDeploy, startCloudflareApi } from "./support/cloudflare-api.js";
import { ADMIN_TOKEN, admin, eventually } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

const run = promisify(execFile);
const outdir = mkdtempSync(join(tmpdir(), "skillmesh-dist-"));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const workerNameOf = (dir: string) => unstable_readConfig({ config: join(dir, "wrangler.toml") }).name!;
const SKILL_WORKERS = skillDirs().map(workerNameOf);
const PACKAGES = agentSkillDirs();
const GATEWAY_WORKER = workerNameOf(ROOT);
/** The gateway's service bindings as wrangler.toml declares them: binding → skill Worker. */
const DECLARED_SERVICES = Object.fromEntries(
  (unstable_readConfig({ config: join(ROOT, "wrangler.toml") }).services ?? []).map((s: { binding: string; service: string }) => [s.binding, s.service]),
);
const { privateKey: HOP_KEY } = await generateHopKeys();

describe("npm run deploy -- --dry-run", () => {
  it("bundles every Worker with wrangler and prints each bundle's size; a skill with no committed contract fails it", async () => {
    // The repository's contracts but modbus.decode's: as a skill just made, never released.
    mkdirSync(join(ROOT, ".skillmesh"), { recursive: true });
    const contracts = mkdtempSync(join(ROOT, ".skillmesh", "dry-run-contracts-"));
    cpSync(join(ROOT, "contracts"), contracts, { recursive: true });
    rmSync(join(contracts, "modbus.decode"), { recursive: true });
    const env = { ...process.env, CLOUDFLARE_API_TOKEN: "", SKILLMESH_CONTRACTS_DIR: contracts };
    const failed = await run("npm", ["run", "deploy", "--", "--dry-run", "--outdir", outdir], { cwd: ROOT, env }).catch((error) => error);
    rmSync(contracts, { recursive: true, force: true });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(
      "A deploy would stop here: the contract check failed\n  ✗ modbus.decode 1.0.0: no contract committed for it (run npm run contracts and commit contracts/modbus.decode/1.0.0.json)",
    );
    const stdout: string = failed.stdout;
    const rows = stdout.split("\n").filter((line) => /KiB/.test(line));
    expect(rows.map((row) => row.split(/\s+/)[0]).sort()).toEqual([GATEWAY_WORKER, ...SKILL_WORKERS].sort());
    for (const row of rows) {
      const [, kib, , , , file] = row.trim().split(/\s+/);
      const path = join(ROOT, file!);
      expect(existsSync(path), row).toBe(true);
      expect(Number(kib)).toBeCloseTo(statSync(path).size / 1024, 1);
      // An ES module Worker: a default export with a fetch handler (Hono's app).
      expect(readFileSync(path, "utf8")).toMatch(/export\s*\{[^}]*\bas default\b/);
    }
  }, 120_000);

  it("with --env staging, names what it would deploy as staging: the gateway, its namespace's scripts and their outbound Worker", async () => {
    const { stdout } = await run("npm", ["run", "deploy", "--", "--dry-run", "--env", "staging", "--outdir", outdir], {
      cwd: ROOT,
      env: { ...process.env, CLOUDFLARE_API_TOKEN: "" },
    });
    const staging = unstable_readConfig({ config: join(ROOT, "wrangler.toml"), env: "staging" }) as {
      name: string;
      dispatch_namespaces: Array<{ namespace: string }>;
    };
    const rows = stdout.split("\n").filter((line) => /KiB/.test(line));
    const names = rows.map((row) => row.split(/\s+/)[0]);
    expect(names).toContain(staging.name);
    expect(names).toContain("skillmesh-egress-staging");
    expect(names).not.toContain(GATEWAY_WORKER);
    expect(rows.find((row) => row.startsWith("skill-modbus-decode"))).toContain(`script of ${staging.dispatch_namespaces[0]!.namespace}`);
  }, 120_000);
});

describe("npm run deploy against a stand-in of the Cloudflare API", () => {
  let cf: CloudflareApiStandIn;
  let mesh: Mesh;
  const CALLBACK_SECRET = "callback-secret-for-the-deploy-test";
  const UPSTREAM_KEY = "upstream-key-for-the-deploy-test-0123456789";

  // The contracts of the skills as they are (a skill just made with `skillmesh new` has none
  // committed yet, and the deploy would rightly refuse it): the drift gate has its own test below.
  mkdirSync(join(ROOT, ".skillmesh"), { recursive: true });
  const contracts = mkdtempSync(join(ROOT, ".skillmesh", "deploy-contracts-"));
  // The runs about what happens around the uploads (not what is uploaded) deploy fewer Workers:
  // one skill (a link to html-extract: the same Worker and bundle) and the gateway, or the gateway
  // alone — each upload is a wrangler process. The run that completes uploads every Worker.
  const oneSkill = mkdtempSync(join(ROOT, ".skillmesh", "deploy-one-skill-"));
  symlinkSync(join(ROOT, "skills", "html-extract"), join(oneSkill, "html-extract"));
  const noSkills = mkdtempSync(join(ROOT, ".skillmesh", "deploy-no-skills-"));
  const fewer = (skills: string) => ({ SKILLMESH_SKILLS_DIR: skills, SKILLMESH_AGENT_SKILLS_DIR: noSkills });
  afterAll(() => [contracts, oneSkill, noSkills].forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  beforeAll(async () => {
    await writeContracts(skillDirs(), contracts);
    cf = await startCloudflareApi();
    // The gateway that receives the registrations: bound to the shipped skills under the names
    // of wrangler.toml's [[services]], as the deployed one is, and with nothing registered.
    mesh = await startMesh({ skills: skillDirs(), adminToken: ADMIN_TOKEN, register: false });
  }, 120_000);
  afterAll(async () => {
    await mesh?.dispose();
    await cf?.stop();
  });

  /** The deploy's target: the mesh, with the gateway's secrets, then `env`. */
  const targetOf = (env: Record<string, string>) => ({
    gatewayUrl: mesh.gatewayUrl,
    adminToken: ADMIN_TOKEN,
    env: {
      SKILLMESH_HOP_KEY: HOP_KEY,
      SKILLMESH_CALLBACK_SECRET: CALLBACK_SECRET,
      SKILLMESH_UPSTREAM_KEY: UPSTREAM_KEY,
      UPSTASH_REDIS_REST_TOKEN: "",
      SKILLMESH_CONTRACTS_DIR: contracts,
      ...env,
    },
  });
  /** Runs `npm run deploy` with wrangler aimed at the stand-in and the gateway at the mesh; resolves with its output and exit code. */
  const deploy = (env: Record<string, string> = {}, args: string[] = []) => runDeploy(cf, { cwd: ROOT, ...targetOf(env), args });
  const registered = async () =>
    (
      (await admin(mesh.gatewayUrl, "GET", "/deployments")).json as {
        deployments: Array<{ id: string; endpoint: { binding?: string }; registrationId: string; role: string }>;
      }
    ).deployments;

  it("without credentials it stops before any request, saying what is missing", async () => {
    const result = await deploy({ CLOUDFLARE_API_TOKEN: "", SKILLMESH_ADMIN_TOKEN: "" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/needs CLOUDFLARE_API_TOKEN .* and SKILLMESH_ADMIN_TOKEN/);
    expect(cf.requests).toEqual([]);
  }, 60_000);

  it("stops before any request to Cloudflare when a skill breaks its committed contract", async () => {
    // Committed contracts that disagree with a real skill: modbus.decode's definition "changed" under 1.0.0.
    const drifted = mkdtempSync(join(ROOT, ".skillmesh", "drifted-contracts-"));
    try {
      cpSync(contracts, drifted, { recursive: true });
      const file = join(drifted, "modbus.decode", "1.0.0.json");
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), description: "what callers approved" }));
      const result = await deploy({ SKILLMESH_CONTRACTS_DIR: drifted });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("Not deploying: the contract check failed");
      expect(result.stderr).toContain("modbus.decode 1.0.0: its definition changed under the same version");
      expect(cf.requests).toEqual([]);
    } finally {
      rmSync(drifted, { recursive: true, force: true });
    }
  }, 120_000);

  it("a skill changed under a version the target gateway has registered stops it before any upload", async () => {
    // The gateway serves modbus.decode@1.0.0 with the definition callers approved; the folder's
    // (and its rewritten contract) differ under the same version.
    const [modbus] = await currentManifests([join(ROOT, "skills", "modbus-decode")]);
    const approved = { ...modbus!, description: "what callers approved" };
    await registerSkill(mesh.gatewayUrl, ADMIN_TOKEN, { binding: "SKILL_MODBUS_DECODE" }, { manifest: approved });
    try {
      const result = await deploy();
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        "Not deploying: a skill changed under a version the gateway serves\n  ✗ modbus.decode 1.0.0: the gateway has another definition registered under this version (description changed): give the changed skill a new version",
      );
      expect(cf.requests).toEqual([]);
    } finally {
      await admin(mesh.gatewayUrl, "DELETE", "/deployments/modbus.decode@1.0.0");
    }
  }, 120_000);

  it("a secret that the gateway would refuse stops it before any request", async () => {
    const result = await deploy({ SKILLMESH_HOP_KEY: "not-a-private-key" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("SKILLMESH_HOP_KEY: an Ed25519 private key (PKCS#8 PEM)");
    expect(cf.requests).toEqual([]);
  }, 60_000);

  it("the retired shared SKILLMESH_HOP_SECRET stops it before any request, naming what replaces it", async () => {
    const result = await deploy({ SKILLMESH_HOP_SECRET: "hop-secret-for-the-deploy-test" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("SKILLMESH_HOP_SECRET is no longer used");
    expect(result.stderr).toContain("SKILLMESH_HOP_KEY");
    expect(cf.requests).toEqual([]);
  }, 60_000);

  it("never sends the admin token to a gateway over plain http (but for loopback)", async () => {
    const result = await deploy({ SKILLMESH_URL: "http://gateway.example.com" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("SKILLMESH_URL is http://gateway.example.com: the admin token goes only to an https gateway (or http on loopback)");
    expect(cf.requests).toEqual([]);
  }, 60_000);

  it("an upload refused half-way: stops there, registers nothing, and says what was and was not done", async () => {
    const refused = SKILL_WORKERS[1]!;
    cf.refuse(refused);
    const result = await deploy();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`✗ Deploy stopped while uploading ${refused}:`);
    expect(result.stderr).toContain("was refused by the stand-in");
    expect(result.stderr).toContain("[code: 10021]");
    expect(result.stderr).toContain(`done:     ${SKILL_WORKERS[0]} uploaded\n`);
    expect(result.stderr).toContain(
      `not done: ${[...SKILL_WORKERS.slice(1), GATEWAY_WORKER].map((w) => `${w} upload`).join(", ")}, ${SKILL_WORKERS.length} registrations`,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /); // a report, not a stack trace
    expect(cf.uploads.map((u) => u.worker)).toEqual([SKILL_WORKERS[0]]);
    expect(await registered()).toEqual([]);
  }, 120_000);

  it("the gateway unreachable after the uploads: every Worker is up, the registrations are reported not done", async () => {
    cf.refuse(undefined);
    const before = cf.uploads.length;
    const nobody = `http://127.0.0.1:${await freePort("127.0.0.1")}`; // nobody listens there
    const skill = "skill-html-extract";
    const result = await deploy({ SKILLMESH_URL: nobody, ...fewer(oneSkill) }, ["--register-timeout", "1"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`  cannot reach the gateway at ${nobody} (ECONNREFUSED); retrying each second for up to 1 s (--register-timeout) …`);
    expect(result.stderr).toContain(`✗ Deploy stopped while registering ${skill}: cannot reach the gateway at ${nobody} (ECONNREFUSED)\n`);
    expect(result.stderr).toContain(`done:     ${skill} uploaded, ${GATEWAY_WORKER} uploaded\n`);
    expect(result.stderr).toContain(`not done: ${skill} registration\n`);
    expect(cf.uploads.slice(before).map((u) => u.worker)).toEqual([skill, GATEWAY_WORKER]);
    expect(await registered()).toEqual([]);
  }, 120_000);

  // The run that completes, asserted by the two tests after it (one run of every upload, not one each).
  let completed: { uploads: CloudflareApiStandIn["uploads"]; rolesBefore: Record<string, string> };

  it("the re-run completes: every Worker uploaded with its secrets and bindings, as a new version", async () => {
    // One skill is registered already, with its second version a canary (checked in the next test).
    for (const binding of ["SKILL_TEXT_SUMMARIZE_V1", "SKILL_TEXT_SUMMARIZE_V2"]) await registerSkill(mesh.gatewayUrl, ADMIN_TOKEN, { binding });
    expect((await admin(mesh.gatewayUrl, "POST", "/skills/text.summarize/canary", { version: "2.0.0", groups: { beta: 10 } })).status).toBe(200);
    const rolesBefore = Object.fromEntries((await registered()).map((d) => [d.id, d.role]));
    expect(rolesBefore).toEqual({ "text.summarize@1.0.0": "stable", "text.summarize@2.0.0": "canary" });
    const before = cf.uploads.length;
    const existed = new Set(cf.uploads.map((u) => u.worker));
    const result = await deploy();
    completed = { uploads: cf.uploads.slice(before), rolesBefore };
    expect(result.stderr).not.toContain("✗");
    expect(result.code).toBe(0);
    // Progress as it goes, in order.
    const steps = result.stdout.split("\n").filter((line) => /^\[\d+\/\d+\] uploading|^Registering|^Deployed/.test(line));
    expect(steps).toEqual([
      ...[...SKILL_WORKERS, GATEWAY_WORKER].map((w, i, all) => `[${i + 1}/${all.length}] uploading ${w} …`),
      `Registering ${SKILL_WORKERS.length} skills with ${mesh.gatewayUrl} …`,
      `Registering ${PACKAGES.length} Agent Skills with ${mesh.gatewayUrl} …`,
      `Deployed: ${SKILL_WORKERS.length + 1} Workers uploaded, ${SKILL_WORKERS.length} skills and ${PACKAGES.length} Agent Skills registered with ${mesh.gatewayUrl}.`,
    ]);
    // Workers that existed (the earlier runs uploaded some) are updated with a new version, not created again.
    const { uploads } = completed;
    expect(existed).toEqual(new Set([SKILL_WORKERS[0], GATEWAY_WORKER])); // the refused run's first upload, the unreachable run's two
    expect(uploads.map((u) => [u.worker, u.via])).toEqual([...SKILL_WORKERS, GATEWAY_WORKER].map((w) => [w, existed.has(w) ? "version" : "script"]));

    // Secrets: the gateway's, from the deploy's environment; never printed. A skill gets none:
    // these are all reached by binding, so not even the gateway's public hop key.
    expect(cf.secretsOf(GATEWAY_WORKER)).toEqual({
      SKILLMESH_ADMIN_TOKEN: ADMIN_TOKEN,
      SKILLMESH_HOP_KEY: HOP_KEY,
      SKILLMESH_CALLBACK_SECRET: CALLBACK_SECRET,
      SKILLMESH_UPSTREAM_KEY: UPSTREAM_KEY,
    });
    for (const worker of SKILL_WORKERS) expect(cf.secretsOf(worker), worker).toEqual({});
    expect(result.stdout).toContain("kept as on Cloudflare: UPSTASH_REDIS_REST_TOKEN");
    for (const secret of [ADMIN_TOKEN, HOP_KEY.replace(/-----[A-Z ]+-----|\s/g, ""), CALLBACK_SECRET, UPSTREAM_KEY])
      expect(`${result.stdout}${result.stderr}`).not.toContain(secret);

    // The gateway's bindings as wrangler.toml declares them, and its Workflow.
    const gateway = uploads.at(-1)!;
    const services = Object.fromEntries(gateway.bindings.filter((b) => b.type === "service").map((b) => [b.name, b.service!]));
    expect(services).toEqual(DECLARED_SERVICES);
    expect(gateway.bindings).toContainEqual(expect.objectContaining({ name: "JOBS", type: "workflow", class_name: "JobWorkflow" }));
    // The Agent Skills files' bucket: bound, and created by wrangler on the first deploy.
    expect(gateway.bindings).toContainEqual(expect.objectContaining({ name: "AGENT_SKILL_FILES", type: "r2_bucket", bucket_name: "skillmesh-agent-skills" }));
    expect([...cf.r2Buckets]).toEqual(["skillmesh-agent-skills"]);
    expect(cf.workflows.get("skillmesh-jobs")).toEqual({ script_name: GATEWAY_WORKER, class_name: "JobWorkflow" });
    expect(cf.crons.get(GATEWAY_WORKER)).toEqual(["* * * * *"]); // the rollouts' tick
    expect(cf.unknown).toEqual([]);
  }, 120_000);

  it("…and registered every skill by binding with its version id, a registered one keeping its role, and every Agent Skill", async () => {
    const { uploads, rolesBefore } = completed;
    // Every skill registered by its binding, with the version id Cloudflare gave its upload; the
    // ones registered before keep their roles (a deploy registers them again: a new registration id).
    const deployments = await registered();
    expect(Object.fromEntries(deployments.filter((d) => d.id in rolesBefore).map((d) => [d.id, d.role]))).toEqual(rolesBefore);
    const versionOf = new Map(uploads.map((u) => [u.worker, u.versionId]));
    expect(deployments.map((d) => [d.endpoint.binding, d.registrationId]).sort()).toEqual(
      Object.entries(DECLARED_SERVICES)
        .map(([binding, worker]) => [binding, versionOf.get(worker)])
        .sort(),
    );
    // …and callable through the gateway.
    const call = await wireOf(mesh.gatewayUrl).rpc("html.extract", { html: "<title>Deployed</title><p>ok</p>" });
    expect(call.json.result).toMatchObject({ title: "Deployed" });
    // Every package of agent-skills/ registered after the skills it names, its files in the bucket.
    const packages = (await admin(mesh.gatewayUrl, "GET", "/agent-skills")).json as { agentSkills: Array<{ name: string; stable: string }> };
    expect(packages.agentSkills.map((p) => p.name).sort()).toEqual(PACKAGES.map((dir) => basename(dir)));
    const index = (await (await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/index.json`)).json()) as { skills: Array<{ name: string; type: string }> };
    expect(index.skills.map((skill) => [skill.name, skill.type])).toEqual(PACKAGES.map((dir) => [basename(dir), "archive"]));
    const skillMd = await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/modbus-triage/SKILL.md`);
    expect(await skillMd.text()).toBe(readFileSync(join(ROOT, "agent-skills", "modbus-triage", "SKILL.md"), "utf8"));
  }, 120_000);

  it("Ctrl-C during an upload removes the temporary secrets file before it exits", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "skillmesh-deploy-tmp-"));
    const release = cf.hold(GATEWAY_WORKER);
    const gatewayRequests = () => cf.requests.filter((r) => r.includes(`/workers/scripts/${GATEWAY_WORKER}`)).length;
    const before = gatewayRequests(); // the earlier runs' uploads of the gateway
    try {
      // As a terminal's Ctrl-C does: SIGINT to the whole process group (npm, node, wrangler).
      // The gateway alone: its upload is the one with a secrets file.
      const child = spawn("npm", ["run", "deploy"], {
        cwd: ROOT,
        env: { ...deployEnvOf(cf, targetOf(fewer(noSkills))), TMPDIR: tmp },
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stdout.resume();
      child.stderr.on("data", (chunk) => (stderr += chunk));
      // "close": every process of the group holding its output has ended (npm itself ends first, by the signal).
      const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
      const secretsFile = () =>
        readdirSync(tmp).flatMap((dir) => (existsSync(join(tmp, dir, `${GATEWAY_WORKER}.json`)) ? [join(tmp, dir, `${GATEWAY_WORKER}.json`)] : []));
      await eventually(
        async () => secretsFile().length,
        (n) => n === 1,
        90_000,
        100,
      );
      expect(readFileSync(secretsFile()[0]!, "utf8")).toContain(ADMIN_TOKEN); // the file is there while the upload runs
      await eventually(
        async () => gatewayRequests(),
        (n) => n > before,
        30_000,
        50,
      );
      process.kill(-child.pid!, "SIGINT");
      await exited;
      expect(stderr).toContain("Deploy interrupted (SIGINT) while uploading; the temporary secrets file is removed");
      expect(secretsFile()).toEqual([]);
      expect(readdirSync(tmp).filter((dir) => dir.startsWith("skillmesh-deploy-"))).toEqual([]);
    } finally {
      release();
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("registering with a gateway that redirects", () => {
  it("does not follow the redirect: the admin token never reaches the other host", async () => {
    const seen: Array<string | undefined> = [];
    const elsewhere = createHttpServer((request, response) => {
      seen.push(request.headers.authorization);
      response.writeHead(201, { "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
    const redirecting = createHttpServer((_request, response) =>
      response.writeHead(307, { location: `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/admin/deployments` }).end(),
    );
    await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
    try {
      const gatewayUrl = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
      await expect(registerSkill(gatewayUrl, ADMIN_TOKEN, { binding: "SKILL_A" })).rejects.toThrow(
        /HTTP 307 \(a redirect to .*\), which is not followed with the admin token/,
      );
      await expect(adminCall(gatewayUrl, ADMIN_TOKEN, "GET", "/keys")).rejects.toThrow(/HTTP 307/);
      expect(seen).toEqual([]);
    } finally {
      await Promise.all([elsewhere, redirecting].map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });
});

describe("the GitHub Actions workflow", () => {
  const workflow = parseYaml(readFileSync(join(ROOT, ".github/workflows/ci.yml"), "utf8")) as {
    on: { push: { branches: string[] } };
    jobs: Record<string, { needs?: string; if?: string; steps: Array<{ run?: string; env?: Record<string, string> }> }>;
  };
  const runs = (job: string) => workflow.jobs[job]!.steps.flatMap((step) => (step.run ? [step.run] : []));

  it("runs the checks of .ci/run, in its order", () => {
    const ciRun = readFileSync(join(ROOT, ".ci/run"), "utf8")
      .split("\n")
      .filter((line) => /^(npm|npx) /.test(line));
    expect(ciRun).toEqual([
      "npm ci --no-audit --no-fund",
      "npm run typecheck",
      "npm run depcheck",
      "npm run lint",
      "npm run format:check",
      "npx skillmesh contracts check",
      "npm test",
    ]);
    expect(runs("check").filter((line) => /^(npm|npx) /.test(line))).toEqual(ciRun);
  });

  it("deploys from main only, after the checks, with every credential and secret the deploy reads", () => {
    const deployJob = workflow.jobs.deploy!;
    expect(deployJob.needs).toBe("check");
    expect(deployJob.if).toContain("refs/heads/main");
    const step = deployJob.steps.find((s) => s.run === "npm run deploy")!;
    expect(Object.keys(step.env!).sort()).toEqual([...new Set(["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_ACCOUNT_ID", "SKILLMESH_URL", ...GATEWAY_SECRETS])].sort());
    // Secrets come from the repository's secrets, never written in the file.
    for (const name of [...GATEWAY_SECRETS, "CLOUDFLARE_API_TOKEN"]) expect(step.env![name]).toBe(`\${{ secrets.${name} }}`);
  });
});
