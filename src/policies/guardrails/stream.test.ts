import { describe, expect, it } from "vitest";
import { MAX_HELD_CHARS, TextStreamGuard, holdStart } from "./stream.js";

// Made-up credentials in the shapes the rules know (none is live).
const GITHUB = `ghp_${"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}`;

/** Pushes each piece (the last one ends the stream); answers everything released and every kind found. */
async function streamed(pieces: string[], end = true) {
  const guard = new TextStreamGuard();
  let released = "";
  const kinds: string[] = [];
  for (const [i, piece] of pieces.entries()) {
    const out = await guard.push(piece, end && i === pieces.length - 1);
    released += out.released;
    kinds.push(...out.found.map((c) => c.kind));
  }
  return { released, kinds, guard };
}

describe("TextStreamGuard", () => {
  it("finds a token split across two chunks, and releases no character of it", async () => {
    const guard = new TextStreamGuard();
    const first = await guard.push(`deploy token: ${GITHUB.slice(0, 20)}`, false);
    expect(first).toEqual({ released: "deploy token: ", found: [] });
    const second = await guard.push(`${GITHUB.slice(20)} and done`, false);
    expect(second.released).toBe("[REDACTED:GITHUB_TOKEN] and ");
    expect(second.found.map((c) => c.kind)).toEqual(["GITHUB_TOKEN"]);
    expect(await guard.push("", true)).toEqual({ released: "done", found: [] });
  });

  it("releases a text word by word as it streams, whatever the chunks", async () => {
    const text = "The quick brown fox jumps over the lazy dog";
    const pieces = text.match(/.{1,3}/g)!;
    const { released, kinds } = await streamed(pieces);
    expect(released).toBe(text);
    expect(kinds).toEqual([]);
  });

  it("finds a token split into many one-character chunks, once", async () => {
    const { released, kinds } = await streamed(["use ", ...GITHUB.split(""), " now"]);
    expect(released).toBe("use [REDACTED:GITHUB_TOKEN] now");
    expect(kinds).toEqual(["GITHUB_TOKEN"]);
  });

  it("holds an open private key block until it ends, so none of its lines is released first", async () => {
    const body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7";
    const guard = new TextStreamGuard();
    const first = await guard.push(`key:\n-----BEGIN PRIVATE KEY-----\n${body}\n`, false);
    expect(first.released).toBe("key:\n");
    const second = await guard.push(`${body}\n-----END PRIVATE KEY-----\nbye`, true);
    expect(second.found.map((c) => c.kind)).toEqual(["PRIVATEKEY"]);
    expect(second.released).not.toContain(body);
  });

  it("reads a secret's key name in a chunk already released", async () => {
    const { released, kinds } = await streamed(["aws_secret_access_key = ", "wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYzzzzzzzzzz\n"]);
    expect(kinds).toEqual(["AWSSECRETACCESSKEY"]);
    expect(released).toBe("aws_secret_access_key = [REDACTED:AWSSECRETACCESSKEY]\n");
  });

  it("finds a token split across two messages of a channel (each released whole)", async () => {
    const { released, kinds } = await streamed(
      [`progress with ${GITHUB.slice(0, 12)}`, GITHUB.slice(12)].map((p) => p),
      true,
    );
    // Each message is released when it comes (end): the second one's part of the token is redacted, and the finding counted.
    expect(kinds).toEqual(["GITHUB_TOKEN"]);
    expect(released).not.toContain(GITHUB.slice(12));
  });

  it("holds at most MAX_HELD_CHARS of one word", () => {
    expect(holdStart("a ".concat("x".repeat(MAX_HELD_CHARS + 10)))).toBe(12);
    expect(holdStart("token: ghp_A1b2")).toBe(7);
    expect(holdStart("ends with a space ")).toBe(18);
  });
});
