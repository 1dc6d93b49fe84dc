/**
 * `npm run deploy -- --env staging`: a mesh whose skills are scripts of a dispatch namespace
 * (wrangler.toml `[env.staging]`), deployed against the stand-in of the Cloudflare API and
 * registered with a real local gateway whose local namespace holds the same scripts (the two
 * halves of what Cloudflare would hold after the uploads). The runs build on each other: the first
 * deploy, then one with a new skill folder and a removed one (the new one uploaded and registered,
 * the removed one retired, the gateway not uploaded again).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { writeContracts } from "../scripts/contracts.js";
import { ROOT, skillDirs } from "../scripts/mesh/bundle.js";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { type CloudflareApiStandIn, runDeploy, startCloudflareApi } from "./support/cloudflare-api.js";
import { ADMIN_TOKEN, admin } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

mkdirSync(join(ROOT, ".skillmesh"), { recursive: true });
const NAMESPACE = "skillmesh-skills-staging";
const GATEWAY = "skillmesh-gateway-staging";
const EGRESS = "skillmesh-egress-staging";

// The skills deployed: four of skills/ (a pipeline, its steps, one to remove), linked from a folder
// of their own beside it (the same Workers: their bundles are cached; a new one's imports of
// ../../src resolve as theirs do), so that one can be added and removed; no Agent Skills packages
// (test/deploy.test.ts has them).
const skillsDir = mkdtempSync(join(ROOT, "skills-staging-test-"));
for (const name of ["html-extract", "modbus-decode", "text-summarize-v1", "web-digest"]) symlinkSync(join(ROOT, "skills", name), join(skillsDir, name));
const noPackages = mkdtempSync(join(ROOT, ".skillmesh", "staging-packages-"));
const SCRIPTS = skillDirs(skillsDir).map((dir) => unstable_readConfig({ config: join(dir, "wrangler.toml") }).name!);
const contracts = mkdtempSync(join(ROOT, ".skillmesh", "staging-contracts-"));

let cf: CloudflareApiStandIn;
let mesh: Mesh;

beforeAll(async () => {
  await writeContracts(skillDirs(skillsDir), contracts, undefined, []);
  cf = await startCloudflareApi();
  // The staging gateway that receives the registrations: its namespace holds what was uploaded.
  mesh = await startMesh({ skills: [], dispatched: skillDirs(skillsDir), adminToken: ADMIN_TOKEN, register: false });
}, 180_000);
afterAll(async () => {
  await mesh?.dispose();
  await cf?.stop();
  rmSync(skillsDir, { recursive: true, force: true });
  rmSync(contracts, { recursive: true, force: true });
  rmSync(noPackages, { recursive: true, force: true });
});

/** `npm run deploy -- --env staging` of the skills folder above, to the stand-in and the mesh, with no secrets but the admin token. */
const deploy = () =>
  runDeploy(cf, {
    cwd: ROOT,
    gatewayUrl: mesh.gatewayUrl,
    adminToken: ADMIN_TOKEN,
    env: {
      SKILLMESH_SKILLS_DIR: skillsDir,
      SKILLMESH_CONTRACTS_DIR: contracts,
      SKILLMESH_AGENT_SKILLS_DIR: noPackages,
      SKILLMESH_HOP_KEY: "",
      SKILLMESH_CALLBACK_SECRET: "",
      SKILLMESH_UPSTREAM_KEY: "",
      UPSTASH_REDIS_REST_TOKEN: "",
    },
    args: ["--env", "staging"],
  });

const registered = async () =>
  ((await admin(mesh.gatewayUrl, "GET", "/deployments")).json as { deployments: Array<{ id: string; endpoint: { dispatch?: string } }> }).deployments;

