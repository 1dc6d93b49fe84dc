/**
 * Agent Skills packages through the admin API of a gateway in workerd, the files in the R2 bucket
 * Miniflare simulates: a package is registered, listed and read back byte for byte with its
 * digests; a package that breaks the format, names a tool the gateway does not serve, or changes
 * under a registered version is refused, naming why, and changes nothing.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, fixture } from "./support/fixtures.js";

let mesh: Mesh;
beforeAll(async () => {
  mesh = await startMesh({ skills: [fixture("subtract")], adminToken: ADMIN_TOKEN });
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
    files: [{ path: "SKILL.md", content: SKILL_MD(version, extra) }, { path: "references/RULES.md", content: RULES }, { path: "assets/pixel.png", content: PIXEL.toString("base64"), encoding: "base64" }, ...more],
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
    const files = [{ path: "SKILL.md", content: '---\nname: ghost\ndescription: Uses a tool that is not there.\nallowed-tools: nothing.here subtract\nmetadata:\n  version: "1.0.0"\n---\nCall it.\n' }];
    const refused = await admin(mesh.gatewayUrl, "POST", "/agent-skills", { name: "ghost", files });
    expect(refused.status).toBe(400);
    expect(refused.json.error.issues).toEqual(["allowed-tools: nothing.here is not a registered skill"]);
  });

  it("refuses bad base64 and an admin API call without the token", async () => {
    const bad = await admin(mesh.gatewayUrl, "POST", "/agent-skills", { name: "x", files: [{ path: "SKILL.md", content: "%%%", encoding: "base64" }] });
    expect(bad.status).toBe(400);
    expect((await admin(mesh.gatewayUrl, "GET", "/agent-skills", undefined, "")).status).toBe(401);
  });

  it("removes one version, not the stable one while others remain, then the package", async () => {
    expect((await admin(mesh.gatewayUrl, "DELETE", "/agent-skills/arithmetic-check?version=1.0.0")).status).toBe(409);
    expect((await admin(mesh.gatewayUrl, "DELETE", "/agent-skills/arithmetic-check?version=1.1.0")).json).toEqual({ removed: ["1.1.0"] });
    expect((await admin(mesh.gatewayUrl, "DELETE", "/agent-skills/arithmetic-check")).json).toEqual({ removed: ["1.0.0"] });
    expect((await admin(mesh.gatewayUrl, "GET", "/agent-skills/arithmetic-check")).status).toBe(404);
  });
});
