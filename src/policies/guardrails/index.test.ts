import { describe, expect, it } from "vitest";
import { scanSecrets, strictestOf } from "./index.js";

// Made-up credentials in the shapes the rules know (none is live).
const GITHUB = `ghp_${"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}`;
const SLACK = `xoxb-${"123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"}`;

describe("scanSecrets", () => {
  it("finds a credential in any string of the value, says where, and replaces only it", async () => {
    const { findings, redacted } = await scanSecrets({ note: `use ${GITHUB} please`, items: [{ hook: SLACK }], n: 3 });
    expect(findings).toEqual([
      { kind: "GITHUB_TOKEN", path: "note" },
      { kind: "SLACK_TOKEN", path: "items[0].hook" },
    ]);
    expect(redacted).toEqual({ note: "use [REDACTED:GITHUB_TOKEN] please", items: [{ hook: "[REDACTED:SLACK_TOKEN]" }], n: 3 });
  });

  it("finds one in a key too, and never repeats it in a path", async () => {
    const { findings, redacted } = await scanSecrets({ [GITHUB]: { hook: SLACK } });
    expect(findings).toEqual([
      { kind: "GITHUB_TOKEN", path: "(top)#key" },
      { kind: "SLACK_TOKEN", path: "[REDACTED:GITHUB_TOKEN].hook" },
    ]);
    expect(redacted).toEqual({ "[REDACTED:GITHUB_TOKEN]": { hook: "[REDACTED:SLACK_TOKEN]" } });
  });

  it("does not join two strings into one secret", async () => {
    const half = GITHUB.length / 2;
    expect((await scanSecrets([GITHUB.slice(0, half), GITHUB.slice(half)])).findings).toEqual([]);
  });

  it("leaves a value without secrets as it is (the same object)", async () => {
    const value = { frame: "11 03 00 6B 00 03 76 87", url: "https://example.com/a" };
    const scanned = await scanSecrets(value);
    expect(scanned.findings).toEqual([]);
    expect(scanned.redacted).toBe(value);
  });
});

describe("strictestOf", () => {
  it("is the strictest mode given, off when none is", () => {
    expect(strictestOf("redact", undefined, "refuse")).toBe("refuse");
    expect(strictestOf("off", "redact")).toBe("redact");
    expect(strictestOf(undefined)).toBe("off");
  });
});

describe("scanSecrets covers the whole secret", () => {
  const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzzzzzzzzz"; // 40 characters, not the documentation's example
  it("redacts an AWS secret access key written as a config line whole, key name kept", async () => {
    const { findings, redacted } = await scanSecrets({ line: `aws_secret_access_key = ${AWS_SECRET}` });
    expect(findings).toEqual([{ kind: "AWSSECRETACCESSKEY", path: "line" }]);
    expect(redacted).toEqual({ line: "aws_secret_access_key = [REDACTED:AWSSECRETACCESSKEY]" });
    // Not one character of the secret's tail is left (the rule reports the key name's start with the secret's length).
    expect(JSON.stringify(redacted)).not.toContain(AWS_SECRET.slice(-8));
  });

  it("reads a key with its string value, as a config file's line: a JSON credential is found in its value", async () => {
    const { findings, redacted } = await scanSecrets({ aws_secret_access_key: AWS_SECRET });
    expect(findings).toEqual([{ kind: "AWSSECRETACCESSKEY", path: "aws_secret_access_key" }]);
    expect(redacted).toEqual({ aws_secret_access_key: "[REDACTED:AWSSECRETACCESSKEY]" });
  });

  it("finds an AWS access key id, and leaves an account number alone", async () => {
    const { findings, redacted } = await scanSecrets({ id: "AKIAZ7QWERTYUIOPASDF", account: "account: 123456789012" });
    expect(findings).toEqual([{ kind: "AWSACCESSKEYID", path: "id" }]);
    expect(redacted).toEqual({ id: "[REDACTED:AWSACCESSKEYID]", account: "account: 123456789012" });
  });
});
