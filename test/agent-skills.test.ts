/**
 * Agent Skills packages through the admin API of a gateway in workerd, the files in the R2 bucket
 * Miniflare simulates: a package is registered, listed and read back byte for byte with its
 * digests; a package that breaks the format, names a tool the gateway does not serve, or changes
 * under a registered version is refused, naming why, and changes nothing. Over MCP (both eras) the
 * official clients list and read them as `skill://` resources, and the Skills extension's
 * `skills/list` and `skills/get` give every file's digest; a key sees only the packages whose
 * tools it may call.
 */
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { unpackTar } from "modern-tar";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
beforeAll(async () => {
  mesh = await startMesh({ skills: [fixture("subtract"), fixture("flaky-v1")], adminToken: ADMIN_TOKEN, gatewayVars: { SKILLMESH_AUTH: "required" } });
}, 120_000);
afterAll(() => mesh?.dispose());

const SKILL_MD = (version: string, extra = "") => `---
name: arithmetic-check
description: Checks a subtraction by calling the subtract tool. Use when a user asks whether a difference is right.
allowed-tools: subtract Read
metadata:
  version: "${version}"
---
Call \`subtract\` with the two numbers, then compare. See [the rules](references/RULES.md).${extra}
`;
const RULES = "# Rules\nA difference is minuend minus subtrahend.\n";
const PIXEL = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);
const upload = (version: string, extra = "", more: object[] = []) =>
  admin(mesh.gatewayUrl, "POST", "/agent-skills", {
    name: "arithmetic-check",
    files: [
      { path: "SKILL.md", content: SKILL_MD(version, extra) },
      { path: "references/RULES.md", content: RULES },
      { path: "assets/pixel.png", content: PIXEL.toString("base64"), encoding: "base64" },
      ...more,
    ],
  });
const sha = (bytes: Buffer | string) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

describe("Agent Skills packages", () => {
  it("registers a package: its files stored by digest, its index listed", async () => {
    const registered = await upload("1.0.0");
    expect(registered.status, JSON.stringify(registered.json)).toBe(201);
    // "subtract" is not dotted: a host tool name as far as allowed-tools goes (only dotted names are Skillmesh's).
    expect(registered.json).toMatchObject({ name: "arithmetic-check", version: "1.0.0", changed: true });
    expect(registered.json.files).toEqual([
      { path: "SKILL.md", digest: sha(SKILL_MD("1.0.0")), bytes: Buffer.byteLength(SKILL_MD("1.0.0")) },
      { path: "assets/pixel.png", digest: sha(PIXEL), bytes: PIXEL.length },
      { path: "references/RULES.md", digest: sha(RULES), bytes: Buffer.byteLength(RULES) },
    ]);
    const listed = (await admin(mesh.gatewayUrl, "GET", "/agent-skills")).json.agentSkills;
    expect(listed.map((p: { name: string; stable: string }) => [p.name, p.stable])).toEqual([["arithmetic-check", "1.0.0"]]);
    // The bytes in the bucket are the uploaded ones (the binary file too).
    const bucket = await mesh.miniflare.getR2Bucket("AGENT_SKILL_FILES", "gateway");
    const stored = await bucket.get(sha(PIXEL).replace("sha256:", "sha256/"));
    expect(Buffer.from(await stored!.arrayBuffer())).toEqual(PIXEL);
  });

  it("answers the same upload again as unchanged, and a changed one under the same version with 409", async () => {
    const again = await upload("1.0.0");
    expect(again.status).toBe(200);
    expect(again.json.changed).toBe(false);
    const changed = await upload("1.0.0", "\nAlso check the sign.");
    expect(changed.status).toBe(409);
    expect(changed.json.error.message).toContain("needs a new metadata.version");
    const second = await upload("1.1.0", "\nAlso check the sign.");
    expect(second.status).toBe(201);
    const record = (await admin(mesh.gatewayUrl, "GET", "/agent-skills/arithmetic-check")).json;
    expect(Object.keys(record.versions).sort()).toEqual(["1.0.0", "1.1.0"]);
    expect(record.stable).toBe("1.0.0");
  });

  it("refuses a package that breaks the format, naming every problem, and changes nothing", async () => {
    const before = (await admin(mesh.gatewayUrl, "GET", "/agent-skills")).json;
    const bad = await admin(mesh.gatewayUrl, "POST", "/agent-skills", {
      name: "Bad_Name",
      files: [{ path: "SKILL.md", content: "---\nname: Bad_Name\ndescription: x\nauthor: me\n---\nRead references/MISSING.md.\n" }],
    });
    expect(bad.status).toBe(400);
    const problems = bad.json.error.issues.join("\n");
    expect(problems).toMatch(/unexpected field\(s\) author/);
    expect(problems).toMatch(/name must be lowercase/);
    expect(problems).toMatch(/refers to references\/MISSING\.md/);
    expect((await admin(mesh.gatewayUrl, "GET", "/agent-skills")).json).toEqual(before);
  });

  it("refuses a package whose allowed-tools names a Skillmesh tool the gateway does not serve", async () => {
    const files = [
      {
        path: "SKILL.md",
        content:
          '---\nname: ghost\ndescription: Uses a tool that is not there.\nallowed-tools: nothing.here subtract\nmetadata:\n  version: "1.0.0"\n---\nCall it.\n',
      },
    ];
    const refused = await admin(mesh.gatewayUrl, "POST", "/agent-skills", { name: "ghost", files });
    expect(refused.status).toBe(400);
    expect(refused.json.error.issues).toEqual(["allowed-tools: nothing.here is not a registered skill"]);
  });

  it("refuses bad base64 and an admin API call without the token", async () => {
    const bad = await admin(mesh.gatewayUrl, "POST", "/agent-skills", { name: "x", files: [{ path: "SKILL.md", content: "%%%", encoding: "base64" }] });
    expect(bad.status).toBe(400);
    expect((await admin(mesh.gatewayUrl, "GET", "/agent-skills", undefined, "")).status).toBe(401);
  });

  it("removes one version, not the stable one, then the package", async () => {
    expect((await admin(mesh.gatewayUrl, "DELETE", "/agent-skills/arithmetic-check?version=1.0.0")).status).toBe(409);
    expect((await admin(mesh.gatewayUrl, "DELETE", "/agent-skills/arithmetic-check?version=1.1.0")).json).toEqual({ removed: ["1.1.0"] });
    expect((await admin(mesh.gatewayUrl, "DELETE", "/agent-skills/arithmetic-check")).json).toEqual({ removed: ["1.0.0"] });
    expect((await admin(mesh.gatewayUrl, "GET", "/agent-skills/arithmetic-check")).status).toBe(404);
  });
});

