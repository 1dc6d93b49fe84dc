import { describe, expect, it } from "vitest";
import { ErrorCode, RpcError } from "../../protocols/jsonrpc/index.js";
import { memoryStore } from "../../store/memory.js";
import { OPERATOR, credentialFor, describeAuth, removeCallerToken, sealAuth, storeCallerToken } from "./credentials.js";

const KEY = "a-gateway-key-of-at-least-32-characters";

describe("an upstream's credential, as a call gets it", () => {
  it("sends a static secret the way its type says, sealed at rest and never shown", async () => {
    const store = memoryStore();
    const bearer = await sealAuth(KEY, "crm", { type: "bearer", token: "t0ken" });
    const header = await sealAuth(KEY, "crm", { type: "header", name: "X-Api-Key", value: "k3y" });
    const query = await sealAuth(KEY, "crm", { type: "query", name: "api_key", value: "q" });
    expect(JSON.stringify([bearer, header, query])).not.toMatch(/t0ken|k3y|"q"/);
    expect(describeAuth(header)).toEqual({ type: "header", name: "X-Api-Key" });
    const call = (auth: typeof bearer) => credentialFor(store, { secret: KEY, upstream: "crm", auth, caller: "k_1" });
    expect((await call(bearer)).headers).toEqual({ authorization: "Bearer t0ken" });
    expect((await call(header)).headers).toEqual({ "x-api-key": "k3y" });
    expect(await call(query)).toMatchObject({ headers: {}, query: { api_key: "q" } });
  });

  it("does not unseal another upstream's secret (a sealed value is bound to its upstream)", async () => {
    const bearer = await sealAuth(KEY, "crm", { type: "bearer", token: "t0ken" });
    await expect(credentialFor(memoryStore(), { secret: KEY, upstream: "other", auth: bearer, caller: "k_1" })).rejects.toThrow();
  });

  it("gives each caller of a per-caller upstream its own token, and a caller without one -32006 saying how to connect", async () => {
    const store = memoryStore();
    const auth = await sealAuth(KEY, "mail", { type: "per-caller" });
    const of = (caller: string) => credentialFor(store, { secret: KEY, upstream: "mail", auth, caller });
    const missing = await of("k_alice").catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(RpcError);
    expect((missing as RpcError).code).toBe(ErrorCode.Unauthorized);
    expect((missing as RpcError).message).toContain("PUT /upstreams/mail/credential");
    await storeCallerToken(store, KEY, "mail", "k_alice", "alice-token");
    await storeCallerToken(store, KEY, "mail", "k_bob", "bob-token");
    const alice = await of("k_alice");
    expect(alice.headers).toEqual({ authorization: "Bearer alice-token" });
    expect((await of("k_bob")).headers).toEqual({ authorization: "Bearer bob-token" });
    // Each caller's session upstream is its own.
    expect(alice.sessionKey).not.toBe((await of("k_bob")).sessionKey);
    // The operator reads definitions without a caller's token.
    await expect(of(OPERATOR)).rejects.toBeInstanceOf(RpcError);
    expect(await removeCallerToken(store, "mail", "k_alice")).toBe(true);
    await expect(of("k_alice")).rejects.toBeInstanceOf(RpcError);
  });
});
