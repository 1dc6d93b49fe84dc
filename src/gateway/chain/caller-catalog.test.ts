import { ROOT_CONTEXT } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { accessOf } from "../../identity/auth/access.js";
import { skillDocOf } from "../../../test/support/skill-doc.js";
import { RegistryView } from "../../registry/deployments/snapshot.js";
import { CallerCatalog } from "./caller-catalog.js";
import type { GatewayRuntime } from "./runtime.js";
import type { CallScope } from "./scope.js";

/** A stored skill serving a resource and a prompt. */
const skillDoc = (name: string, uri: string) =>
  skillDocOf(name, { resources: [{ uri, name: `${name} table` }], prompts: [{ name: "explain", description: "Explains it" }] });

const view = RegistryView.of(
  1,
  new Map([
    ["units.convert", skillDoc("units.convert", "units://table")],
    ["grid.decode", skillDoc("grid.decode", "grid://registers")],
  ]),
  new Set(),
);

/** The parts of a runtime a caller's catalog reads: the registry's view, no upstream, no package. */
const runtime = {
  snapshot: { current: async () => view },
  upstreams: { records: { names: async () => [], cached: async () => undefined } },
  packages: { index: async () => ({ records: [], byName: new Map(), revision: "0" }) },
} as unknown as GatewayRuntime;

/** A request of a caller with `skills` grants. */
function catalogOf(skills: string[]): CallerCatalog {
  const scope = {
    access: accessOf({ skills, tags: [], groups: [] }),
    routeKey: { stickyKey: "u1" },
    context: { caller: "k_1" },
    trace: ROOT_CONTEXT,
  } as unknown as CallScope;
  return new CallerCatalog(runtime, scope);
}

describe("CallerCatalog: one request's view of what its caller may use", () => {
  it("lists the tools the grants allow, and only those", async () => {
    expect((await catalogOf(["units.*"]).tools()).map((t) => t.name)).toEqual(["units.convert"]);
    expect((await catalogOf(["*"]).tools()).map((t) => t.name)).toEqual(["grid.decode", "units.convert"]);
  });

  it("finds who serves a resource, a prompt: the skill the caller may call, or nothing", async () => {
    const units = catalogOf(["units.*"]);
    expect(await units.resourceTarget("units://table")).toMatchObject({ owner: "skill", skill: "units.convert" });
    // Another skill's resource, hidden by the grants: nothing, as for a URI nobody serves.
    expect(await units.resourceTarget("grid://registers")).toBeUndefined();
    expect(await units.resourceTarget("nobody://serves-this")).toBeUndefined();
    expect(await units.promptTarget("units.convert.explain")).toMatchObject({ owner: "skill", skill: "units.convert" });
    expect(await units.promptTarget("grid.decode.explain")).toBeUndefined();
  });

  it("says what serves a resource now: the deployment routed to the caller", async () => {
    expect(await catalogOf(["*"]).servedBy("units://table")).toBe("skill:units.convert@1.0.0");
    expect(await catalogOf(["grid.*"]).servedBy("units://table")).toBeUndefined();
  });
});
