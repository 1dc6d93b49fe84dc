import { describe, expect, it } from "vitest";
import { CatalogIndex, SUMMARY_CHARS, signatureOf, summaryOf, termsOf } from "./index.js";

const entries = [
  {
    kind: "tool" as const,
    name: "modbus.decode",
    description: "Decode one Modbus RTU frame given as hex. More detail follows.",
    tags: ["protocol.modbus"],
    signature: "frame: string",
  },
  { kind: "tool" as const, name: "text.summarize", description: "Summarize a text in a few sentences.", tags: ["text"], signature: "text: string" },
  {
    kind: "skill" as const,
    name: "modbus-triage",
    description: "Triage a Modbus capture with modbus.decode.",
    tags: [],
    uri: "skill://modbus-triage/SKILL.md",
  },
];

describe("catalog search", () => {
  it("splits names and camelCase, drops stop words, stems", () => {
    expect(termsOf("Decoding the modbus.decode frames of readHoldingRegisters")).toEqual(["decod", "modbu", "decod", "frame", "read", "hold", "regist"]);
  });

  it("says a tool's arguments in one line, and a description's first sentence", () => {
    expect(
      signatureOf({
        type: "object",
        properties: { frame: { type: "string" }, role: { enum: ["auto", "request"] }, n: { type: ["integer", "null"] } },
        required: ["frame"],
      }),
    ).toBe("frame: string, role?: auto|request, n?: integer|null");
    expect(summaryOf("Decode one frame. Then more.")).toBe("Decode one frame.");
    expect(summaryOf("Decode a frame (e.g. from a sniffer). Then more.")).toBe("Decode a frame (e.g. from a sniffer).");
    expect(summaryOf("x".repeat(500))).toHaveLength(SUMMARY_CHARS);
  });

  it("ranks a name match first, matches stems and prefixes, and keeps to the kind and the grants", () => {
    const index = new CatalogIndex(entries);
    expect(index.search("decoding modbus frames", { limit: 3 }).map((h) => h.name)).toEqual(["modbus.decode", "modbus-triage"]);
    expect(index.search("summar", { limit: 3 }).map((h) => h.name)).toEqual(["text.summarize"]);
    expect(index.search("modbus", { limit: 3, kind: "skill" })).toEqual([
      { kind: "skill", name: "modbus-triage", summary: "Triage a Modbus capture with modbus.decode.", uri: "skill://modbus-triage/SKILL.md" },
    ]);
    expect(index.search("modbus", { limit: 3, allows: (e) => e.name !== "modbus.decode" }).map((h) => h.name)).toEqual(["modbus-triage"]);
    expect(index.search("nothing like it", { limit: 3 })).toEqual([]);
  });
});
