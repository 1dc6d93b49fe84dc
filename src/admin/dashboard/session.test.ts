import { describe, expect, it } from "vitest";
import type { ApiKey } from "../../identity/keys/index.js";
import { memoryStore } from "../../store/memory.js";
import { UI_SESSION_MS, endAllSessions, endSession, sessionOf, startSession } from "./session.js";

const T0 = Date.now();
const keyOf = (admin?: "read" | "write") => ({ id: "k_0123456789ab", admin }) as ApiKey;

function ground(adminToken = "the-admin-token-of-this-gateway") {
  const keys = new Map<string, ApiKey>([["k_0123456789ab", keyOf("write")]]);
  return { store: memoryStore(), keys: { byId: async (id: string) => keys.get(id) }, config: { adminToken }, keyTable: keys };
}

describe("dashboard sessions", () => {
  it("last 8 hours, not a moment longer", async () => {
    const g = ground();
    const token = await startSession(g, { by: "admin-token", level: "write" }, T0);
    expect(await sessionOf(g, token, T0 + UI_SESSION_MS - 1)).toEqual({ by: "admin-token", level: "write" });
    expect(await sessionOf(g, token, T0 + UI_SESSION_MS)).toBeUndefined();
    expect(await sessionOf(g, token, T0 + 30 * UI_SESSION_MS)).toBeUndefined();
  });

  it("an admin token's session ends when the token is rotated", async () => {
    const g = ground();
    const token = await startSession(g, { by: "admin-token", level: "write" }, T0);
    expect(await sessionOf({ ...g, config: { adminToken: "a-rotated-admin-token-value" } }, token, T0)).toBeUndefined();
    expect(await sessionOf({ ...g, config: {} }, token, T0)).toBeUndefined();
    expect(await sessionOf(g, token, T0)).toEqual({ by: "admin-token", level: "write" });
  });

  it("a key's session is worth what the key is now: downgraded it reads, revoked or stripped of admin it ends", async () => {
    const g = ground();
    const token = await startSession(g, { by: "k_0123456789ab", level: "write" }, T0);
    expect(await sessionOf(g, token, T0)).toEqual({ by: "k_0123456789ab", level: "write" });
    g.keyTable.set("k_0123456789ab", keyOf("read"));
    expect(await sessionOf(g, token, T0)).toEqual({ by: "k_0123456789ab", level: "read" });
    g.keyTable.set("k_0123456789ab", keyOf(undefined));
    expect(await sessionOf(g, token, T0)).toBeUndefined();
    g.keyTable.delete("k_0123456789ab");
    expect(await sessionOf(g, token, T0)).toBeUndefined();
  });

  it("a read session never grows: a key raised to write after sign-in still reads", async () => {
    const g = ground();
    g.keyTable.set("k_0123456789ab", keyOf("read"));
    const token = await startSession(g, { by: "k_0123456789ab", level: "read" }, T0);
    g.keyTable.set("k_0123456789ab", keyOf("write"));
    expect(await sessionOf(g, token, T0)).toEqual({ by: "k_0123456789ab", level: "read" });
  });

  it("sign-out ends one session; ending all ends every session, and new ones work", async () => {
    const g = ground();
    const [a, b] = [await startSession(g, { by: "admin-token", level: "write" }, T0), await startSession(g, { by: "k_0123456789ab", level: "write" }, T0)];
    await endSession(g, a);
    expect(await sessionOf(g, a, T0)).toBeUndefined();
    expect(await sessionOf(g, b, T0)).toBeDefined();
    await endAllSessions(g);
    expect(await sessionOf(g, b, T0)).toBeUndefined();
    const c = await startSession(g, { by: "admin-token", level: "write" }, T0);
    expect(await sessionOf(g, c, T0)).toEqual({ by: "admin-token", level: "write" });
  });

  it("a token that is not one of ours stands for nobody", async () => {
    const g = ground();
    expect(await sessionOf(g, undefined, T0)).toBeUndefined();
    expect(await sessionOf(g, "0".repeat(64), T0)).toBeUndefined();
  });
});
