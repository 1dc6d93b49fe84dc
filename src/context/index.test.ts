import { describe, expect, it } from "vitest";
import { CONTEXT_HEADER, callerIdOf, encodeContext, readContext, validTraceparent } from "./index.js";

describe("caller context header", () => {
  it("round-trips through X-Skillmesh-Context, non-ASCII included", () => {
    const context = { userId: "ünï-😀", group: "beta", session: "s", caller: "c_1", traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
    const headers = new Headers({ [CONTEXT_HEADER]: encodeContext(context) });
    expect(readContext(headers)).toEqual(context);
  });

  it("falls back to the plain headers of a direct call when the header is absent or garbage", () => {
    const headers = new Headers({ [CONTEXT_HEADER]: "%%%not-base64", "x-user-id": "bob", "x-user-group": "vip", traceparent: "nonsense" });
    expect(readContext(headers)).toEqual({ userId: "bob", group: "vip", caller: "anonymous" });
  });
});

describe("validTraceparent", () => {
  it("accepts the W3C shape only", () => {
    expect(validTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")).toBeDefined();
    expect(validTraceparent("00-XYZ-b7ad6b7169203331-01")).toBeUndefined();
  });
});

describe("callerIdOf", () => {
  it("hashes the bearer key: stable, short, never the key itself", async () => {
    const id = await callerIdOf("Bearer sk_live_abc");
    expect(id).toMatch(/^c_[0-9a-f]{16}$/);
    expect(await callerIdOf("bearer sk_live_abc")).toBe(id);
    expect(await callerIdOf("Bearer other")).not.toBe(id);
    expect(await callerIdOf(null)).toBe("anonymous");
    expect(await callerIdOf("Basic abc")).toBe("anonymous");
  });
});
