import { describe, expect, it } from "vitest";
import { FULL_ACCESS } from "../../identity/auth/index.js";
import { ANSWER_HEADERS, answerHeadersOf, callScopeOf } from "./scope.js";

describe("answerHeadersOf", () => {
  it("sets only headers listed in ANSWER_HEADERS (the ones a page's script is allowed to read)", () => {
    const scope = callScopeOf(new Headers(), { id: "k_1", access: FULL_ACCESS, limits: { identifier: "k_1" } }, () => {}, FULL_ACCESS);
    Object.assign(scope, { replayed: true, degraded: true, queued: true });
    scope.answeredBy.add("subtract@1.0.0");
    scope.rateLimit = {
      allowed: false,
      refusedBy: "rate",
      retryAfterMs: 1_500,
      headers: { "ratelimit-policy": '"rate";q=5;w=60', ratelimit: '"rate";r=0;t=2' },
    };
    const names = Object.keys(answerHeadersOf(scope));
    expect(names.length).toBeGreaterThanOrEqual(7); // every kind of answer header is set here
    for (const name of names) expect(ANSWER_HEADERS, name).toContain(name);
  });
});
