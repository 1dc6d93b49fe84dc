import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ErrorCode } from "../protocols/jsonrpc/index.js";
import { type Store, StoreUnavailable, routeFailureStatus, withDeadline, withOutageGate } from "./index.js";

/** A store whose every operation hangs, answers, or refuses, as `mode` says; `sent` counts what reached it. */
function scriptedStore() {
  const state = { mode: "answer" as "answer" | "hang" | "refuse", sent: 0 };
  const reply = <T>(value: T) => {
    state.sent++;
    if (state.mode === "hang") return new Promise<T>(() => {});
    if (state.mode === "refuse") return Promise.reject(new Error("connection refused"));
    return Promise.resolve(value);
  };
  const store: Store = {
    driver: "upstash",
    get: () => reply("v"),
    mget: (...keys) => reply(keys.map(() => "v")),
    set: () => reply(true),
    del: () => reply(1),
    incr: () => reply(1),
    zadd: () => reply(undefined),
    zrem: () => reply(1),
    zrangeByScore: () => reply([]),
    run: () => reply(undefined as never),
    ping: () => reply(true),
  };
  return { store, state };
}

/** What an operation came to: its value, or the error it threw. */
async function settled<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error };
  }
}

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe("withDeadline", () => {
  it("turns an operation that hangs into a hung StoreUnavailable (-32001, retryAfterMs) at the deadline", async () => {
    const { store, state } = scriptedStore();
    state.mode = "hang";
    const pending = settled(withDeadline(store, 300).get("k"));
    await vi.advanceTimersByTimeAsync(299);
    expect(await Promise.race([pending, Promise.resolve("still waiting")])).toBe("still waiting");
    await vi.advanceTimersByTimeAsync(1);
    const { error } = await pending;
    expect(error).toBeInstanceOf(StoreUnavailable);
    expect(error).toMatchObject({ hung: true, code: ErrorCode.SkillUnavailable, data: { retryAfterMs: expect.any(Number) } });
    // The caller's message names no operation, host or driver detail; the cause does, for logs.
    expect((error as Error).message).not.toMatch(/GET/);
    expect(String((error as Error).cause)).toMatch(/GET did not answer within 300 ms/);
  });

  it("turns a refusal into a StoreUnavailable that did not hang, and passes answers through", async () => {
    const { store, state } = scriptedStore();
    const bounded = withDeadline(store, 300);
    expect(await bounded.get("k")).toBe("v");
    state.mode = "refuse";
    const { error } = await settled(bounded.mget("a", "b"));
    expect(error).toMatchObject({ hung: false, code: ErrorCode.SkillUnavailable });
    expect(String((error as Error).cause)).toMatch(/connection refused/);
  });
});

