import { describe, expect, it } from "vitest";
import { accessOf } from "../../identity/auth/access.js";
import type { Caller } from "../../identity/auth/index.js";
import { ServerDefinitionSchema, virtualServerOf } from "../servers/index.js";
import { accessThrough } from "./door.js";

const limits = { rate: { limit: 100, windowMs: 60_000 } } as unknown as Caller["limits"];
const callerWith = (grants: Parameters<typeof accessOf>[0], delegation?: Caller["delegation"]): Caller => ({
  id: "k_test",
  access: accessOf(grants),
  limits,
  ...(delegation ? { delegation } : {}),
});
const everything = { skills: ["*"], tags: [], groups: [] };
const tools = virtualServerOf("tools", ServerDefinitionSchema.parse({ tools: ["text.*"] }));

describe("accessThrough: what each door lets a caller do", () => {
  it("lets a key with no servers in by every door, with its own access", () => {
    const caller = callerWith(everything);
    for (const door of [{ kind: "rpc" }, { kind: "mcp" }, { kind: "well-known" }, { kind: "credential" }, { kind: "a2a" }] as const) {
      const entered = accessThrough(caller, door);
      expect("access" in entered && entered.access, door.kind).toBe(caller.access);
    }
  });

  it("narrows the access to what a virtual server exposes, through that server", () => {
    const entered = accessThrough(callerWith(everything), { kind: "mcp", serverName: "tools", server: tools });
    if (!("access" in entered)) throw new Error(entered.refused);
    expect(entered.access.allowsSkill("text.summarize", [])).toBe(true);
    expect(entered.access.allowsSkill("modbus.decode", [])).toBe(false);
  });

  it("keeps a key limited to virtual servers out of every other door, naming it", () => {
    const caller = callerWith({ ...everything, servers: ["tools"] });
    expect(accessThrough(caller, { kind: "rpc" })).toEqual({
      refused: "Forbidden: this credential may call only through some virtual MCP servers (/mcp/<server>), not /rpc",
    });
    expect(accessThrough(caller, { kind: "mcp", serverName: "other" })).toEqual({
      refused: "Forbidden: this credential may not call through the virtual server other",
    });
    expect("access" in accessThrough(caller, { kind: "mcp", serverName: "tools", server: tools })).toBe(true);
  });

  it("lets a pipeline's delegation token call its steps, never read packages or touch credentials", () => {
    const caller = callerWith(everything, { pipeline: "web.digest", grants: "", steps: [], context: {} } as unknown as Caller["delegation"]);
    expect("access" in accessThrough(caller, { kind: "rpc" })).toBe(true);
    expect(accessThrough(caller, { kind: "well-known" })).toEqual({
      refused: "Forbidden: a pipeline's delegation token calls its steps' skills only, not /.well-known/agent-skills",
    });
    expect(accessThrough(caller, { kind: "credential" })).toEqual({
      refused: "Forbidden: a pipeline's delegation token calls its steps' skills only, not /upstreams/<name>/credential",
    });
  });
});
