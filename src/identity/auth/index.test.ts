import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../lib/hash/index.js";
import type { ApiKey, KeyRing } from "../keys/index.js";
import { memoryStore } from "../../store/memory.js";
import { Delegations } from "./delegation.js";
import { MAX_BEARER_CHARS, authenticate, rememberedDigests } from "./index.js";

const VALID = `sm_${"a".repeat(43)}`;

async function keyRing(): Promise<KeyRing> {
  const key = {
    id: "k_0123456789ab",
    name: "a",
    hash: await sha256Hex(VALID),
    hint: "",
    skills: ["*"],
    tags: [],
    groups: [],
    createdAt: 0,
    updatedAt: 0,
  } as ApiKey;
  return { find: async (hash: string) => (hash === key.hash ? key : undefined), byId: async () => undefined } as unknown as KeyRing;
}
const headers = (bearer: string) => new Headers({ authorization: `Bearer ${bearer}` });

describe("authenticate", () => {
  it("remembers no credential it refused: strangers' bearers, however many and however long, take no memory", async () => {
    const keys = await keyRing();
    const before = rememberedDigests();
    for (let i = 0; i < 1_100; i++) {
      const outcome = await authenticate(headers(`sm_${i}${"x".repeat(100_000)}`), { required: true }, keys);
      expect("refused" in outcome).toBe(true);
    }
    for (let i = 0; i < 2_000; i++) await authenticate(headers(`sm_unknown_${i}`), { required: true }, keys);
    expect(rememberedDigests()).toEqual(before);
    // A valid key is remembered, once.
    for (let i = 0; i < 3; i++) expect(await authenticate(headers(VALID), { required: true }, keys)).toMatchObject({ caller: { id: "k_0123456789ab" } });
    expect(rememberedDigests().count).toBe(before.count + 1);
  });

  it("refuses a bearer longer than any key or access token before hashing it, with auth off too", async () => {
    const keys = await keyRing();
    for (const required of [true, false]) {
      const outcome = await authenticate(headers("y".repeat(MAX_BEARER_CHARS + 1)), { required }, keys);
      expect(outcome).toEqual({
        refused: expect.objectContaining({ status: 401, error: "invalid_token", message: expect.stringMatching(/more than 8192 characters/) }),
      });
    }
    expect(await authenticate(headers("y".repeat(MAX_BEARER_CHARS)), { required: false }, keys)).toMatchObject({
      caller: { id: expect.stringMatching(/^c_/) },
    });
  });

  it("with auth off, names a caller by its bearer's hash and remembers at most 1,024 of them, each key-sized", async () => {
    const keys = await keyRing();
    for (let i = 0; i < 3_000; i++) await authenticate(headers(`caller-${i}`), { required: false }, keys);
    const remembered = rememberedDigests();
    expect(remembered.count).toBeLessThanOrEqual(1_024);
    expect(remembered.chars).toBeLessThanOrEqual(1_024 * 128);
  });

  it("a pipeline step of an OAuth caller is held to the OAuth limits, whatever limits its token carried", async () => {
    const delegations = new Delegations(memoryStore());
    const now = Date.now();
    const { token } = await delegations.issue(
      {
        caller: "o:alice@5f3c91ab",
        grants: JSON.stringify([["*"], [], [], null]),
        pipeline: "p@1.0.0",
        steps: [["s"]],
        limits: { identifier: "o:alice@5f3c91ab" },
        context: {},
        expiresAt: now + 60_000,
      },
      now,
    );
    const quota = { limit: 5, windowMs: 86_400_000 };
    const outcome = await authenticate(headers(token), { required: true, oauthQuota: quota }, await keyRing(), delegations);
    expect(outcome).toMatchObject({
      caller: { id: "o:alice@5f3c91ab", limits: { identifier: "o:alice@5f3c91ab", quota }, delegation: { pipeline: "p@1.0.0" } },
    });
  });
});
