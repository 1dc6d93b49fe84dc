/**
 * The gateway's hop to a skill bound by a service binding, in workerd (src/protocols/hop/rpc.ts): a plain
 * call goes over Workers RPC, a call its caller can cancel or that streams over HTTP, a Worker
 * without the RPC method over HTTP; a bad RPC answer is the skill's failure, never the caller's
 * crash; and the SDK's side of the RPC hop is signed like the HTTP one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { encodeContext } from "../src/protocols/context/index.js";
import { generateHopKeys } from "../src/protocols/hop/index.js";
import { ADMIN_TOKEN, eventually, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

const HOP_KEYS = await generateHopKeys();
let mesh: Mesh;
const logs: string[] = [];
beforeAll(async () => {
  mesh = await startMesh({
    skills: [fixture("transport"), fixture("whoami"), fixture("oversized"), fixture("prober")],
    adminToken: ADMIN_TOKEN,
    gatewayVars: { SKILLMESH_HOP_KEY: HOP_KEYS.privateKey },
    onLog: ({ message }) => void logs.push(message),
    // The SDK skill trusts signatures only: its caller context is believed because the RPC hop is signed.
    skillVars: { SKILLMESH_HOP_PUBLIC_KEY: HOP_KEYS.publicKey, SKILLMESH_TRUST_CONTEXT: "false" },
  });
});
afterAll(() => mesh?.dispose());

const rpc = (method: string, params: unknown, headers: Record<string, string> = {}) => wireOf(mesh.gatewayUrl).rpc(method, params, { headers, id: 7 });

describe("which hop a call takes", () => {
  it("a plain call to a bound skill goes over RPC, with the attempt's timeout and the caller context", async () => {
    const { json } = await rpc("test.transport", {});
    expect(json).toEqual({ jsonrpc: "2.0", id: 7, result: { via: "rpc", timeoutMs: 5_000, context: true } });
    // The caller's budget, when shorter, is the attempt's timeout the skill keeps.
    expect((await rpc("test.transport", {}, { "x-timeout-ms": "1200" })).json.result.timeoutMs).toBeLessThanOrEqual(1_200);
  });

  it("a call answered on an event stream goes over HTTP (its cancellation and progress need the HTTP hop)", async () => {
    const response = await fetch(`${mesh.gatewayUrl}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "test.transport", params: {}, id: 8 }),
    });
    expect(await response.text()).toContain('"result":{"via":"http"}');
  });

  it("a bound Worker without the RPC method is called over HTTP, every time", async () => {
    for (let i = 0; i < 3; i++) expect((await rpc("test.oversized", { mode: "ok" })).json.result).toEqual({ ok: true });
  });
});

describe("a bad RPC answer is the skill's failure", () => {
  it("an answer that is not text is -32001, one past 8 MiB -32603, a throw -32001 without its details", async () => {
    expect((await rpc("test.transport", { mode: "number" })).json.error).toEqual({
      code: -32001,
      message: "test.transport answered its RPC call without a JSON-RPC response; retry after 1 s",
      data: { retryAfterMs: 1000 },
    });
    expect((await rpc("test.transport", { mode: "huge" })).json.error).toEqual({
      code: -32603,
      message: "test.transport answered more than 8 MiB, the largest answer the gateway reads",
    });
    const thrown = await rpc("test.transport", { mode: "throw" });
    expect(thrown.json.error).toEqual({ code: -32001, message: "test.transport is unreachable; retry after 1 s", data: { retryAfterMs: 1000 } });
    expect(thrown.text).not.toContain("secret internal detail");
    // The gateway is unharmed: the next call is served.
    expect((await rpc("test.transport", {})).json.result.via).toBe("rpc");
  });
});

describe("the SDK's RPC hop", () => {
  it("is signed: a skill with the gateway's public key believes the caller context it carries", async () => {
    const { json } = await rpc("test.whoami", {}, { "x-user-id": "alice", "x-user-group": "beta" });
    expect(json.result).toMatchObject({ userId: "alice", group: "beta", caller: "anonymous" });
  });

  it("refuses a call over RPC that the gateway did not sign, as a POST would be refused", async () => {
    // Another bound Worker calling the skill's RPC method, with a forged context and no signature.
    const whoami = await mesh.miniflare.getWorker(mesh.skills.find((s) => s.manifest.name === "test.whoami")!.workerName);
    const forged = encodeContext({ userId: "admin", group: "staff", caller: "k_0123456789ab" });
    const call = {
      body: JSON.stringify({ jsonrpc: "2.0", method: "test.whoami", params: {}, id: 1 }),
      headers: { "x-skillmesh-context": forged },
      timeoutMs: 1_000,
    };
    const answer = JSON.parse(await (whoami as unknown as { skillmeshCall(c: unknown): Promise<string> }).skillmeshCall(call));
    expect(answer.error).toEqual({ code: -32006, message: "Unauthorized: the call is not signed by the gateway" });
    const malformed = JSON.parse(await (whoami as unknown as { skillmeshCall(c: unknown): Promise<string> }).skillmeshCall({ body: 1 }));
    expect(malformed.error.code).toBe(-32600);
  });

  it("offers another bound Worker nothing past its checks: not the handler, not the app, not the gateway's cron", async () => {
    // test.prober is bound to test.whoami and to the gateway, as any Worker of the account could be.
    const refusal = "refused a scheduled event that no Cron Trigger sent";
    const { json } = await post(mesh.skills.find((s) => s.manifest.name === "test.prober")!.url, {});
    expect(json).toMatchObject({ handler: { reached: false }, app: { reached: false }, manifest: { reached: true, value: "test.whoami" } });
    expect(
      await eventually(
        async () => logs.filter((line) => line.includes(refusal)).length,
        (n) => n === 1,
        5_000,
      ),
    ).toBe(1);
    // The Cron Trigger itself is still served.
    await (await mesh.miniflare.getWorker("gateway")).scheduled({ cron: "* * * * *" });
    expect(logs.filter((line) => line.includes(refusal))).toHaveLength(1);
  });
});
