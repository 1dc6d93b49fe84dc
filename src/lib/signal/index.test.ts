import { describe, expect, it, vi } from "vitest";
import { Cancellation, anySignal, sleep, withTimeout } from "./index.js";

describe("anySignal", () => {
  it("aborts when the first of its signals aborts, with that signal's reason", () => {
    const [a, b] = [new AbortController(), new AbortController()];
    const signal = anySignal([a.signal, b.signal]);
    expect(signal.aborted).toBe(false);
    b.abort("cancelled");
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("cancelled");
    a.abort("timed out");
    expect(signal.reason).toBe("cancelled");
  });

  it("is aborted at once when one of its signals already is", () => {
    const signal = anySignal([new AbortController().signal, AbortSignal.abort("gone")]);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("gone");
  });

  it("fires its own abort listeners once", () => {
    const [a, b] = [new AbortController(), new AbortController()];
    const signal = anySignal([a.signal, b.signal]);
    let fired = 0;
    signal.addEventListener("abort", () => fired++);
    a.abort();
    b.abort();
    expect(fired).toBe(1);
  });
});

describe("sleep", () => {
  it("resolves after its time, or at once when its signal aborts", async () => {
    vi.useFakeTimers();
    try {
      let done = false;
      void sleep(1_000).then(() => (done = true));
      await vi.advanceTimersByTimeAsync(999);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(done).toBe(true);

      const controller = new AbortController();
      let woken = false;
      void sleep(60_000, controller.signal).then(() => (woken = true));
      controller.abort();
      await vi.advanceTimersByTimeAsync(0);
      expect(woken).toBe(true);
      expect(vi.getTimerCount()).toBe(0); // its timer is cleared too
    } finally {
      vi.useRealTimers();
    }
  });

  it("leaves no listener on a long-lived signal once its time is up", async () => {
    const controller = new AbortController();
    const listeners = new Set<unknown>();
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => (listeners.add(args[1]), add(...args))) as typeof add;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => (listeners.delete(args[1]), remove(...args))) as typeof remove;
    for (let i = 0; i < 5; i++) await sleep(1, signal);
    expect(listeners.size).toBe(0);
  });
});

describe("withTimeout", () => {
  it("settles as the promise does, before the deadline, and leaves no timer behind", async () => {
    vi.useFakeTimers();
    try {
      await expect(withTimeout(Promise.resolve(7), 1_000, () => new Error("late"))).resolves.toBe(7);
      await expect(withTimeout(Promise.reject(new Error("own")), 1_000, () => new Error("late"))).rejects.toThrow("own");
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("rejects with the timeout's error once the time is up, not a moment before", async () => {
    vi.useFakeTimers();
    try {
      let outcome: unknown;
      void withTimeout(new Promise(() => {}), 1_000, () => new Error("late")).catch((error: Error) => (outcome = error.message));
      await vi.advanceTimersByTimeAsync(999);
      expect(outcome).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(outcome).toBe("late");
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("Cancellation", () => {
  it("a cancel flags the call and tells what is registered, once; an unregistered teller is not told", async () => {
    const cancellation = new Cancellation();
    const told: string[] = [];
    cancellation.onCancel(() => told.push("skill"));
    const forget = cancellation.onCancel(() => told.push("gone"));
    forget();
    cancellation.onCancel(() => Promise.reject(new Error("unreachable"))); // a teller that fails does not stop the cancel
    expect(cancellation.cancelled).toBe(false);
    await cancellation.cancel();
    await cancellation.cancel();
    expect(cancellation.cancelled).toBe(true);
    expect(told).toEqual(["skill"]);
  });

  it("watch() aborts its own signal within a poll of the cancel, and stop() leaves no timer", async () => {
    vi.useFakeTimers();
    try {
      const cancellation = new Cancellation();
      const watched = cancellation.watch(100);
      void cancellation.cancel();
      expect(watched.signal.aborted).toBe(false); // seen by the running request's own poll, not at once
      await vi.advanceTimersByTimeAsync(100);
      expect(watched.signal.aborted).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
      expect(cancellation.watch().signal.aborted).toBe(true); // watched after the cancel: aborted already

      const other = new Cancellation().watch(100);
      expect(vi.getTimerCount()).toBe(1);
      other.stop();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
