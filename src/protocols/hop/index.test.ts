import { describe, expect, it } from "vitest";
import { generateHopKeys, hopPublicKeyOf, hopRefusal, hopSigningKey, privateKeyBytes, publicKeyList, signHop } from "./index.js";

const parts = {
  method: "POST",
  path: "/",
  deployment: "s@1.0.0",
  body: '{"jsonrpc":"2.0","method":"s","id":1}',
  context: "eyJjYWxsZXIiOiJrXzEifQ",
  delegation: "",
  callKey: "",
};
const now = 1_800_000_000_000;

describe("signed hops", () => {
  it("accepts what the gateway's private key signed, checked with its public key, within the time window", async () => {
    const { privateKey, publicKey } = await generateHopKeys();
    const header = await signHop(await hopSigningKey(privateKey), parts, now);
    expect(header).toMatch(/^t=1800000000000,ed25519=[A-Za-z0-9_-]{86}$/);
    expect(await hopPublicKeyOf(privateKey)).toBe(publicKey);
  });

  // Literal times, not MAX_SKEW_MS: a window widened by mistake (a replay accepted for an hour) fails here.
  it("accepts a signature up to 60 s old (or early: clocks differ), and not a millisecond more", async () => {
    const { privateKey, publicKey } = await generateHopKeys();
    const header = await signHop(await hopSigningKey(privateKey), parts, now);
    expect(await hopRefusal(publicKey, header, parts, now + 60_000)).toBeUndefined();
    expect(await hopRefusal(publicKey, header, parts, now - 60_000)).toBeUndefined();
    expect(await hopRefusal(publicKey, header, parts, now + 60_001)).toMatch(/too old/);
    expect(await hopRefusal(publicKey, header, parts, now - 60_001)).toMatch(/from the future/);
    expect(await hopRefusal(publicKey, header, parts, now + 3_600_000)).toMatch(/too old/);
  });

  it("refuses unsigned, stale, other-key and tampered calls, and a call meant for another deployment", async () => {
    const { privateKey, publicKey } = await generateHopKeys();
    const other = await generateHopKeys();
    const header = await signHop(await hopSigningKey(privateKey), parts, now);
    expect(await hopRefusal(publicKey, null, parts, now)).toMatch(/not signed/);
    expect(await hopRefusal(publicKey, "t=1,v1=" + "0".repeat(64), parts, now)).toMatch(/not signed/);
    expect(await hopRefusal(other.publicKey, header, parts, now)).toMatch(/does not match/);
    const changes = [
      { body: parts.body.replace("s", "t") },
      { context: "e30" },
      { method: "PUT" },
      { path: "/x" },
      { deployment: "s@2.0.0" },
      { delegation: "smd.other" },
      { callKey: "k2" },
    ];
    for (const changed of changes) {
      expect(await hopRefusal(publicKey, header, { ...parts, ...changed }, now), JSON.stringify(changed)).toMatch(/does not match/);
    }
  });

  it("no field can pass for another: moving text between the context and the delegation changes the signature", async () => {
    const { privateKey, publicKey } = await generateHopKeys();
    const header = await signHop(await hopSigningKey(privateKey), { ...parts, context: "a", delegation: "b" }, now);
    expect(await hopRefusal(publicKey, header, { ...parts, context: "a\nb", delegation: "" }, now)).toMatch(/does not match/);
    expect(await hopRefusal(publicKey, header, { ...parts, context: "", delegation: "ab" }, now)).toMatch(/does not match/);
  });

  it("a skill accepts any of several public keys (a rotation) and reads keys as PEM, base64 or base64url", async () => {
    const old = await generateHopKeys();
    const next = await generateHopKeys();
    const header = await signHop(await hopSigningKey(next.privateKey), parts, now);
    expect(await hopRefusal(`${old.publicKey}, ${next.publicKey}`, header, parts, now)).toBeUndefined();
    expect(await hopRefusal(old.publicKey, header, parts, now)).toMatch(/does not match/);
    const oneLine = next.privateKey.replace(/-----[A-Z ]+-----|\s/g, "");
    expect(privateKeyBytes(oneLine)).toEqual(privateKeyBytes(next.privateKey));
    expect(privateKeyBytes("not a key")).toBeUndefined();
    expect(publicKeyList(`${next.publicKey},nope`)).toBeUndefined();
    // What the public key holds cannot sign: it is not a private key, whatever form it is given in.
    expect(privateKeyBytes(next.publicKey)).toBeUndefined();
    await expect(hopSigningKey(next.publicKey)).rejects.toThrow(/not an Ed25519 private key/);
  });
});
