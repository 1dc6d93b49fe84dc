import { describe, expect, it } from "vitest";
import type { SkillManifest } from "../../src/skill/manifest.js";
import { gatewayUrlRefusal, registrationEndpointOf, sameVersionChanges, skillVarsOf } from "./deploy-plan.js";

describe("the deploy plan", () => {
  it("gives a skill reached by URL the gateway's public hop key, and a bound skill nothing", () => {
    expect(skillVarsOf({ bound: false }, "vD6N3Ab-St9anAoqCavHMhhB6IB8v-jjzhmSsRmJyOM")).toEqual({
      SKILLMESH_HOP_PUBLIC_KEY: "vD6N3Ab-St9anAoqCavHMhhB6IB8v-jjzhmSsRmJyOM",
    });
    expect(skillVarsOf({ bound: true }, "vD6N3Ab-St9anAoqCavHMhhB6IB8v-jjzhmSsRmJyOM")).toEqual({});
    expect(skillVarsOf({ bound: false }, undefined)).toEqual({});
  });

  it("sends the admin token only to an https gateway, or http on loopback", () => {
    expect(gatewayUrlRefusal("https://gateway.example.com")).toBeUndefined();
    for (const local of ["http://127.0.0.1:8787", "http://localhost:8787", "http://[::1]:8787", "http://127.1.2.3"])
      expect(gatewayUrlRefusal(local), local).toBeUndefined();
    expect(gatewayUrlRefusal("http://gateway.example.com")).toMatch(/only to an https gateway/);
    expect(gatewayUrlRefusal("http://127.0.0.1.example.com")).toMatch(/only to an https gateway/);
    expect(gatewayUrlRefusal("not a url")).toMatch(/not a URL/);
  });

  it("registers a skill that trusts the caller context only by binding", () => {
    expect(registrationEndpointOf({ name: "skill-a", trustsContext: true }, new Map([["skill-a", "SKILL_A"]]), undefined)).toEqual({ binding: "SKILL_A" });
    expect(() => registrationEndpointOf({ name: "skill-a", trustsContext: true }, new Map(), "https://a.workers.dev")).toThrow(
      /registered only by service binding/,
    );
    expect(registrationEndpointOf({ name: "skill-b", trustsContext: false }, new Map(), "https://b.workers.dev")).toEqual({ url: "https://b.workers.dev" });
  });
});

describe("sameVersionChanges", () => {
  const manifest = (version: string, description = "a - b") =>
    ({
      name: "sub",
      version,
      description,
      tags: [],
      idempotent: true,
      degraded: false,
      timeoutMs: 10_000,
      inputSchema: { type: "object" },
      outputSchema: {},
    }) as SkillManifest;
  it("names a skill whose definition differs from the one registered under its version, and nothing else", () => {
    const registered = [{ id: "sub@1.0.0", manifest: manifest("1.0.0") }];
    expect(sameVersionChanges([manifest("1.0.0", "a minus b")], registered)).toEqual([
      'sub 1.0.0: the gateway has another definition registered under this version (description: "a - b" → "a minus b"): give the changed skill a new version',
    ]);
    expect(sameVersionChanges([manifest("1.0.0")], registered)).toEqual([]); // the same definition: a re-run
    expect(sameVersionChanges([manifest("1.1.0", "a minus b")], registered)).toEqual([]); // a new version
  });
});
