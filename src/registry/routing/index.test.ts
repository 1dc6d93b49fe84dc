import { describe, expect, it } from "vitest";
import type { Deployment } from "../deployments/model.js";
import type { ToolEntry } from "../deployments/snapshot.js";
import { BUCKETS, bucketOf, selectDeployment } from "./index.js";

const deployment = (version: string, role: Deployment["role"]): Deployment => ({
  id: `s@${version}`,
  name: "s",
  version,
  tags: [],
  role,
  registrationId: version,
  registeredAt: 0,
  endpoint: { binding: "X" },
  manifest: { name: "s", version, description: "", tags: [], idempotent: true, degraded: false, timeoutMs: 1000, inputSchema: {}, outputSchema: {} },
});
const entry = (routes: ToolEntry["routes"]): ToolEntry => ({
  name: "s",
  versions: [deployment("2.0.0", "canary"), deployment("1.0.0", "stable")],
  routes,
  tags: [],
});
const users = Array.from({ length: 10_000 }, (_, i) => `user-${i}`);
const versionFor = (e: ToolEntry, stickyKey: string, group?: string) => selectDeployment(e, { group, stickyKey })!.version;

describe("bucketOf", () => {
  it("is stable per skill and key, in range, and differs across skills", () => {
    expect(bucketOf("s", "alice")).toBe(bucketOf("s", "alice"));
    expect(bucketOf("s", "alice")).toBeGreaterThanOrEqual(0);
    expect(bucketOf("s", "alice")).toBeLessThan(BUCKETS);
    const moved = users.slice(0, 200).filter((u) => bucketOf("a", u) !== bucketOf("b", u));
    expect(moved.length).toBeGreaterThan(190);
  });

  it("spreads keys evenly over the buckets", () => {
    const tenths = new Array(10).fill(0);
    for (const u of users) tenths[Math.floor(bucketOf("s", u) / 1000)]++;
    for (const count of tenths) {
      expect(count).toBeGreaterThan(900);
      expect(count).toBeLessThan(1100);
    }
  });
});

describe("selectDeployment", () => {
  it("splits users by the group's weights, within 2 points", () => {
    const e = entry({ "*": { "1.0.0": 70, "2.0.0": 30 } });
    const share = users.filter((u) => versionFor(e, u) === "2.0.0").length / users.length;
    expect(Math.abs(share - 0.3)).toBeLessThan(0.02);
  });

  it("keeps every canary user on the canary when its weight goes from 10% to 20%", () => {
    const at10 = users.filter((u) => versionFor(entry({ "*": { "1.0.0": 90, "2.0.0": 10 } }), u) === "2.0.0");
    const e20 = entry({ "*": { "1.0.0": 80, "2.0.0": 20 } });
    expect(at10.every((u) => versionFor(e20, u) === "2.0.0")).toBe(true);
  });

  it("uses the caller's group, and * for an unknown group", () => {
    const e = entry({ "*": { "1.0.0": 100, "2.0.0": 0 }, beta: { "1.0.0": 0, "2.0.0": 100 } });
    expect(versionFor(e, "u1", "beta")).toBe("2.0.0");
    expect(versionFor(e, "u1", "gamma")).toBe("1.0.0");
    expect(versionFor(e, "u1")).toBe("1.0.0");
  });

  it("never gives a 0% version to anyone, not even the user in bucket 0", () => {
    const first = users.find((u) => bucketOf("s", u) === 0) ?? Array.from({ length: 100_000 }, (_, i) => `probe-${i}`).find((u) => bucketOf("s", u) === 0)!;
    expect(bucketOf("s", first)).toBe(0);
    expect(versionFor(entry({ "*": { "1.0.0": 100, "2.0.0": 0 } }), first)).toBe("1.0.0");
    const last = Array.from({ length: 100_000 }, (_, i) => `probe-${i}`).find((u) => bucketOf("s", u) === BUCKETS - 1)!;
    expect(versionFor(entry({ "*": { "1.0.0": 0, "2.0.0": 100 } }), last)).toBe("2.0.0");
    expect(users.filter((u) => versionFor(entry({ "*": { "1.0.0": 100, "2.0.0": 0 } }), u) === "2.0.0")).toEqual([]);
  });

  it("falls back to the stable version when no weight covers the bucket", () => {
    expect(versionFor(entry({ "*": { "1.0.0": 0, "2.0.0": 0 } }), "u1")).toBe("1.0.0");
    expect(versionFor(entry({}), "u1")).toBe("1.0.0");
  });

  it("picks at random without a sticky key, still by the weights", () => {
    const e = entry({ "*": { "1.0.0": 50, "2.0.0": 50 } });
    const picks = new Set(Array.from({ length: 200 }, () => selectDeployment(e, {})!.version));
    expect(picks).toEqual(new Set(["1.0.0", "2.0.0"]));
  });
});
