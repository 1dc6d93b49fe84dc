import { describe, expect, it } from "vitest";
import type { Outcome } from "../../policies/outcome/index.js";
import { type Call, type Policy, breakerVerdict, compose } from "./policies.js";

describe("compose", () => {
  it("wraps the handler in the policies, the first outermost, each free to change the call or the outcome", async () => {
    const seen: string[] = [];
    const tag =
      (name: string): Policy<Call> =>
      async (call, next) => {
        seen.push(`${name} in`);
        const outcome = await next({ ...call, deadline: call.deadline + 1 });
        seen.push(`${name} out`);
        return outcome;
      };
    const run = compose<Call>([tag("a"), tag("b")], async (call) => ({ ok: true, result: call.deadline }));
    expect(await run({ deadline: 0 } as Call)).toEqual({ ok: true, result: 2 });
    expect(seen).toEqual(["a in", "b in", "b out", "a out"]);
  });
});

describe("breakerVerdict", () => {
  const failed = (code: number, data?: unknown): Outcome => ({ ok: false, error: { code, message: "m", ...(data ? { data } : {}) } });
  it("charges the skill's own failures, never the caller's input or budget", () => {
    expect(breakerVerdict({ ok: true, result: 1 })).toBe("success");
    for (const code of [-32603, -32001, -32004]) expect(breakerVerdict(failed(code)), String(code)).toBe("failure");
    for (const code of [-32602, -32600, -32005, 42]) expect(breakerVerdict(failed(code)), String(code)).toBe("success");
    expect(breakerVerdict(failed(-32004, { timeoutMs: 100, cutByCaller: true }))).toBe("none");
    expect(breakerVerdict(failed(-32007))).toBe("none"); // cancelled by its caller: says nothing about the skill
  });
});
