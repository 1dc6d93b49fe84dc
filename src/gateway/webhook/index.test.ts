import { describe, expect, it } from "vitest";
import { MAX_WEBHOOK_SKEW_MS, signWebhook, webhookRefusal } from "./index.js";

const parts = { path: "/hooks/jobs", body: '{"jobId":"j_1","status":"completed"}' };

describe("signed webhooks", () => {
  it("accepts what the same secret signed, within the time window", async () => {
    const now = 1_800_000_000_000;
    const header = await signWebhook("s3cret", parts, now);
    expect(header).toMatch(/^t=1800000000000,v1=[0-9a-f]{64}$/);
    expect(await webhookRefusal("s3cret", header, parts, now + MAX_WEBHOOK_SKEW_MS)).toBeUndefined();
  });

  it("refuses unsigned, stale, other-secret and tampered requests", async () => {
    const now = 1_800_000_000_000;
    const header = await signWebhook("s3cret", parts, now);
    expect(await webhookRefusal("s3cret", null, parts, now)).toMatch(/not signed/);
    expect(await webhookRefusal("s3cret", "t=1,v1=zz", parts, now)).toMatch(/not signed/);
    expect(await webhookRefusal("s3cret", header, parts, now + MAX_WEBHOOK_SKEW_MS + 1)).toMatch(/too old/);
    expect(await webhookRefusal("other", header, parts, now)).toMatch(/does not match/);
    for (const changed of [{ body: parts.body.replace("j_1", "j_2") }, { path: "/x" }]) {
      expect(await webhookRefusal("s3cret", header, { ...parts, ...changed }, now), JSON.stringify(changed)).toMatch(/does not match/);
    }
  });

  it("signs the format receivers verify: HMAC-SHA256 over t, POST, path, the body's SHA-256 and an empty line", async () => {
    const { createHmac, createHash } = await import("node:crypto");
    const now = 1_800_000_000_000;
    const expected = createHmac("sha256", "s3cret")
      .update(`${now}\nPOST\n${parts.path}\n${createHash("sha256").update(parts.body).digest("hex")}\n`)
      .digest("hex");
    expect(await signWebhook("s3cret", parts, now)).toBe(`t=${now},v1=${expected}`);
  });
});
