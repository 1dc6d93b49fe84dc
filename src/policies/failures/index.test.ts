import { describe, expect, it } from "vitest";
import { failureClassOf, isToolError } from "./index.js";

describe("failure classes", () => {
  it("decide once what the breaker counts, what is retried and what is replayed", () => {
    const row = (code: number) => {
      const c = failureClassOf(code);
      return [c.breaker, c.retry, c.replay];
    };
    expect(row(-32603)).toEqual([true, "never", false]);
    expect(row(-32001)).toEqual([true, "backoff", false]);
    expect(row(-32004)).toEqual([true, "backoff", false]);
    expect(row(-32005)).toEqual([false, "retry-after", false]);
    expect(row(-32007)).toEqual([false, "never", false]); // cancelled: a retried request runs again
    for (const code of [-32600, -32601, -32602, -32002, -32003, 4711]) expect(row(code), String(code)).toEqual([false, "never", true]);
  });

  it("tell the tool's own error (its code, refused arguments) from a failure to run it", () => {
    for (const code of [1, 4711, -1, -31999, -32769, -32602]) expect(isToolError(code), String(code)).toBe(true);
    for (const code of [-32603, -32001, -32004, -32005, -32007, -32601, -32600, -32000, -32768]) expect(isToolError(code), String(code)).toBe(false);
  });
});
