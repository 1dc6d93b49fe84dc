import { describe, expect, it } from "vitest";
import { memoryStore } from "../store/memory.js";
import { repliesOf, replyIdsFor } from "./replies.js";
import { inputCapabilitiesOf, sessionIdFor } from "./session.js";

describe("a 2025 session's input capabilities", () => {
  it("are carried in the session id issued at initialize, and read back from it", () => {
    const session = sessionIdFor({ elicitation: {}, sampling: { tools: {} }, roots: { listChanged: true }, experimental: {} });
    expect(session).toMatch(/^[0-9a-f]{32}\.fstr$/);
    expect(inputCapabilitiesOf(session)).toEqual({ elicitation: { form: {} }, sampling: { tools: {} }, roots: {} });
    expect(inputCapabilitiesOf(sessionIdFor({ elicitation: { url: {} } }))).toEqual({ elicitation: { url: {} } });
    // A client that declared nothing it can answer gets a plain id, and a session of another making means nothing.
    expect(sessionIdFor({ experimental: {} })).toMatch(/^[0-9a-f]{32}$/);
    for (const other of ["", "client-chosen.fs", `${"a".repeat(32)}.fs-x`]) expect(inputCapabilitiesOf(other)).toEqual({});
  });
});

describe("a caller's replies to the gateway's requests", () => {
  it("reach the call waiting on them, from that caller only and only for ids the gateway gave out", async () => {
    const store = memoryStore();
    const [first, second] = replyIdsFor(2);
    expect(first).toMatch(/^sm-in-[0-9a-f]{32}-0$/);
    const alice = repliesOf(store, "k_alice");
    const waiting = alice.await([first!, second!], { signal: new AbortController().signal, waitMs: 5_000 });
    await repliesOf(store, "k_mallory").put({ jsonrpc: "2.0", id: first, result: { action: "decline" } });
    await alice.put({ jsonrpc: "2.0", id: "not-ours", result: { action: "accept" } });
    await alice.put({ jsonrpc: "2.0", id: first, result: { action: "accept", content: { ok: true } } });
    await alice.put({ jsonrpc: "2.0", id: second, error: { code: -1, message: "User rejected sampling" } });
    const replies = await waiting;
    expect(replies.get(first!)).toEqual({ result: { action: "accept", content: { ok: true } } });
    expect(replies.get(second!)).toEqual({ error: { code: -1, message: "User rejected sampling" } });
    expect(await store.get("sm:reply:k_alice:not-ours")).toBeNull();
  });

  it("stop waiting when the caller goes away, or after the wait", async () => {
    const replies = repliesOf(memoryStore(), "k_alice");
    const gone = new AbortController();
    const waiting = replies.await(replyIdsFor(1), { signal: gone.signal, waitMs: 60_000 });
    gone.abort();
    await expect(waiting).rejects.toMatchObject({ code: -32007 });
    await expect(replies.await(replyIdsFor(1), { signal: new AbortController().signal, waitMs: 50 })).rejects.toMatchObject({ code: -32004 });
  });
});
