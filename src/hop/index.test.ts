import { describe, expect, it } from "vitest";
import { MAX_SKEW_MS, hopRefusal, signHop } from "./index.js";

const parts = { method: "POST", path: "/", body: '{"jsonrpc":"2.0","method":"s","id":1}', context: "eyJjYWxsZXIiOiJrXzEifQ" };

describe("signed hops", () => {
  it("accepts what the same secret signed, within the time window", async () => {
    const now = 1_800_000_000_000;
    const header = await signHop("s3cret", parts, now);
    expect(header).toMatch(/^t=1800000000000,v1=[0-9a-f]{64}$/);
    expect(await hopRefusal("s3cret", header, parts, now + MAX_SKEW_MS)).toBeUndefined();
  });

  it("refuses unsigned, stale, other-secret and tampered calls", async () => {
    const now = 1_800_000_000_000;
    const header = await signHop("s3cret", parts, now);
    expect(await hopRefusal("s3cret", null, parts, now)).toMatch(/not signed/);
    expect(await hopRefusal("s3cret", "t=1,v1=zz", parts, now)).toMatch(/not signed/);
    expect(await hopRefusal("s3cret", header, parts, now + MAX_SKEW_MS + 1)).toMatch(/too old/);
    expect(await hopRefusal("other", header, parts, now)).toMatch(/does not match/);
    for (const changed of [{ body: parts.body.replace("s", "t") }, { context: "e30" }, { method: "PUT" }, { path: "/x" }]) {
      expect(await hopRefusal("s3cret", header, { ...parts, ...changed }, now), JSON.stringify(changed)).toMatch(/does not match/);
    }
  });
});
