/**
 * Canary routing end to end, in workerd on real Redis: the `skillmesh` CLI sets the weights,
 * the gateway splits 10,000 distinct users per group by them, a user always lands on the same
 * version, and raising a canary's share never moves a user off it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { runCli } from "../scripts/cli/index.js";
import { ADMIN_TOKEN, fixture } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
const lines: string[] = [];
const cli = (...argv: string[]) =>
  runCli(argv, { env: { SKILLMESH_URL: mesh.gatewayUrl, SKILLMESH_ADMIN_TOKEN: ADMIN_TOKEN }, out: (l) => lines.push(l), fetch });

beforeAll(async () => {
  mesh = await startMesh({
    skills: [fixture("echo-v1"), fixture("echo-v2")],
    adminToken: ADMIN_TOKEN,
    upstash: { url: inject("redisRestUrl"), token: inject("redisRestToken") },
    gatewayVars: { SKILLMESH_STORE_PREFIX: `canary-${process.pid}:` },
  });
});
afterAll(() => mesh?.dispose());
// Every test starts from 1.0.0 stable at 100% in every group, whatever the one before did.
beforeEach(() => cli("promote", "test.echo", "1.0.0"));

/** Calls test.echo once per user (16 at a time); returns the version each user got. */
async function versionsFor(users: Array<{ id: string; group?: string }>): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  let next = 0;
  const worker = async () => {
    while (next < users.length) {
      const user = users[next++]!;
      const headers: Record<string, string> = { "x-user-id": user.id, ...(user.group ? { "x-user-group": user.group } : {}) };
      const answer = await wireOf(mesh.gatewayUrl).rpc("test.echo", undefined, { headers });
      expect(answer.headers.get("x-skill-version")).toBe(`test.echo@${answer.json.result.version}`);
      seen.set(user.id, answer.json.result.version);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return seen;
}

const canaryShare = (seen: Map<string, string>, ids: string[]) => ids.filter((id) => seen.get(id) === "2.0.0").length / ids.length;

describe("canary by X-User-Group", () => {
  const groups = ["beta", "vip", undefined, "gamma"] as const;
  const users = Array.from({ length: 10_000 }, (_, i) => ({ id: `user-${i}`, group: groups[i % 4] }));
  const table = () => cli("canary", "test.echo", "2.0.0", "--group", "beta=100", "--group", "vip=20", "--group", "*=5");

  it("splits 10,000 distinct users per group within 2 points of the table", async () => {
    await table();
    expect(lines.at(-1)).toBeDefined();
    const first = await versionsFor(users);
    const idsOf = (group: string | undefined) => users.filter((u) => u.group === group).map((u) => u.id);
    expect(canaryShare(first, idsOf("beta"))).toBe(1);
    expect(Math.abs(canaryShare(first, idsOf("vip")) - 0.2)).toBeLessThanOrEqual(0.02);
    expect(Math.abs(canaryShare(first, idsOf(undefined)) - 0.05)).toBeLessThanOrEqual(0.02);
    expect(Math.abs(canaryShare(first, idsOf("gamma")) - 0.05)).toBeLessThanOrEqual(0.02); // unknown group → *
  }, 90_000);

  it("sends the same user to the same version every time", async () => {
    await table();
    const sample = users.filter((_, i) => i % 25 === 0); // every group
    const first = await versionsFor(sample);
    const second = await versionsFor(sample);
    for (const user of sample) expect(second.get(user.id), user.id).toBe(first.get(user.id));
    expect(new Set(first.values())).toEqual(new Set(["1.0.0", "2.0.0"]));
  });

  it("without X-User-Id, sticks to the caller's key", async () => {
    await cli("canary", "test.echo", "2.0.0", "--group", "*=50");
    const versionsOf = async (caller: string) => {
      const seen = new Set<string>();
      for (let i = 0; i < 6; i++) seen.add((await wireOf(mesh.gatewayUrl).rpc("test.echo", undefined, { key: caller })).json.result.version);
      return [...seen];
    };
    const perCaller = await Promise.all(Array.from({ length: 24 }, (_, i) => versionsOf(`caller-key-${i}`)));
    for (const versions of perCaller) expect(versions).toHaveLength(1);
    expect(new Set(perCaller.flat())).toEqual(new Set(["1.0.0", "2.0.0"]));
  });

  it("raising a canary from 10% to 20% keeps every earlier canary user on it", async () => {
    const crowd = Array.from({ length: 2_000 }, (_, i) => ({ id: `crowd-${i}` }));
    const ids = crowd.map((u) => u.id);
    await cli("canary", "test.echo", "2.0.0", "--group", "*=10");
    const at10 = await versionsFor(crowd);
    await cli("canary", "test.echo", "2.0.0", "--group", "*=20");
    const at20 = await versionsFor(crowd);
    const canaryAt10 = ids.filter((id) => at10.get(id) === "2.0.0");
    expect(canaryAt10.length).toBeGreaterThan(120);
    expect(canaryAt10.every((id) => at20.get(id) === "2.0.0")).toBe(true);
    expect(Math.abs(canaryShare(at20, ids) - 0.2)).toBeLessThanOrEqual(0.03);
  }, 60_000);

  it("rollback sends everyone back to stable, and status shows the weights and the events", async () => {
    await cli("canary", "test.echo", "2.0.0", "--group", "beta=100", "--group", "vip=20", "--group", "*=20");
    await cli("rollback", "test.echo");
    const after = await versionsFor(users.slice(0, 400));
    expect([...after.values()].every((v) => v === "1.0.0")).toBe(true);
    lines.length = 0;
    await cli("status", "test.echo");
    const text = lines.join("\n");
    expect(text).toMatch(/1\.0\.0\s+stable\s+100%\s+100%\s+100%/);
    expect(text).toMatch(/2\.0\.0\s+canary\s+0%\s+0%\s+0%/);
    expect(text).toMatch(/rollback .*every canary rolled back to 1\.0\.0/);
    expect(text).toMatch(/canary\s+2\.0\.0\s+admin-token\s+canary 2\.0\.0: \*=20/);
  });
});

describe("skillmesh CLI errors", () => {
  it("refuses weights that do not add up, unknown skills and versions, and a bad token, with the reason", async () => {
    await cli("canary", "test.echo", "2.0.0", "--group", "vip=30");
    await expect(cli("canary", "test.echo", "9.9.9", "--group", "vip=5")).rejects.toThrow(/test\.echo has no version 9\.9\.9; registered: 1\.0\.0, 2\.0\.0/);
    await expect(cli("promote", "nope", "1.0.0")).rejects.toThrow("No skill nope is registered");
    await expect(cli("canary", "test.echo", "2.0.0", "--group", "vip=101")).rejects.toThrow(/vip.*100/);
    await expect(cli("canary", "test.echo", "2.0.0", "--group", "vip")).rejects.toThrow(/<group>=<percent>/);
    await expect(cli("canary", "test.echo", "1.0.0", "--group", "vip=5")).rejects.toThrow(/already the stable version/);
    await expect(runCli(["status"], { env: { SKILLMESH_URL: mesh.gatewayUrl, SKILLMESH_ADMIN_TOKEN: "wrong" }, out: () => {}, fetch })).rejects.toThrow(
      /refused the admin token/,
    );
    await expect(runCli(["status"], { env: { SKILLMESH_URL: mesh.gatewayUrl }, out: () => {}, fetch })).rejects.toThrow(/SKILLMESH_ADMIN_TOKEN is not set/);
  });

  it("promote makes the canary stable everywhere", async () => {
    await cli("promote", "test.echo", "2.0.0");
    const after = await versionsFor(Array.from({ length: 200 }, (_, i) => ({ id: `p-${i}`, group: i % 2 ? "vip" : undefined })));
    expect(new Set(after.values())).toEqual(new Set(["2.0.0"]));
  });
});
