import { describe, expect, it } from "vitest";
import { promote, rollback, setCanary } from "../routing/edits.js";
import { routed, routesOf, servedVersionOf } from "./routing.js";

const record = { name: "triage", stable: "1.0.0", versions: { "1.0.0": {}, "1.1.0": {} } };
const ctx = { now: 1, by: "admin" };

describe("package version routing", () => {
  it("serves the stable version until a canary takes a share", () => {
    expect(routesOf(record)).toEqual({ "*": { "1.0.0": 100 } });
    expect(servedVersionOf(record, { group: "beta", stickyKey: "u1" })).toBe("1.0.0");
  });

  it("splits by group, sticky by user, with the edits tools use", () => {
    const { record: canaried, event } = routed(record, (doc, name, c) => setCanary(doc, name, "1.1.0", { beta: 100, "*": 30 }, c), ctx);
    expect(event).toMatchObject({ type: "canary", version: "1.1.0", by: "admin" });
    expect(servedVersionOf(canaried, { group: "beta", stickyKey: "u1" })).toBe("1.1.0");
    const users = Array.from({ length: 1_000 }, (_, i) => `u${i}`);
    const share = users.filter((u) => servedVersionOf(canaried, { stickyKey: u }) === "1.1.0").length / users.length;
    expect(share).toBeGreaterThan(0.25);
    expect(share).toBeLessThan(0.35);
    for (const u of users.slice(0, 50)) expect(servedVersionOf(canaried, { stickyKey: u })).toBe(servedVersionOf(canaried, { stickyKey: u }));
    // An unknown group is the default one's split.
    expect(servedVersionOf(canaried, { group: "nobody", stickyKey: "u1" })).toBe(servedVersionOf(canaried, { stickyKey: "u1" }));

    const back = routed(canaried, (doc, name, c) => rollback(doc, name, c), ctx).record;
    expect(users.every((u) => servedVersionOf(back, { group: "beta", stickyKey: u }) === "1.0.0")).toBe(true);
    const promoted = routed(back, (doc, name, c) => promote(doc, name, "1.1.0", c), ctx).record;
    expect(promoted.stable).toBe("1.1.0");
    expect(users.every((u) => servedVersionOf(promoted, { stickyKey: u }) === "1.1.0")).toBe(true);
  });
});