describe("npm run deploy -- --env staging, skills in a dispatch namespace", () => {
  it("creates the namespace, uploads every skill into it, then the outbound Worker and the gateway, and registers each skill by script name", async () => {
    const result = await deploy();
    expect(result.stderr).not.toContain("✗");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`✓ dispatch namespace ${NAMESPACE} created`);
    expect([...cf.namespaces.get(NAMESPACE)!].sort()).toEqual([...SCRIPTS].sort());

    // Skills into the namespace, then two Workers of the account: the outbound one and the gateway.
    expect(cf.uploads.map((u) => [u.worker, u.namespace ?? null])).toEqual([...SCRIPTS.map((s) => [s, NAMESPACE]), [EGRESS, null], [GATEWAY, null]]);
    const gateway = cf.uploads.find((u) => u.worker === GATEWAY)!;
    expect(gateway.bindings).toContainEqual(
      expect.objectContaining({
        name: "SKILL_NAMESPACE",
        type: "dispatch_namespace",
        namespace: NAMESPACE,
        outbound: expect.objectContaining({ worker: expect.objectContaining({ service: EGRESS }) }),
      }),
    );
    expect(gateway.bindings.filter((b) => b.type === "service")).toEqual([]); // no skill bound
    const egress = cf.uploads.find((u) => u.worker === EGRESS)!;
    expect(egress.bindings).toContainEqual(expect.objectContaining({ name: "GATEWAY", type: "service", service: GATEWAY, entrypoint: "EgressAudit" }));
    // The pipeline's steps call the staging gateway.
    const digest = cf.uploads.find((u) => u.worker === "skill-web-digest")!;
    expect(digest.bindings).toContainEqual(expect.objectContaining({ name: "GATEWAY", type: "service", service: GATEWAY }));

    expect((await registered()).map((d) => d.endpoint.dispatch).sort()).toEqual([...SCRIPTS].sort());
    // The pipeline, registered as one, calls its steps through the gateway.
    const page = "<title>Staged</title><p>Skills run at the edge. The gateway routes every call. Steps go through the gateway.</p>";
    const call = await wireOf(mesh.gatewayUrl).rpc("web.digest", { html: page });
    expect(call.json.result).toMatchObject({ title: "Staged" });
    expect(cf.unknown).toEqual([]);
  }, 180_000);

  it("a new skill folder and a removed one: the new uploaded and registered, the removed retired, the gateway not uploaded again", async () => {
    const added = join(skillsDir, "added");
    mkdirSync(added);
    writeFileSync(
      join(added, "wrangler.toml"),
      'name = "skill-added"\nmain = "index.ts"\ncompatibility_date = "2026-04-01"\nworkers_dev = false\n[vars]\nSKILLMESH_TRUST_CONTEXT = "true"\n',
    );
    writeFileSync(
      join(added, "index.ts"),
      `import { defineSkill, z } from "../../src/skill/index.js";
export default defineSkill({ name: "test.added", version: "1.0.0", description: "Added after the first deploy.", tags: ["fixture"],
  input: z.object({}), output: z.object({ added: z.boolean() }), handler: () => ({ added: true }) });
`,
    );
    rmSync(join(skillsDir, "modbus-decode"), { recursive: true });
    await writeContracts(skillDirs(skillsDir), contracts, undefined, []);
    await mesh.dispatch(added, { register: false }); // what Cloudflare would now serve under that name
    const before = cf.uploads.length;
    const result = await deploy();
    expect(result.stderr).not.toContain("✗");
    expect(result.code).toBe(0);

    // The new skill: into the namespace, registered by its script name, callable.
    const uploads = cf.uploads.slice(before);
    expect(uploads.find((u) => u.worker === "skill-added")?.namespace).toBe(NAMESPACE);
    expect((await registered()).find((d) => d.id === "test.added@1.0.0")?.endpoint).toEqual({ dispatch: "skill-added" });
    expect((await wireOf(mesh.gatewayUrl).rpc("test.added")).json.result).toEqual({ added: true });
    // No gateway upload: its build (bundle, configuration, secrets) is the live one.
    expect(uploads.map((u) => u.worker)).not.toContain(GATEWAY);
    expect(result.stdout).toMatch(new RegExp(`✓ ${GATEWAY} is live with this build \\(\\S+\\): not uploaded again`));

    // The removed one: deregistered, then its script deleted from the namespace.
    expect(result.stdout).toContain("✓ modbus.decode@1.0.0 retired: its script skill-modbus-decode is in no skill folder");
    expect((await registered()).map((d) => d.id)).not.toContain("modbus.decode@1.0.0");
    expect(cf.namespaces.get(NAMESPACE)!.has("skill-modbus-decode")).toBe(false);
    expect(cf.requests).toContain(`DELETE /accounts/${cf.accountId}/workers/dispatch/namespaces/${NAMESPACE}/scripts/skill-modbus-decode`);
    expect(cf.unknown).toEqual([]);
  }, 180_000);
});
