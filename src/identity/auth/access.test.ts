import { describe, expect, it } from "vitest";
import { accessOf, accessOfSignature, narrowedTo } from "./access.js";

describe("an access read back from its signature", () => {
  const key = accessOf({ skills: ["web.*", "html.*", "text.*", "modbus.*"], tags: [], groups: [] });

  it("keeps a virtual server's narrowing: what the server does not expose stays out", () => {
    const door = narrowedTo(key, "web", { tools: ["web.*", "html.*"], tags: ["text"] });
    const back = accessOfSignature(door.signature);
    expect(back.signature).toBe(door.signature);
    expect(
      ["web.digest", "html.extract", "text.summarize", "modbus.decode"].map((name) => back.allowsSkill(name, name === "text.summarize" ? ["text"] : [])),
    ).toEqual([true, true, true, false]);
    // Never wider than the key's own grants, nor admin.
    expect(accessOfSignature(narrowedTo(key, "all", { tools: ["*"], tags: [] }).signature).allowsSkill("crm.delete", [])).toBe(false);
    expect(back.admin).toBe("none");
  });

  it("gives nothing for a signature that is neither a key's nor a narrowed one", () => {
    for (const signature of ['["server","web",{"tools":["*"]}]', '["server","web",{"tools":["*"]},42]', "not json"])
      expect(accessOfSignature(signature).allowsSkill("web.digest", [])).toBe(false);
  });
});