describe("withOutageGate", () => {
  const DEADLINE_MS = 300;
  const COOL_DOWN_MS = 2_000;

  function gated() {
    const scripted = scriptedStore();
    return { ...scripted, gate: withOutageGate(withDeadline(scripted.store, DEADLINE_MS), COOL_DOWN_MS) };
  }

  /** One operation that hangs until its deadline: the gate takes the store for down. */
  async function hangOnce(gate: Store) {
    const pending = settled(gate.get("k"));
    await vi.advanceTimersByTimeAsync(DEADLINE_MS);
    expect((await pending).error).toMatchObject({ hung: true });
  }

  /** A gate that saw an operation hang, once its cool-down is over: the next operation probes. */
  async function gatedPastCoolDown() {
    const { gate, state } = gated();
    state.mode = "hang";
    await hangOnce(gate);
    await vi.advanceTimersByTimeAsync(COOL_DOWN_MS);
    return { gate, state };
  }

  it("after an operation hung, fails every operation at once without sending it, until the cool-down ends", async () => {
    const { gate, state } = gated();
    state.mode = "hang";
    await hangOnce(gate);
    expect(state.sent).toBe(1);
    const operations: Array<() => Promise<unknown>> = [
      () => gate.get("k"),
      () => gate.set("k", "v"),
      () => gate.ping(),
      () => gate.run({ name: "s", lua: "", memory: () => 1, fromRedis: () => 1 }, [], []),
    ];
    for (const operation of operations) {
      const { error } = await settled(operation()); // no timer advanced: it failed at once
      expect(error).toMatchObject({ hung: true, code: ErrorCode.SkillUnavailable });
    }
    expect(state.sent).toBe(1);
    await vi.advanceTimersByTimeAsync(COOL_DOWN_MS - DEADLINE_MS - 1);
    expect((await settled(gate.get("k"))).error).toBeInstanceOf(StoreUnavailable);
    expect(state.sent).toBe(1);
  });

  it("then lets one operation through as a probe while the others still fail at once; an answer opens the way again", async () => {
    const { gate, state } = await gatedPastCoolDown();
    state.mode = "answer";
    const probe = gate.get("probe");
    expect((await settled(gate.get("other"))).error).toBeInstanceOf(StoreUnavailable);
    expect(await probe).toBe("v");
    expect(state.sent).toBe(2);
    expect(await gate.get("k")).toBe("v");
    expect(state.sent).toBe(3);
  });

  it("a probe that hangs again keeps the store down for another cool-down", async () => {
    const { gate, state } = await gatedPastCoolDown();
    await hangOnce(gate); // the probe
    expect(state.sent).toBe(2);
    await vi.advanceTimersByTimeAsync(COOL_DOWN_MS - 1);
    expect((await settled(gate.get("k"))).error).toBeInstanceOf(StoreUnavailable);
    expect(state.sent).toBe(2);
  });

  it("a probe answered with an error still shows the store is back (it answers); a refusing store is never gated", async () => {
    const { gate, state } = await gatedPastCoolDown();
    state.mode = "refuse";
    expect((await settled(gate.get("probe"))).error).toMatchObject({ hung: false });
    for (let i = 0; i < 3; i++) expect((await settled(gate.get("k"))).error).toMatchObject({ hung: false });
    expect(state.sent).toBe(5);
  });

  it("a probe that never settles (workerd dropped its request's I/O, timers and all) does not close the way for good", async () => {
    const state = { mode: "hung" as "hung" | "forever" | "answer", sent: 0 };
    const inner = scriptedStore().store;
    // Below the gate, as withDeadline would report: a hung store, then an operation that never ends.
    inner.get = () => {
      state.sent++;
      if (state.mode === "hung") return Promise.reject(new StoreUnavailable("GET", new Error("GET did not answer"), true));
      return state.mode === "forever" ? new Promise(() => {}) : Promise.resolve("v");
    };
    const gate = withOutageGate(inner, COOL_DOWN_MS);
    expect((await settled(gate.get("k"))).error).toMatchObject({ hung: true });
    await vi.advanceTimersByTimeAsync(COOL_DOWN_MS);
    state.mode = "forever";
    void gate.get("the probe");
    expect((await settled(gate.get("k"))).error).toBeInstanceOf(StoreUnavailable);
    expect(state.sent).toBe(2);
    await vi.advanceTimersByTimeAsync(COOL_DOWN_MS);
    state.mode = "answer";
    expect(await gate.get("k")).toBe("v");
    expect(state.sent).toBe(3);
  });
});

describe("routeFailureStatus", () => {
  it("is 503 for a store outage, logged as a line; 500 for anything else, logged whole", () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      expect(routeFailureStatus("[admin]", new StoreUnavailable("GET", new Error("refused")))).toBe(503);
      expect(logged).toHaveBeenLastCalledWith("[admin]", expect.stringContaining("refused"));
      const bug = new TypeError("x is undefined");
      expect(routeFailureStatus("[ui]", bug)).toBe(500);
      expect(logged).toHaveBeenLastCalledWith("[ui] unexpected error:", bug);
    } finally {
      logged.mockRestore();
    }
  });
});
