import { describe, expect, it } from "vitest";
import { CONTEXT_HEADER, addressIdOf, callerContextOf, encodeContext, readContext, validTraceparent } from "./index.js";

describe("caller context header", () => {
  it("round-trips through X-Skillmesh-Context, non-ASCII included", () => {
    const context = { userId: "ünï-😀", group: "beta", session: "s", caller: "c_1", traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
    const headers = new Headers({ [CONTEXT_HEADER]: encodeContext(context) });
    expect(readContext(headers, true)).toEqual(context);
  });

  it("is empty unless the skill trusts its caller, whatever the headers claim", () => {
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const claimed = {
      [CONTEXT_HEADER]: encodeContext({ userId: "admin", group: "staff", caller: "c_1" }),
      "x-user-id": "bob",
      "x-user-group": "vip",
      traceparent,
    };
    expect(readContext(new Headers(claimed), false)).toEqual({ caller: "anonymous", traceparent });
  });

  it("is empty when the header is absent or garbage; a bad traceparent is dropped", () => {
    const headers = new Headers({ [CONTEXT_HEADER]: "%%%not-base64", "x-user-id": "bob", "x-user-group": "vip", traceparent: "nonsense" });
    expect(readContext(headers, true)).toEqual({ caller: "anonymous", traceparent: undefined });
  });
});

describe("validTraceparent", () => {
  it("accepts the W3C shape only", () => {
    expect(validTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")).toBeDefined();
    expect(validTraceparent("00-XYZ-b7ad6b7169203331-01")).toBeUndefined();
  });
});

describe("callerContextOf", () => {
  it("reads the routing headers, and drops a group the caller may not use", () => {
    const headers = new Headers({ "x-user-id": "alice", "x-user-group": "beta", "mcp-session-id": "s1" });
    expect(callerContextOf(headers, "k_0123456789ab", () => true)).toEqual({
      userId: "alice",
      group: "beta",
      session: "s1",
      caller: "k_0123456789ab",
      traceparent: undefined,
    });
    expect(callerContextOf(headers, "k_0123456789ab", (group) => group === "vip").group).toBeUndefined();
  });
});

describe("addressIdOf", () => {
  it("names a client address without giving it away; IPv6 by its /64", async () => {
    const id = await addressIdOf("203.0.113.7");
    expect(id).toMatch(/^a_[0-9a-f]{16}$/);
    expect(await addressIdOf("203.0.113.8")).not.toBe(id);
    expect(await addressIdOf("::ffff:203.0.113.7")).toBe(id);
    expect(await addressIdOf("2001:db8:1:2::1")).toBe(await addressIdOf("2001:db8:1:2:ffff::9"));
    expect(await addressIdOf("2001:db8:1:3::1")).not.toBe(await addressIdOf("2001:db8:1:2::1"));
    for (const none of [null, "", "not-an-ip"]) expect(await addressIdOf(none)).toBe("anonymous");
  });
});