describe("Agent Skills over MCP", () => {
  let everything: string;
  let onlySubtract: string;
  beforeAll(async () => {
    expect((await upload("1.0.0")).status).toBe(201);
    const notes =
      '---\nname: flaky-notes\ndescription: How to read test.flaky answers.\nallowed-tools: test.flaky\nmetadata:\n  version: "1.0.0"\n---\nCall test.flaky.\n';
    expect((await admin(mesh.gatewayUrl, "POST", "/agent-skills", { name: "flaky-notes", files: [{ path: "SKILL.md", content: notes }] })).status).toBe(201);
    everything = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "all", skills: ["*"] })).json.key;
    onlySubtract = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "subtract-only", skills: ["subtract"] })).json.key;
  });
  const headers = (key: string) => ({ authorization: `Bearer ${key}` });

  it("lists and reads the packages' files as skill:// resources with the official v1 client, byte for byte", async () => {
    const client = new Client({ name: "agent-skills-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${mesh.gatewayUrl}/mcp`), { requestInit: { headers: headers(everything) } }));
    expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: true });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["skill://arithmetic-check/SKILL.md", "skill://flaky-notes/SKILL.md"]);
    expect(resources[0]).toMatchObject({ name: "arithmetic-check", mimeType: "text/markdown" });
    const skillMd = await client.readResource({ uri: "skill://arithmetic-check/SKILL.md" });
    expect(skillMd.contents).toEqual([{ uri: "skill://arithmetic-check/SKILL.md", mimeType: "text/markdown", text: SKILL_MD("1.0.0") }]);
    const pixel = await client.readResource({ uri: "skill://arithmetic-check/assets/pixel.png" });
    expect(Buffer.from((pixel.contents[0] as { blob: string }).blob, "base64")).toEqual(PIXEL);
    await expect(client.readResource({ uri: "skill://arithmetic-check/references/NOPE.md" })).rejects.toThrow(/Resource not found/);
    await client.close();
  });

  it("answers the Skills extension (skills/list, skills/get) in 2026-07-28 with every digest, as the v2 client reads it", async () => {
    const client = new ClientV2({ name: "agent-skills-test-v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new TransportV2(new URL(`${mesh.gatewayUrl}/mcp`), { requestInit: { headers: headers(everything) } }));
    expect(client.getServerCapabilities()?.extensions).toMatchObject({ "io.modelcontextprotocol/skills": {} });
    const read = await client.readResource({ uri: "skill://arithmetic-check/references/RULES.md" });
    expect(read.contents[0]).toMatchObject({ text: RULES });
    await client.close();

    const call = (method: string, params: Record<string, unknown>) =>
      wireOf(mesh.gatewayUrl).mcp2026(method, params, { key: everything, meta: { "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" } } });
    const listed = (await call("skills/list", {})).json.result;
    expect(listed).toMatchObject({ resultType: "complete", ttlMs: expect.any(Number), cacheScope: "private" });
    const entry = listed.skills.find((s: { uri: string }) => s.uri === "skill://arithmetic-check/SKILL.md");
    expect(entry.frontmatter).toEqual({
      name: "arithmetic-check",
      description: expect.any(String),
      "allowed-tools": "subtract Read",
      metadata: { version: "1.0.0" },
    });
    // Every file, each digest the SHA-256 of the bytes a resources/read gives, and its size (SEP-2640, final).
    expect(entry.resources).toEqual([
      { uri: "skill://arithmetic-check/SKILL.md", digest: sha(SKILL_MD("1.0.0")), size: Buffer.byteLength(SKILL_MD("1.0.0")) },
      { uri: "skill://arithmetic-check/assets/pixel.png", digest: sha(PIXEL), size: PIXEL.length },
      { uri: "skill://arithmetic-check/references/RULES.md", digest: sha(RULES), size: Buffer.byteLength(RULES) },
    ]);
    const got = (await call("skills/get", { uri: "skill://arithmetic-check/SKILL.md" })).json.result;
    expect(got).toMatchObject({
      resultType: "complete",
      ttlMs: expect.any(Number),
      cacheScope: "private",
      skill: { uri: entry.uri, frontmatter: entry.frontmatter, resources: entry.resources },
    });
    expect((await call("skills/get", { uri: "skill://nothing/SKILL.md" })).json.error.code).toBe(-32602);
  });

  it("serves the well-known index (discovery v0.2.0) and its files, every digest the SHA-256 of what is served", async () => {
    const index = await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/index.json`, { headers: headers(everything) });
    expect(index.headers.get("content-type")).toBe("application/json");
    const body = (await index.json()) as { $schema: string; skills: Array<{ name: string; type: string; url: string; digest: string; description: string }> };
    expect(body.$schema).toBe("https://schemas.agentskills.io/discovery/0.2.0/schema.json");
    // A package of several files is an archive; one of SKILL.md alone is that file.
    expect(body.skills.map((s) => [s.name, s.type, s.url])).toEqual([
      ["arithmetic-check", "archive", "/.well-known/agent-skills/arithmetic-check.tar.gz"],
      ["flaky-notes", "skill-md", "/.well-known/agent-skills/flaky-notes/SKILL.md"],
    ]);
    for (const skill of body.skills) {
      const file = await fetch(new URL(skill.url, index.url), { headers: headers(everything) });
      expect(file.headers.get("content-type")).toMatch(skill.type === "archive" ? /^application\/gzip$/ : /^text\/markdown/);
      expect(sha(Buffer.from(await file.arrayBuffer()))).toBe(skill.digest);
    }
    // The archive holds every file of the package at its root, byte for byte, SKILL.md first.
    const archive = Buffer.from(
      await (await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/arithmetic-check.tar.gz`, { headers: headers(everything) })).arrayBuffer(),
    );
    const entries = await unpackTar(gunzipSync(archive));
    expect(entries.map((e) => [e.header.name, e.header.type, Buffer.from(e.data!)])).toEqual([
      ["SKILL.md", "file", Buffer.from(SKILL_MD("1.0.0"))],
      ["assets/pixel.png", "file", PIXEL],
      ["references/RULES.md", "file", Buffer.from(RULES)],
    ]);
    expect((await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/flaky-notes.tar.gz`, { headers: headers(everything) })).status).toBe(404);
    // SKILL.md's relative link resolves against its URL, and HEAD answers too.
    const rules = await fetch(new URL("references/RULES.md", `${mesh.gatewayUrl}/.well-known/agent-skills/arithmetic-check/SKILL.md`), {
      headers: headers(everything),
    });
    expect(await rules.text()).toBe(RULES);
    expect(
      (await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/arithmetic-check/SKILL.md`, { method: "HEAD", headers: headers(everything) })).status,
    ).toBe(200);
    // Cacheable: an unchanged index or file is a 304.
    const etag = index.headers.get("etag")!;
    expect((await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/index.json`, { headers: { ...headers(everything), "if-none-match": etag } })).status).toBe(
      304,
    );
    // Behind the same credentials as /mcp; what does not exist is a 404.
    expect((await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/index.json`)).status).toBe(401);
    expect((await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/arithmetic-check/NOPE.md`, { headers: headers(everything) })).status).toBe(404);
  });

  it("shows a key only the packages whose tools it may call or that its grants name, in listings and reads", async () => {
    const flakyOnly = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "flaky-only", skills: ["test.flaky"] })).json.key;
    const named = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "named-package", skills: ["subtract", "arithmetic-*"] })).json.key;
    const indexOf = async (key: string) =>
      (
        (await (await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/index.json`, { headers: headers(key) })).json()) as { skills: Array<{ name: string }> }
      ).skills.map((s) => s.name);
    // flaky-notes names test.flaky: a key that may call it sees it. arithmetic-check names no
    // Skillmesh tool ("subtract" is not dotted): only grants that name it open it, not the package's word.
    expect(await indexOf(flakyOnly)).toEqual(["flaky-notes"]);
    expect(await indexOf(named)).toEqual(["arithmetic-check"]);
    expect(await indexOf(onlySubtract)).toEqual([]);
    expect((await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/flaky-notes/SKILL.md`, { headers: headers(named) })).status).toBe(404);
    expect((await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/arithmetic-check/SKILL.md`, { headers: headers(onlySubtract) })).status).toBe(404);
    const call = (method: string, params: object) => wireOf(mesh.gatewayUrl).mcp2025(method, params, { key: named });
    expect((await call("skills/list", {})).json.result.skills.map((s: { uri: string }) => s.uri)).toEqual(["skill://arithmetic-check/SKILL.md"]);
    expect((await call("resources/list", {})).json.result.resources.map((r: { uri: string }) => r.uri)).toEqual(["skill://arithmetic-check/SKILL.md"]);
    // Hidden and missing are one answer: 2025-11-25's "resource not found" (-32002).
    expect((await call("resources/read", { uri: "skill://flaky-notes/SKILL.md" })).json.error).toMatchObject({ code: -32002, message: "Resource not found" });
    expect((await call("resources/read", { uri: "skill://no-such-package/SKILL.md" })).json.error).toMatchObject({
      code: -32002,
      message: "Resource not found",
    });
    expect((await call("skills/get", { uri: "skill://flaky-notes/SKILL.md" })).json.error.code).toBe(-32602);
  });
});

