import { describe, expect, it } from "vitest";
import { memoryStore } from "../store/memory.js";
import { requestStatesOf } from "./request-state.js";

describe("kept request states", () => {
  it("give the caller a handle and the tool its state back, to that caller and tool only", async () => {
    let now = 0;
    const store = memoryStore(() => now);
    const alice = requestStatesOf(store, "k_alice");
    const handle = await alice.keep("crm.ask", '{"step":1}');
    expect(handle).toMatch(/^rs_[0-9a-f]{32}$/);
    expect(handle).not.toContain("step"); // the upstream's state does not reach the caller
    expect(await alice.kept("crm.ask", handle)).toBe('{"step":1}');
    expect(await alice.kept("crm.ask", handle)).toBe('{"step":1}'); // a retried retry still works
    const refused = /requestState is not one this server gave/;
    await expect(alice.kept("crm.delete", handle)).rejects.toThrow(refused);
    await expect(requestStatesOf(store, "k_mallory").kept("crm.ask", handle)).rejects.toThrow(refused);
    await expect(alice.kept("crm.ask", `${handle.slice(0, -1)}${handle.endsWith("0") ? "1" : "0"}`)).rejects.toThrow(refused);
    await expect(alice.kept("crm.ask", '{"step":1}')).rejects.toMatchObject({ code: -32602 });
    now += 60 * 60_000 + 1; // expired
    await expect(alice.kept("crm.ask", handle)).rejects.toThrow(refused);
  });
});
