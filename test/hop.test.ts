/**
 * Signed hops in workerd: the gateway holds an Ed25519 private key (`SKILLMESH_HOP_KEY`), a skill
 * registered by URL only its public key (`SKILLMESH_HOP_PUBLIC_KEY`). The skill serves only calls
 * the gateway signed for it (and believes their caller context); unsigned, stale, tampered,
 * foreign-key and replayed-to-another-version calls are refused with 401 — and nothing a skill
 * holds can make a signature or a delegation token (security review round 2, findings 1 and 12).
 */
import { createHash, createHmac } from "node:crypto";
import { type IncomingHttpHeaders, type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, registerSkill, startMesh } from "../scripts/mesh/index.js";
import { encodeContext } from "../src/protocols/context/index.js";
import { generateHopKeys, hopSigningKey, signHop } from "../src/protocols/hop/index.js";
import { ADMIN_TOKEN, admin, fixture, post } from "./support/fixtures.js";

const HOP_KEYS = await generateHopKeys();
let mesh: Mesh;
let whoami: string;
/** A deployment of another version of test.whoami that records what the gateway sends it (a compromised one). */
let capture: Server;
const captured: Array<{ headers: IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  mesh = await startMesh({
    skills: [fixture("whoami")],
    adminToken: ADMIN_TOKEN,
    register: false,
    gatewayVars: { SKILLMESH_HOP_KEY: HOP_KEYS.privateKey },
    // The skill trusts signatures, not its network: SKILLMESH_TRUST_CONTEXT is off.
    skillVars: { SKILLMESH_HOP_PUBLIC_KEY: HOP_KEYS.publicKey, SKILLMESH_TRUST_CONTEXT: "false" },
  });
  whoami = mesh.skills[0]!.url;
  await registerSkill(mesh.gatewayUrl, ADMIN_TOKEN, { url: whoami });
  capture = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      captured.push({ headers: request.headers, body });
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", result: { userId: null, group: null, session: null, caller: "anonymous", traceparent: null }, id: 1 }));
    });
  });
  await new Promise<void>((resolve) => capture.listen(0, "127.0.0.1", resolve));
  const captureUrl = `http://127.0.0.1:${(capture.address() as AddressInfo).port}/`;
  await registerSkill(mesh.gatewayUrl, ADMIN_TOKEN, { url: captureUrl }, { manifest: { ...mesh.skills[0]!.manifest, version: "2.0.0" } });
  expect((await admin(mesh.gatewayUrl, "POST", "/skills/test.whoami/canary", { version: "2.0.0", groups: { beta: 100 } })).status).toBe(200);
});
afterAll(async () => {
  await mesh?.dispose();
  await new Promise((resolve) => capture?.close(resolve));
});

const body = JSON.stringify({ jsonrpc: "2.0", method: "test.whoami", params: {}, id: 1 });
const forged = encodeContext({ userId: "admin", group: "staff", caller: "k_0123456789ab" });
const direct = (headers: Record<string, string>) => post(whoami, body, headers);
const parts = { method: "POST", path: "/", deployment: "test.whoami@1.0.0", body, context: forged, delegation: "", callKey: "" };
const gatewaySigned = async (changes: Partial<typeof parts> = {}, now = Date.now()) =>
  signHop(await hopSigningKey(HOP_KEYS.privateKey), { ...parts, ...changes }, now);

it("a call through the gateway is signed, and its caller context is believed", async () => {
  const { json } = await post(`${mesh.gatewayUrl}/rpc`, body, { "x-user-id": "alice", "x-user-group": "staff" });
  expect(json.result).toMatchObject({ userId: "alice", group: "staff", caller: "anonymous" });
});

it("refuses a direct call that is unsigned, stale, tampered or signed with another key", async () => {
  const other = await generateHopKeys();
  const cases = {
    unsigned: {},
    stale: { "x-skillmesh-signature": await gatewaySigned({}, Date.now() - 120_000) },
    tampered: { "x-skillmesh-signature": await gatewaySigned({ context: encodeContext({ caller: "anonymous" }) }) },
    "another key": { "x-skillmesh-signature": await signHop(await hopSigningKey(other.privateKey), parts) },
  };
  for (const [what, signature] of Object.entries(cases)) {
    const answer = await direct({ "x-skillmesh-context": forged, ...signature });
    expect(answer.status, what).toBe(401);
    expect(answer.json.error.code, what).toBe(-32006);
  }
});

