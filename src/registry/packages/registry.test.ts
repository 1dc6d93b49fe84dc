import { describe, expect, it } from "vitest";
import { memoryStore } from "../../store/memory.js";
import type { Store } from "../../store/index.js";
import { Packages, type FileBucket, INDEX_TTL_MS } from "./registry.js";

const encoder = new TextEncoder();
const SKILL_MD = '---\nname: notes\ndescription: Notes.\nmetadata:\n  version: "1.0.0"\n---\nRead assets/a.txt.\n';

/** A store and a bucket that count what they are asked. */
function counted() {
  const store = memoryStore();
  const reads = { store: 0, bucket: 0 };
  const countedStore = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (["get", "mget", "zrangeByScore"].includes(String(property))) reads.store++;
        return value.apply(target, args);
      };
    },
  }) as Store;
  const objects = new Map<string, Uint8Array>();
  const bucket: FileBucket = {
    get: async (key) => {
      reads.bucket++;
      const bytes = objects.get(key);
      return bytes ? { arrayBuffer: async () => bytes.slice().buffer } : null;
    },
    put: async (key, value) => void objects.set(key, value),
  };
  return { store: countedStore, bucket, reads };
}

describe("Packages on a warm isolate", () => {
  it("reads a file with no store or bucket round trip once it has read it, and sees a change within INDEX_TTL_MS", async () => {
    let now = 1_000_000;
    const { store, bucket, reads } = counted();
    const skills = new Packages(store, { bucket, unknownTools: async () => [] }, () => now);
    await skills.register("notes", [
      { path: "SKILL.md", bytes: encoder.encode(SKILL_MD) },
      { path: "assets/a.txt", bytes: encoder.encode("a") },
    ]);
    expect(new TextDecoder().decode((await skills.file("notes", "1.0.0", "assets/a.txt"))!.bytes)).toBe("a");
    const before = { ...reads };
    for (let i = 0; i < 100; i++) await skills.file("notes", "1.0.0", "assets/a.txt");
    await skills.list();
    expect(reads).toEqual(before); // warm: neither the store nor the bucket was asked

    // Another isolate removes it: this one sees it gone once its copy is INDEX_TTL_MS old.
    await new Packages(store, { bucket, unknownTools: async () => [] }, () => now).remove("notes");
    expect(await skills.file("notes", "1.0.0", "assets/a.txt")).toBeDefined();
    now += INDEX_TTL_MS + 1;
    expect(await skills.file("notes", "1.0.0", "assets/a.txt")).toBeUndefined();
  });
});
