import { describe, expect, it } from "vitest";
import { contentBytesOf, digestRefusal, pinnedPackageOf, servedPackageUriOf } from "./packages.js";

const DIGEST = `sha256:${"a".repeat(64)}`;
const entry = (overrides: object = {}) => ({
  uri: "skill://acme/billing/refunds/SKILL.md",
  frontmatter: { name: "refunds", description: "Refunds, per policy." },
  resources: [
    { uri: "skill://acme/billing/refunds/examples/email%20one.md", digest: DIGEST },
    { uri: "skill://acme/billing/refunds/SKILL.md", digest: DIGEST },
  ],
  ...overrides,
});

describe("pinnedPackageOf", () => {
  it("pins a listed skill: its skill-path, SKILL.md first, paths decoded", () => {
    expect(pinnedPackageOf(entry())).toEqual({
      uri: "skill://acme/billing/refunds/SKILL.md",
      path: "acme/billing/refunds",
      frontmatter: { name: "refunds", description: "Refunds, per policy." },
      files: [
        { path: "SKILL.md", uri: "skill://acme/billing/refunds/SKILL.md", digest: DIGEST },
        { path: "examples/email one.md", uri: "skill://acme/billing/refunds/examples/email%20one.md", digest: DIGEST },
      ],
    });
  });

  it("refuses what the Skills extension does not allow", () => {
    const refused = (overrides: object) => (pinnedPackageOf(entry(overrides)) as { refused?: string }).refused;
    expect(refused({ frontmatter: { name: "other", description: "x" } })).toMatch(/last segment/);
    expect(refused({ frontmatter: { name: "Refunds", description: "x" } })).toMatch(/not a valid Agent Skill name/);
    expect(refused({ frontmatter: { name: "refunds" } })).toMatch(/description/);
    expect(refused({ uri: "skill://acme/refunds.md" })).toMatch(/SKILL\.md/);
    expect(refused({ resources: undefined })).toMatch(/no digests to pin/);
    expect(refused({ resources: [{ uri: "skill://acme/billing/other/SKILL.md", digest: DIGEST }] })).toMatch(/not a file of the skill/);
    expect(refused({ resources: [{ uri: "skill://acme/billing/refunds/../../x/SKILL.md", digest: DIGEST }] })).toMatch(/not a file of the skill/);
    expect(refused({ resources: [{ uri: "skill://acme/billing/refunds/notes.md", digest: DIGEST }] })).toMatch(/do not list its SKILL\.md/);
    const twice = { uri: "skill://acme/billing/refunds/SKILL.md", digest: DIGEST };
    expect(refused({ resources: [twice, twice] })).toMatch(/listed twice/);
  });
});

describe("a pinned file's bytes", () => {
  it("are one contents item of the URI, text as UTF-8 or a blob decoded, checked against the digest", async () => {
    const uri = "skill://team/a/SKILL.md";
    expect(contentBytesOf({ contents: [{ uri, text: "é" }] }, uri)).toEqual(new Uint8Array([0xc3, 0xa9]));
    expect(contentBytesOf({ contents: [{ uri, blob: "AAE=" }] }, uri)).toEqual(new Uint8Array([0, 1]));
    expect(contentBytesOf({ contents: [{ uri: "skill://team/b/SKILL.md", text: "x" }] }, uri)).toBeUndefined();
    expect(
      contentBytesOf(
        {
          contents: [
            { uri, text: "x" },
            { uri, text: "y" },
          ],
        },
        uri,
      ),
    ).toBeUndefined();
    const empty = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    expect(await digestRefusal(new Uint8Array(), empty)).toBeUndefined();
    expect(await digestRefusal(new Uint8Array([1]), empty)).toMatch(/not the pinned/);
    expect(await digestRefusal(undefined, empty)).toMatch(/not answered as one file/);
  });

  it("are served under the upstream's name, each segment encoded", () => {
    expect(servedPackageUriOf("team", "acme/refunds", "examples/email one.md")).toBe("skill://team/acme/refunds/examples/email%20one.md");
  });
});
