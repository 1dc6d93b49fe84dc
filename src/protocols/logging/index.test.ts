import { describe, expect, it } from "vitest";
import { LOG_METHOD, MAX_LOG_DATA_CHARS, MAX_LOG_MESSAGES, atLeast, logRelay } from "./index.js";

function stream() {
  const sent: Array<{ method: string; params: { level: string; logger: string; data: unknown } }> = [];
  return { sent, notify: (message: unknown) => (sent.push(message as (typeof sent)[number]), true) };
}

describe("a call's log messages", () => {
  it("are relayed at or above the caller's level, named after the tool, malformed ones dropped", () => {
    expect(atLeast("error", "warning")).toBe(true);
    expect(atLeast("info", "warning")).toBe(false);
    const out = stream();
    const onLog = logRelay(out, { minimum: "info", source: "crm.sync" });
    onLog({ level: "debug", data: "too chatty" });
    onLog({ level: "info", data: { step: 1 } });
    onLog({ level: "error", logger: "db", data: "timeout" });
    onLog({ level: "loud", data: "not a level" });
    onLog("not a message");
    expect(out.sent).toEqual([
      { jsonrpc: "2.0", method: LOG_METHOD, params: { level: "info", logger: "crm.sync", data: { step: 1 } } },
      { jsonrpc: "2.0", method: LOG_METHOD, params: { level: "error", logger: "crm.sync/db", data: "timeout" } },
    ]);
  });

  it("are bounded: long data cut, and at most MAX_LOG_MESSAGES a call, then one saying so", () => {
    const out = stream();
    const onLog = logRelay(out, { minimum: "debug", source: "t" });
    onLog({ level: "info", data: "x".repeat(MAX_LOG_DATA_CHARS * 2) });
    expect(String(out.sent[0]!.params.data)).toMatch(/… \(cut at 4096 characters\)$/);
    for (let i = 0; i < MAX_LOG_MESSAGES * 2; i++) onLog({ level: "info", data: i });
    expect(out.sent).toHaveLength(MAX_LOG_MESSAGES + 1);
    expect(out.sent.at(-1)!.params).toMatchObject({ level: "warning", data: expect.stringContaining("the rest are dropped") });
  });
});
