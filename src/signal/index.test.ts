import { describe, expect, it } from "vitest";
import { anySignal } from "./index.js";

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
