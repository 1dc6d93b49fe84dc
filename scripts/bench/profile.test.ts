import { describe, expect, it } from "vitest";
import { busyByModule } from "./profile.js";

describe("busyByModule", () => {
  it("adds a profile's samples up by bundle module and runtime function, idle left out", () => {
    const bundle = [
      "// node_modules/hono/dist/compose.js",
      "var compose = 1;",
      "// src/federation/forward/index.ts",
      "function send() {}",
      "function forwardCall() {}",
    ].join("\n");
    const frame = (id: number, functionName: string, url: string, lineNumber: number) => ({ id, callFrame: { functionName, url, lineNumber } });
    const profile = {
      nodes: [
        frame(1, "(idle)", "", -1),
        frame(2, "send", "index.js", 3),
        frame(3, "forwardCall", "index.js", 4),
        frame(4, "compose", "index.js", 1),
        frame(5, "fetch", "", -1),
      ],
      samples: [1, 2, 3, 4, 5, 5, 1],
      timeDeltas: [50, 10, 10, 10, 10, 10, 50],
    };
    expect(busyByModule(profile, bundle)).toEqual([
      { where: "src/federation/forward/index.ts", share: 0.4 },
      { where: "runtime: fetch", share: 0.4 },
      { where: "node_modules: hono/dist/compose.js", share: 0.2 },
    ]);
  });
});