it("serves a direct call signed with the gateway's key, context included (the check is real, not a blanket refusal)", async () => {
  const answer = await direct({ "x-skillmesh-context": forged, "x-skillmesh-signature": await gatewaySigned() });
  expect(answer.status).toBe(200);
  expect(answer.json.result).toMatchObject({ userId: "admin", group: "staff" });
});

describe("what a skill holds acts for nobody", () => {
  it("its public key signs nothing the skill accepts: used as the old shared secret, the call is refused", async () => {
    // The old hop signature: HMAC-SHA256 with the secret every skill held, over t, POST, path, the body's SHA-256 and the context.
    const t = Date.now();
    const bodyHash = createHash("sha256").update(body).digest("hex");
    const v1 = createHmac("sha256", HOP_KEYS.publicKey).update(`${t}\nPOST\n/\n${bodyHash}\n${forged}`).digest("hex");
    const answer = await direct({ "x-skillmesh-context": forged, "x-skillmesh-signature": `t=${t},v1=${v1}` });
    expect(answer.status).toBe(401);
    expect(answer.json.error.message).toMatch(/not signed by the gateway/);
  });

  it("it cannot mint a delegation token: one made as the old gateway made them, from what a skill holds, is refused", async () => {
    // The old token: base64url payload {"c","g","exp","aud"} and an HMAC keyed by the hop secret the skill also had.
    const payload = Buffer.from(JSON.stringify({ c: "k_0123456789ab", g: "*", exp: Date.now() + 365 * 86_400_000, aud: "any@1.0.0" })).toString("base64url");
    const mac = createHmac("sha256", `skillmesh-delegation:${HOP_KEYS.publicKey}`).update(payload).digest("base64url");
    const answer = await post(`${mesh.gatewayUrl}/rpc`, body, { authorization: `Bearer smd.${payload}.${mac}` });
    expect(answer.status).toBe(401);
    expect(answer.json.error.message).toMatch(/unknown or ended delegation token/);
    // A token of the new form that no call was issued is refused too.
    expect((await post(`${mesh.gatewayUrl}/rpc`, body, { authorization: `Bearer smd.${"0".repeat(64)}` })).status).toBe(401);
  });
});

describe("a captured call cannot be turned into another", () => {
  it("a call the gateway signed for version 2.0.0 is refused by version 1.0.0 (the signature names its deployment)", async () => {
    captured.length = 0;
    expect((await post(`${mesh.gatewayUrl}/rpc`, body, { "x-user-group": "beta", "x-user-id": "alice" })).status).toBe(200);
    expect(captured).toHaveLength(1);
    const { headers, body: sent } = captured[0]!;
    expect(headers["x-skillmesh-signature"]).toMatch(/^t=\d+,ed25519=/);
    const replayed = await post(whoami, sent, {
      "x-skillmesh-context": String(headers["x-skillmesh-context"]),
      "x-skillmesh-signature": String(headers["x-skillmesh-signature"]),
    });
    expect(replayed.status).toBe(401);
    expect(replayed.json.error.message).toMatch(/does not match/);
  });

  it("a signed call with its body changed is refused, however small the change (other params, another id, one more space)", async () => {
    const signature = await gatewaySigned();
    expect((await post(whoami, body, { "x-skillmesh-context": forged, "x-skillmesh-signature": signature })).status).toBe(200);
    const tampered = [body.replace('"params":{}', '"params":{"x":1}'), body.replace('"id":1', '"id":2'), body.replace("{", "{ ")];
    for (const changed of tampered) {
      const answer = await post(whoami, changed, { "x-skillmesh-context": forged, "x-skillmesh-signature": signature });
      expect(answer.status, changed).toBe(401);
      expect(answer.json.error.message, changed).toMatch(/does not match/);
    }
  });

  it("a delegation token or call key added to a signed call makes it refused: the signature covers them", async () => {
    const signature = await gatewaySigned();
    const additions: Array<Record<string, string>> = [{ "x-skillmesh-delegation": "smd.abc" }, { "x-skillmesh-call-key": "another-key" }];
    for (const added of additions) {
      const answer = await direct({ "x-skillmesh-context": forged, "x-skillmesh-signature": signature, ...added });
      expect(answer.status, JSON.stringify(added)).toBe(401);
    }
  });
});
