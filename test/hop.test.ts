/**
 * Signed hops in workerd: a skill with `SKILLMESH_HOP_SECRET`, registered by URL, serves only
 * calls the gateway signed (and believes their caller context); unsigned, stale and tampered
 * direct calls are refused with 401.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Mesh, registerSkill, startMesh } from "../scripts/mesh/index.js";
import { encodeContext } from "../src/context/index.js";
import { signHop } from "../src/hop/index.js";
import { ADMIN_TOKEN, fixture, post } from "./support/fixtures.js";

const SECRET = "hop-secret-for-tests";
let mesh: Mesh;
let whoami: string;
beforeAll(async () => {
  mesh = await startMesh({
    skills: [fixture("whoami")],
    adminToken: ADMIN_TOKEN,
    register: false,
    gatewayVars: { SKILLMESH_HOP_SECRET: SECRET },
    // The skill trusts signatures, not its network: SKILLMESH_TRUST_CONTEXT is off.
    skillVars: { SKILLMESH_HOP_SECRET: SECRET, SKILLMESH_TRUST_CONTEXT: "false" },
  });
  whoami = mesh.skills[0]!.url;
  await registerSkill(mesh.gatewayUrl, ADMIN_TOKEN, { url: whoami });
});
afterAll(() => mesh?.dispose());

const body = JSON.stringify({ jsonrpc: "2.0", method: "test.whoami", params: {}, id: 1 });
const forged = encodeContext({ userId: "admin", group: "staff", caller: "k_0123456789ab" });
const direct = (headers: Record<string, string>) => post(whoami, body, headers);

it("a call through the gateway is signed, and its caller context is believed", async () => {
  const { json } = await post(`${mesh.gatewayUrl}/rpc`, body, { "x-user-id": "alice", "x-user-group": "beta" });
  expect(json.result).toMatchObject({ userId: "alice", group: "beta", caller: "anonymous" });
});

it("refuses a direct call that is unsigned, stale, tampered or signed with another secret", async () => {
  const parts = { method: "POST", path: "/", body, context: forged };
  const cases = {
    unsigned: {},
    stale: { "x-skillmesh-signature": await signHop(SECRET, parts, Date.now() - 120_000) },
    tampered: { "x-skillmesh-signature": await signHop(SECRET, { ...parts, context: encodeContext({ caller: "anonymous" }) }) },
    "other secret": { "x-skillmesh-signature": await signHop("guess", parts) },
  };
  for (const [what, signature] of Object.entries(cases)) {
    const answer = await direct({ "x-skillmesh-context": forged, ...signature });
    expect(answer.status, what).toBe(401);
    expect(answer.json.error.code, what).toBe(-32006);
  }
});

it("serves a direct call signed with the secret, context included (the check is real, not a blanket refusal)", async () => {
  const signature = await signHop(SECRET, { method: "POST", path: "/", body, context: forged });
  const answer = await direct({ "x-skillmesh-context": forged, "x-skillmesh-signature": signature });
  expect(answer.status).toBe(200);
  expect(answer.json.result).toMatchObject({ userId: "admin", group: "staff" });
});
