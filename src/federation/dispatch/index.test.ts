import { describe, expect, it } from "vitest";
import { OUTBOUND_PARAMETER } from "../egress/index.js";
import { NAMESPACE_BINDING, ScriptNotFound, namespaceOf } from "./index.js";
import { ScriptNameSchema } from "../../registry/deployments/script-name.js";

/** The runtime's dispatch namespace binding, as far as the gateway calls it: records each get. */
function fakeBinding(scripts: string[]) {
  const gets: unknown[][] = [];
  const binding = {
    get(name: string, args?: unknown, options?: unknown) {
      gets.push([name, args, options]);
      if (!scripts.includes(name)) throw new Error(`Worker not found: ${name}`);
      return { fetch: () => Promise.resolve(new Response(name)) };
    },
  };
  return { binding, gets };
}

describe("namespaceOf", () => {
  it("dispatches by script name with the limits and the egress parameters its outbound Worker reads", async () => {
    const { binding, gets } = fakeBinding(["skill-echo"]);
    const namespace = namespaceOf({ [NAMESPACE_BINDING]: binding })!;
    const egress = { deployment: "test.echo@1.0.0", hosts: ["api.example.com"] };
    const worker = await namespace.worker("skill-echo", { limits: { cpuMs: 50 }, egress });
    expect(await (await worker.fetch("http://skill/")).text()).toBe("skill-echo");
    expect(gets).toEqual([["skill-echo", {}, { limits: { cpuMs: 50 }, outbound: { [OUTBOUND_PARAMETER]: egress } }]]);
  });

  it("says ScriptNotFound for a script the namespace does not hold", async () => {
    const namespace = namespaceOf({ [NAMESPACE_BINDING]: fakeBinding([]).binding })!;
    await expect(namespace.worker("skill-gone", { egress: { deployment: "x@1.0.0", hosts: [] } })).rejects.toBeInstanceOf(ScriptNotFound);
  });

  it("is undefined for a gateway without a namespace or a local loader", () => {
    expect(namespaceOf({})).toBeUndefined();
    expect(namespaceOf({ [NAMESPACE_BINDING]: "not a binding" })).toBeUndefined();
  });
});

describe("ScriptNameSchema", () => {
  it("takes Worker script names, nothing a URL or a path could hide in", () => {
    for (const good of ["skill-echo-v1", "a", "skill_json_schema_2020_12_tool"]) expect(ScriptNameSchema.safeParse(good).success, good).toBe(true);
    for (const bad of ["Skill", "-x", "x-", "a/b", "../x", "x".repeat(64), ""]) expect(ScriptNameSchema.safeParse(bad).success, bad).toBe(false);
  });
});