describe("A canary of a SKILL.md version", () => {
  const NAME = "sign-check";
  const skillMd = (version: string, body: string) =>
    `---\nname: ${NAME}\ndescription: Checks the sign of a difference.\nallowed-tools: subtract\nmetadata:\n  version: "${version}"\n---\n${body}\n`;
  const V1 = skillMd("1.0.0", "Call subtract; the sign is the answer's.");
  const V2 = skillMd("2.0.0", "Call subtract twice, once each way, and compare the signs.");
  let key: string;
  beforeAll(async () => {
    for (const text of [V1, V2])
      expect((await admin(mesh.gatewayUrl, "POST", "/agent-skills", { name: NAME, files: [{ path: "SKILL.md", content: text }] })).status).toBe(201);
    key = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "canary-reader", skills: ["*"], groups: ["*"] })).json.key;
  });
  /** SKILL.md as one user of one group reads it over MCP (resources/read), with the digest skills/list gives it. */
  async function readOverMcp(user: string, group?: string) {
    const headers = { authorization: `Bearer ${key}`, "x-user-id": user, ...(group ? { "x-user-group": group } : {}), "mcp-protocol-version": "2025-11-25" };
    const listed = (await post(`${mesh.gatewayUrl}/mcp`, { jsonrpc: "2.0", id: 1, method: "skills/list", params: {} }, headers)).json.result.skills.find(
      (s: { uri: string }) => s.uri === `skill://${NAME}/SKILL.md`,
    );
    const read = (
      await post(`${mesh.gatewayUrl}/mcp`, { jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: `skill://${NAME}/SKILL.md` } }, headers)
    ).json.result.contents[0].text as string;
    expect(listed.resources[0].digest).toBe(sha(read)); // the listing and the read agree on the version
    return read;
  }
  /** The same over HTTP (the well-known file). */
  const readOverHttp = async (user: string, group?: string) =>
    (
      await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/${NAME}/SKILL.md`, {
        headers: { authorization: `Bearer ${key}`, "x-user-id": user, ...(group ? { "x-user-group": group } : {}) },
      })
    ).text();
  const users = Array.from({ length: 40 }, (_, i) => `user-${i}`);

  it("serves the stable version until a canary is set; a new version starts at 0%", async () => {
    expect(await readOverMcp("user-1", "beta")).toBe(V1);
    expect(await readOverHttp("user-1")).toBe(V1);
  });

  it("splits callers by X-User-Group, sticky by user, over MCP and HTTP alike", async () => {
    const canary = await admin(mesh.gatewayUrl, "POST", `/agent-skills/${NAME}/canary`, { version: "2.0.0", groups: { beta: 100, "*": 50 } });
    expect(canary.status, JSON.stringify(canary.json)).toBe(200);
    expect(canary.json).toMatchObject({
      name: NAME,
      stable: "1.0.0",
      routes: { beta: { "1.0.0": 0, "2.0.0": 100 }, "*": { "1.0.0": 50, "2.0.0": 50 } },
      event: { type: "canary", version: "2.0.0" },
    });
    // All of beta on 2.0.0.
    for (const user of users.slice(0, 5)) expect(await readOverMcp(user, "beta")).toBe(V2);
    // Everyone else split about half and half, each user on the same version every time, on both ways in.
    const seen = await Promise.all(users.map(async (user) => [await readOverMcp(user), await readOverMcp(user), await readOverHttp(user)] as const));
    for (const [first, again, http] of seen) expect([again, http]).toEqual([first, first]);
    const onCanary = seen.filter(([first]) => first === V2).length;
    expect(onCanary).toBeGreaterThan(8);
    expect(onCanary).toBeLessThan(32);
    // The canary is audited as an admin change.
    const audit = (await admin(mesh.gatewayUrl, "GET", "/audit?type=admin")).json.entries as Array<{ action: string }>;
    expect(audit.map((e) => e.action)).toContain(`POST /admin/agent-skills/${NAME}/canary`);
  });

  it("rolls back to the stable version, and promotes the canary to it", async () => {
    expect((await admin(mesh.gatewayUrl, "POST", `/agent-skills/${NAME}/rollback`, {})).json.routes).toEqual({
      beta: { "1.0.0": 100, "2.0.0": 0 },
      "*": { "1.0.0": 100, "2.0.0": 0 },
    });
    for (const user of users.slice(0, 10)) expect(await readOverMcp(user, user === "user-0" ? "beta" : undefined)).toBe(V1);
    const promoted = await admin(mesh.gatewayUrl, "POST", `/agent-skills/${NAME}/promote`, { version: "2.0.0" });
    expect(promoted.json).toMatchObject({ stable: "2.0.0", event: { type: "promote" } });
    for (const user of users.slice(0, 10)) expect(await readOverHttp(user)).toBe(V2);
    // An unknown version or package is refused, naming it; nothing changes.
    expect((await admin(mesh.gatewayUrl, "POST", `/agent-skills/${NAME}/canary`, { version: "9.9.9", groups: { beta: 10 } })).json.error.message).toContain(
      "has no version 9.9.9",
    );
    expect((await admin(mesh.gatewayUrl, "POST", "/agent-skills/nobody/promote", { version: "1.0.0" })).status).toBe(404);
    // The old stable version can be removed now; its callers were on 2.0.0 already.
    expect((await admin(mesh.gatewayUrl, "DELETE", `/agent-skills/${NAME}?version=1.0.0`)).json).toEqual({ removed: ["1.0.0"] });
    expect((await admin(mesh.gatewayUrl, "GET", `/agent-skills/${NAME}`)).json.routes).toEqual({ beta: { "2.0.0": 100 }, "*": { "2.0.0": 100 } });
  });
});

describe("Reads of package files are charged and audited as calls", () => {
  it("counts every read against the caller's rate, over MCP and HTTP, and audits each one", async () => {
    const key = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "reader-3-an-hour", skills: ["*"], rate: "3/h" })).json.key;
    const auth = { authorization: `Bearer ${key}` };
    const mcpRead = (uri: string) => wireOf(mesh.gatewayUrl).mcp2025("resources/read", { uri }, { key });
    const httpRead = (path: string) => fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/arithmetic-check/${path}`, { headers: auth });
    expect((await mcpRead("skill://arithmetic-check/SKILL.md")).json.result.contents[0].text).toContain("Call `subtract`");
    expect(await (await httpRead("references/RULES.md")).text()).toBe(RULES);
    // Listings are not charged (as tools/list is not): the third read still goes through.
    for (let i = 0; i < 3; i++)
      expect(
        (await post(`${mesh.gatewayUrl}/mcp`, { jsonrpc: "2.0", id: 2, method: "skills/list", params: {} }, { ...auth, "mcp-protocol-version": "2025-11-25" }))
          .json.result,
      ).toBeDefined();
    const third = await httpRead("SKILL.md");
    expect(third.status).toBe(200);
    expect(third.headers.get("ratelimit")).toMatch(/r=0/);
    // The rate is used up: HTTP answers 429 with Retry-After, MCP -32005.
    const refused = await httpRead("SKILL.md");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await mcpRead("skill://arithmetic-check/SKILL.md")).json.error.code).toBe(-32005);
    // Each read is in the audit log: the caller, the file, the version, how it went; a missing file
    // too — charged before it is looked up, so over the rate it is refused as any read.
    expect((await httpRead("NOPE.md")).status).toBe(429);
    const caller = (await admin(mesh.gatewayUrl, "GET", "/keys")).json.keys.find((k: { name: string }) => k.name === "reader-3-an-hour").id;
    const entries = (await admin(mesh.gatewayUrl, "GET", `/audit?caller=${caller}&skill=arithmetic-check`)).json.entries as Array<{
      method: string;
      resource: string;
      deployment?: string;
      code: number;
    }>;
    expect(entries.map((e) => [e.method, e.resource, e.deployment, e.code]).reverse()).toEqual([
      ["resources/read", "skill://arithmetic-check/SKILL.md", "arithmetic-check@1.0.0", 0],
      ["GET /.well-known/agent-skills", "skill://arithmetic-check/references/RULES.md", "arithmetic-check@1.0.0", 0],
      ["GET /.well-known/agent-skills", "skill://arithmetic-check/SKILL.md", "arithmetic-check@1.0.0", 0],
      // Refused by the rate before anything answered, as a call is.
      ["GET /.well-known/agent-skills", "skill://arithmetic-check/SKILL.md", undefined, -32005],
      ["resources/read", "skill://arithmetic-check/SKILL.md", undefined, -32005],
      ["GET /.well-known/agent-skills", "skill://arithmetic-check/NOPE.md", undefined, -32005],
    ]);
  });

  it("charges a read of a file the caller cannot see or that does not exist, as a read of one it can (security review 3, #10)", async () => {
    const key = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "scanner-2-an-hour", skills: ["subtract"], rate: "2/h" })).json.key;
    const auth = { authorization: `Bearer ${key}` };
    // flaky-notes is hidden from this key, no-such-package does not exist: 404 either way, and each is charged.
    expect((await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/flaky-notes/SKILL.md`, { headers: auth })).status).toBe(404);
    const miss = await post(
      `${mesh.gatewayUrl}/mcp`,
      { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "skill://no-such-package/SKILL.md" } },
      { ...auth, "mcp-protocol-version": "2025-11-25" },
    );
    expect(miss.json.error.code).toBe(-32002);
    const third = await fetch(`${mesh.gatewayUrl}/.well-known/agent-skills/flaky-notes/SKILL.md`, { headers: auth });
    expect(third.status).toBe(429);
    // The key's calls are refused too: the two misses used its rate up.
    expect((await post(`${mesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "subtract", params: [3, 1], id: 1 }, auth)).json.error.code).toBe(-32005);
  });
});
