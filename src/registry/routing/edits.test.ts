import { describe, expect, it } from "vitest";
import { emptyRegistry, type RegistryDoc } from "../deployments/model.js";
import { applyRegistration } from "../deployments/mutations.js";
import type { SkillManifest } from "../../skill/manifest.js";
import { RoutingEditError, checkTable, promote, replaceRoutes, rollback, setCanary } from "./edits.js";

const manifest = (version: string, degraded = false): SkillManifest => ({
  name: "s",
  version,
  description: "",
  tags: [],
  idempotent: true,
  degraded,
  timeoutMs: 1000,
  inputSchema: {},
  outputSchema: {},
});
function registry(): RegistryDoc {
  let doc = emptyRegistry();
  for (const m of [manifest("1.0.0"), manifest("2.0.0"), manifest("3.0.0"), manifest("0.1.0", true)]) {
    doc = applyRegistration(doc, { manifest: m, endpoint: { binding: "X" }, registrationId: m.version }, 0).doc;
  }
  return doc;
}
const ctx = { now: 42, by: "admin" };

describe("setCanary", () => {
  it("sets the canary per group, the stable version takes the rest, new groups start from *", () => {
    const doc = setCanary(registry(), "s", "2.0.0", { beta: 100, vip: 20, "*": 5 }, ctx);
    expect(doc.routes.s).toEqual({
      "*": { "1.0.0": 95, "2.0.0": 5, "3.0.0": 0 },
      beta: { "1.0.0": 0, "2.0.0": 100, "3.0.0": 0 },
      vip: { "1.0.0": 80, "2.0.0": 20, "3.0.0": 0 },
    });
    expect(doc.events[0]).toEqual({ at: 42, skill: "s", type: "canary", version: "2.0.0", by: "admin", reason: "canary 2.0.0: beta=100 vip=20 *=5" });
  });

  it("leaves groups it does not name alone", () => {
    const once = setCanary(registry(), "s", "2.0.0", { beta: 50 }, ctx);
    const twice = setCanary(once, "s", "2.0.0", { "*": 10 }, ctx);
    expect(twice.routes.s!.beta).toEqual(once.routes.s!.beta);
  });

  it("refuses weights that would not add up, saying why", () => {
    const doc = setCanary(registry(), "s", "3.0.0", { vip: 90 }, ctx);
    expect(() => setCanary(doc, "s", "2.0.0", { vip: 20 }, ctx)).toThrow(/vip: 2.0.0=20 plus the other canaries \(3.0.0=90\) is 110, over 100/);
    expect(() => setCanary(doc, "s", "2.0.0", { vip: 101 }, ctx)).toThrow(RoutingEditError);
    expect(() => setCanary(doc, "s", "2.0.0", { vip: 2.5 }, ctx)).toThrow(/whole percentage/);
  });

  it("refuses unknown skills and versions (404), the stable or degraded version (400)", () => {
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as RoutingEditError;
      }
      throw new Error("no error");
    };
    expect(err(() => setCanary(registry(), "nope", "1.0.0", { "*": 5 }, ctx))).toMatchObject({ status: 404, message: "No skill nope is registered" });
    expect(err(() => setCanary(registry(), "s", "9.9.9", { "*": 5 }, ctx))).toMatchObject({
      status: 404,
      message: expect.stringContaining("registered: 1.0.0, 2.0.0, 3.0.0, 0.1.0"),
    });
    expect(err(() => setCanary(registry(), "s", "1.0.0", { "*": 5 }, ctx))).toMatchObject({
      status: 400,
      message: expect.stringContaining("already the stable"),
    });
    expect(err(() => setCanary(registry(), "s", "0.1.0", { "*": 5 }, ctx))).toMatchObject({ status: 400, message: expect.stringContaining("degraded") });
  });
});

describe("promote and rollback", () => {
  it("promote makes the version stable at 100% in every group; the old stable becomes a canary at 0", () => {
    const doc = promote(setCanary(registry(), "s", "2.0.0", { beta: 100, "*": 5 }, ctx), "s", "2.0.0", ctx);
    expect(doc.routes.s).toEqual({ "*": { "1.0.0": 0, "2.0.0": 100, "3.0.0": 0 }, beta: { "1.0.0": 0, "2.0.0": 100, "3.0.0": 0 } });
    expect(Object.values(doc.deployments).map((d) => `${d.version}:${d.role}`)).toEqual(["1.0.0:canary", "2.0.0:stable", "3.0.0:canary", "0.1.0:degraded"]);
    expect(doc.events[0]).toMatchObject({ type: "promote", version: "2.0.0" });
  });

  it("rollback gives every canary's share back to stable; with a version, only that one", () => {
    let doc = setCanary(registry(), "s", "2.0.0", { "*": 10 }, ctx);
    doc = setCanary(doc, "s", "3.0.0", { "*": 20 }, ctx);
    expect(rollback(doc, "s", { ...ctx, version: "3.0.0" }).routes.s!["*"]).toEqual({ "1.0.0": 90, "2.0.0": 10, "3.0.0": 0 });
    const all = rollback(doc, "s", { ...ctx, by: "breaker", reason: "breaker opened" });
    expect(all.routes.s!["*"]).toEqual({ "1.0.0": 100, "2.0.0": 0, "3.0.0": 0 });
    expect(all.events[0]).toEqual({ at: 42, skill: "s", type: "rollback", by: "breaker", reason: "breaker opened" });
  });
});

describe("replaceRoutes / checkTable", () => {
  it("accepts a table whose groups add up to 100", () => {
    expect(replaceRoutes(registry(), "s", { "*": { "1.0.0": 50, "3.0.0": 50 } }, ctx).routes.s).toEqual({ "*": { "1.0.0": 50, "3.0.0": 50 } });
  });
  it("refuses sums other than 100, unknown versions, and a table without *", () => {
    expect(() => checkTable(registry(), "s", { "*": { "1.0.0": 50, "2.0.0": 40 } })).toThrow("group *: weights add up to 90, not 100 (1.0.0=50 + 2.0.0=40)");
    expect(() => checkTable(registry(), "s", { "*": { "7.0.0": 100 } })).toThrow(/no routable version 7.0.0/);
    expect(() => checkTable(registry(), "s", { beta: { "1.0.0": 100 } })).toThrow(/default group/);
  });
});
