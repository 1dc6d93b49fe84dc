import { describe, expect, it } from "vitest";
import { answerJson, toHttpResponse } from "./http.js";
import { success } from "./index.js";

describe("answerJson", () => {
  it("serializes a single answer and a batch as JSON.stringify does when they fit", () => {
    const batch = [success(1, { a: "x" }), success("two", [1, 2])];
    expect(answerJson(batch[0]!)).toBe(JSON.stringify(batch[0]));
    expect(answerJson(batch)).toBe(JSON.stringify(batch));
  });

  it("replaces a batch's answers that pass the budget with an error, keeping ids, order and the small ones", () => {
    const big = "x".repeat(600);
    const batch = [success(1, big), success(2, big), success(3, "small"), success(4, big)];
    const answers = JSON.parse(answerJson(batch, 1_000)) as Array<{ id: number; result?: unknown; error?: { code: number; data: unknown } }>;
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4]);
    expect(answers[0]!.result).toBe(big);
    expect(answers[1]!.error).toMatchObject({ code: -32600, data: { maxBatchAnswerChars: 1_000 } });
    expect(answers[2]!.result).toBe("small");
    expect(answers[3]!.error).toMatchObject({ code: -32600 });
  });
});

describe("toHttpResponse", () => {
  it("declares the body's length in UTF-8 bytes (a gateway reading it over a binding stops there), ASCII or not", async () => {
    for (const result of ["plain", "héllo ✓ 🚀"]) {
      const response = toHttpResponse({ jsonrpc: "2.0", result, id: 1 }, { "x-skill-version": "a@1.0.0" });
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(Number(response.headers.get("content-length"))).toBe(bytes.byteLength);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(response.headers.get("x-skill-version")).toBe("a@1.0.0");
    }
    expect(toHttpResponse(undefined).status).toBe(204);
  });
});
