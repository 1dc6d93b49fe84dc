import { describe, expect, it } from "vitest";
import { MAX_SCRIPT_BYTES, ScriptRefused, bindableNamespace, meteredScript } from "./script.js";
import { declarationsOf } from "./api.js";

/** Runs a metered module's function in Node (the harness's part: the namespaces as given). */
async function run(code: string, steps: number, namespaces: Record<string, unknown> = {}): Promise<unknown> {
  const { module } = meteredScript(code, Object.keys(namespaces), steps);
  const url = `data:text/javascript;base64,${Buffer.from(module).toString("base64")}`;
  const { makeScript } = (await import(url)) as { makeScript: (ns: (name: string) => unknown, tools: unknown) => () => Promise<unknown> };
  return makeScript((name) => namespaces[name], {})();
}

describe("a script as the sandbox runs it", () => {
  it("normalizes what models write to one async arrow function", async () => {
    expect(await run("async () => 1 + 1", 100)).toBe(2);
    expect(await run("```js\nconst a = 2;\na * 21\n```", 100)).toBe(42);
    expect(
      await run("async () => modbus.decode({ frame: 'x' })", 100, { modbus: { decode: async (args: { frame: string }) => `decoded ${args.frame}` } }),
    ).toBe("decoded x");
  });

  it("meters loops and calls: an endless loop, a recursion or a callback storm ends at the budget, and no catch carries it on", async () => {
    await expect(run("async () => { while (true) {} }", 10_000)).rejects.toThrow(/ran past its 10000 steps/);
    await expect(run("async () => { for (;;) { try { for (;;) {} } catch {} } }", 10_000)).rejects.toThrow(/steps/);
    await expect(run("async () => { const f = async () => { await null; return f(); }; return f(); }", 10_000)).rejects.toThrow(/steps/);
    await expect(run("async () => Array.from({ length: 1e6 }, () => 0).length", 10_000)).rejects.toThrow(/steps/);
    // Within the budget, the same shapes finish.
    expect(await run("async () => { let n = 0; for (let i = 0; i < 1000; i++) n += i; return n; }", 10_000)).toBe(499_500);
    expect(await run("async () => [1, 2, 3].map((x) => x * 2)", 10_000)).toEqual([2, 4, 6]);
  });

  it("refuses what is not one function, so nothing of the script runs as its module loads", async () => {
    expect(() => meteredScript("}); globalThis.x = 1; (async () => {", [], 10)).toThrow(ScriptRefused);
    expect(() => meteredScript("x".repeat(MAX_SCRIPT_BYTES + 1), [], 10)).toThrow(/larger than/);
    // Statements around a function become its body: they run when it is called, not as the module loads.
    const { module } = meteredScript("async () => 1; globalThis.ownedAtLoad = true", [], 10);
    const loaded = (await import(`data:text/javascript;base64,${Buffer.from(module).toString("base64")}`)) as { makeScript: () => () => Promise<unknown> };
    expect((globalThis as { ownedAtLoad?: boolean }).ownedAtLoad).toBeUndefined();
    await loaded.makeScript()();
    expect((globalThis as { ownedAtLoad?: boolean }).ownedAtLoad).toBe(true);
    delete (globalThis as { ownedAtLoad?: boolean }).ownedAtLoad;
  });

  it("binds a namespace as a constant only when it can be one", () => {
    expect(["modbus", "text", "my-crm", "tools", "console", "1x"].filter(bindableNamespace)).toEqual(["modbus", "text"]);
  });
});

describe("a tool's TypeScript declarations", () => {
  it("are its namespace's function, typed from its schemas", () => {
    const text = declarationsOf({
      name: "modbus.decode",
      description: "Decode one Modbus RTU frame.",
      inputSchema: { type: "object", properties: { frame: { type: "string" } }, required: ["frame"] },
      outputSchema: { type: "object", properties: { valid: { type: "boolean" } } },
    });
    expect(text).toContain("type ModbusDecodeInput = {");
    expect(text).toMatch(/frame: string/);
    expect(text).toMatch(/valid\?: boolean/);
    expect(text).toContain("declare const modbus: { decode(input: ModbusDecodeInput): Promise<ModbusDecodeOutput> };");
    const odd = declarationsOf({ name: "my-crm.contacts.list", description: "List contacts.", inputSchema: {}, annotations: { destructiveHint: true } });
    expect(odd).toContain('declare const tools: { "my-crm": typeof ns }; declare const ns: { "contacts.list"(input: MyCrmContactsListInput)');
    expect(odd).toContain("Destructive");
  });
});
