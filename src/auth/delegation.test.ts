import { describe, expect, it } from "vitest";
import { memoryStore } from "../store/memory.js";
import { delegationKey, isDelegationToken, signDelegation, verifyDelegation } from "./delegation.js";

describe("delegation tokens", () => {
  const store = () => memoryStore();
  const grants = JSON.stringify([["text.*"], [], ["beta"], null]);

  it("stand for the caller and its grants, never more, until they expire", async () => {
    const key = await delegationKey(store(), "a-hop-secret-of-some-length");
    const token = await signDelegation(key, { c: "k_abc", g: grants, exp: 2_000, aud: "web.digest@1.0.0" });
    expect(isDelegationToken(token)).toBe(true);
    const outcome = await verifyDelegation(key, token, 1_000);
    if (!("callerId" in outcome)) throw new Error(outcome.refused);
    expect(outcome.callerId).toBe("k_abc");
    expect(outcome.via).toBe("web.digest@1.0.0");
    expect(outcome.access.allowsSkill("text.summarize", [])).toBe(true);
    expect(outcome.access.allowsSkill("html.extract", [])).toBe(false);
    expect(outcome.access.admin).toBe("none");
    expect(await verifyDelegation(key, token, 2_001)).toEqual({ refused: expect.stringMatching(/^an expired delegation token/) });
  });

  it("are refused when changed, or signed with another key", async () => {
    const key = await delegationKey(store(), "a-hop-secret-of-some-length");
    const token = await signDelegation(key, { c: "k_abc", g: grants, exp: 2_000, aud: "p@1.0.0" });
    const [prefix, payload, mac] = token.split(".");
    const widened = btoa(JSON.stringify({ c: "k_abc", g: "*", exp: 2_000, aud: "p@1.0.0" })).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
    expect(await verifyDelegation(key, `${prefix}.${widened}.${mac}`, 1_000)).toEqual({ refused: "a delegation token this gateway did not sign" });
    const other = await delegationKey(store(), "another-hop-secret-entirely");
    expect(await verifyDelegation(other, token, 1_000)).toEqual({ refused: "a delegation token this gateway did not sign" });
    expect(await verifyDelegation(key, `${prefix}.${payload}`, 1_000)).toEqual({ refused: "a malformed delegation token" });
  });

  it("without a hop secret, every isolate on one store signs with the same key made once", async () => {
    const shared = store();
    const [a, b] = await Promise.all([delegationKey(shared, undefined), delegationKey(shared, undefined)]);
    const token = await signDelegation(a, { c: "c_1", g: "*", exp: 2_000, aud: "p@1.0.0" });
    expect(await verifyDelegation(b, token, 1_000)).toMatchObject({ callerId: "c_1" });
    expect(await verifyDelegation(await delegationKey(store(), undefined), token, 1_000)).toEqual({ refused: "a delegation token this gateway did not sign" });
  });
});
