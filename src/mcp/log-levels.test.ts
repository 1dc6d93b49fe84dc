import { describe, expect, it } from "vitest";
import { LOCAL_MS, logLevelsOf } from "./log-levels.js";

/** A store of one map that counts its reads. */
function countingStore() {
  const data = new Map<string, string>();
  const store = {
    reads: 0,
    get: async (key: string) => (store.reads++, data.get(key) ?? null),
    set: async (key: string, value: string) => (data.set(key, value), true),
  };
  return store;
}

describe("a 2025 session's log level", () => {
  it("is read from the store once per LOCAL_MS in an isolate; a level set here is seen at once, one set elsewhere within LOCAL_MS", async () => {
    const store = countingStore();
    let clock = 1_000;
    const levels = logLevelsOf(store, `k-${Math.random()}`, () => clock);
    expect(await levels.get("s1")).toBeUndefined();
    expect(await levels.get("s1")).toBeUndefined();
    expect(store.reads).toBe(1); // none set, remembered too
    await levels.set("s1", "info");
    expect(await levels.get("s1")).toBe("info");
    expect(store.reads).toBe(1);
    // Another isolate sets another level: this one sees it once its own copy is old.
    const elsewhere = logLevelsOf(store, "k-shared", () => clock);
    await elsewhere.get("s2");
    await store.set("sm:loglevel:k-shared:s2", "error");
    expect(await elsewhere.get("s2")).toBeUndefined();
    clock += LOCAL_MS + 1;
    expect(await elsewhere.get("s2")).toBe("error");
  });
});
