import { describe, expect, it } from "vitest";
import { PROGRESS_METHOD, progressRelay } from "./index.js";

describe("progressRelay", () => {
  it("relays each report that moves forward as a notification with what it is about, through notify", () => {
    const notified: unknown[] = [];
    const report = progressRelay({ notify: (message) => (notified.push(message), true) }, { progressToken: "t1" });
    report({ progress: 1, total: 3 });
    report({ progress: 1, total: 3 }); // not forward: dropped
    report({ progress: Number.NaN }); // malformed: dropped
    report({ progress: 2, total: 3, message: "half" });
    expect(notified).toEqual([
      { jsonrpc: "2.0", method: PROGRESS_METHOD, params: { progressToken: "t1", progress: 1, total: 3 } },
      { jsonrpc: "2.0", method: PROGRESS_METHOD, params: { progressToken: "t1", progress: 2, total: 3, message: "half" } },
    ]);
  });
});
