/**
 * One conformance suite, two drivers: `memory` and `upstash` (through scripts/redis-rest in
 * front of a real redis-server). Whatever the gateway relies on is asserted here for both.
 */
import { beforeEach, describe, expect, inject, it } from "vitest";
import { MAX_EVENTS, emptyRegistry } from "../src/registry/deployments/model.js";
import { applyRegistration } from "../src/registry/deployments/mutations.js";
import { REGISTRY_KEYS, RegistryRepository } from "../src/registry/deployments/repository.js";
import { readSkill, skillWriteArgs, writeSkill } from "../src/registry/deployments/scripts.js";
import { setCanary } from "../src/registry/routing/edits.js";
import { appendAudit, readAudit } from "../src/registry/audit/index.js";
import { OTHER_CALLERS, TallySchema, addMetrics } from "../src/registry/metrics/index.js";
import { NO_LIMIT, countCall } from "../src/policies/ratelimit/index.js";
import { compareAndSetDoc } from "../src/store/document.js";
import { JobStore } from "../src/registry/jobs/index.js";
import { completeClaim, releaseClaim, runOnce } from "../src/policies/idempotency/index.js";
import { DEFAULT_BREAKER_POLICY, claimProbe, recordOutcome, statusOf } from "../src/policies/breaker/state.js";
import { type Store, withPrefix } from "../src/store/index.js";
import type { ScriptData } from "../src/store/index.js";
import { memoryStore } from "../src/store/memory.js";
import { upstashStore } from "../src/store/upstash.js";
import type { SkillManifest } from "../src/skill/manifest.js";
import { eventually } from "./support/fixtures.js";

// Every test gets its own key prefix: other test files share this Redis.
let run = 0;
const prefix = () => `conformance:${process.pid}:${++run}:`;
const drivers: Array<[string, () => Store]> = [
  ["memory", () => memoryStore()],
  ["upstash", () => withPrefix(upstashStore({ url: inject("redisRestUrl"), token: inject("redisRestToken") }), prefix())],
];

const manifest = (name: string, version: string, extra: Partial<SkillManifest> = {}): SkillManifest => ({
  name,
  version,
  description: "d",
  tags: ["t"],
  idempotent: true,
  degraded: false,
  timeoutMs: 1000,
  inputSchema: {},
  outputSchema: {},
  ...extra,
});

describe.each(drivers)("store driver %s", (driver, make) => {
  let store: Store;
  beforeEach(() => {
    store = make();
  });

  it("keeps prefixed keys apart from the same keys unprefixed", async () => {
    const other = withPrefix(store, "other:");
    await store.set("shared", "mine");
    expect(await other.get("shared")).toBeNull();
    await other.zadd("z", [{ member: "m", score: 1 }]);
    expect(await store.zrangeByScore("z", 0, 2)).toEqual([]);
  });

  it("reports its driver and answers ping", async () => {
    expect(store.driver).toBe(driver);
    expect(await store.ping()).toBe(true);
  });

  it("gets and sets strings, null for a missing key", async () => {
    expect(await store.get("missing")).toBeNull();
    expect(await store.set("k", "v é 日本")).toBe(true);
    expect(await store.get("k")).toBe("v é 日本");
  });

  it("keeps values that look like numbers or JSON as the exact strings written", async () => {
    await store.set("n", "007");
    await store.set("j", '{"a":1}');
    expect(await store.get("n")).toBe("007");
    expect(await store.get("j")).toBe('{"a":1}');
  });

  it("set nx only writes a missing key", async () => {
    expect(await store.set("k", "first", { nx: true })).toBe(true);
    expect(await store.set("k", "second", { nx: true })).toBe(false);
    expect(await store.get("k")).toBe("first");
  });

  it("expires keys set with px", async () => {
    await store.set("k", "v", { px: 50 });
    expect(await store.get("k")).toBe("v");
    expect(
      await eventually(
        () => store.get("k"),
        (value) => value === null,
        2_000,
        10,
      ),
    ).toBeNull();
    expect(await store.set("k", "again", { nx: true })).toBe(true);
  });

  it("deletes keys and counts what was removed", async () => {
    await store.set("a", "1");
    await store.set("b", "2");
    expect(await store.del("a", "b", "c")).toBe(2);
    expect(await store.get("a")).toBeNull();
  });

  it("increments atomically under concurrency", async () => {
    await Promise.all(Array.from({ length: 50 }, () => store.incr("counter")));
    expect(await store.get("counter")).toBe("50");
  });

  it("orders a sorted set by score and ranges by score", async () => {
    await store.zadd("z", [
      { member: "c", score: 30 },
      { member: "a", score: 10 },
      { member: "b", score: 20 },
    ]);
    await store.zadd("z", [{ member: "a", score: 25 }]);
    expect(await store.zrangeByScore("z", 0, 100)).toEqual(["b", "a", "c"]);
    expect(await store.zrangeByScore("z", 21, 29)).toEqual(["a"]);
    expect(await store.zrem("z", "a", "nope")).toBe(1);
    expect(await store.zrangeByScore("z", -Infinity, Infinity)).toEqual(["b", "c"]);
  });

  it("ranges a sorted set highest first and a page at a time, ties by member as Redis orders them", async () => {
    await store.zadd("zr", [
      { member: "a", score: 1 },
      { member: "b", score: 2 },
      { member: "c", score: 2 },
      { member: "d", score: 3 },
      { member: "e", score: 4 },
    ]);
    expect(await store.zrangeByScore("zr", -Infinity, Infinity, { reverse: true })).toEqual(["e", "d", "c", "b", "a"]);
    expect(await store.zrangeByScore("zr", 2, 3, { reverse: true })).toEqual(["d", "c", "b"]);
    expect(await store.zrangeByScore("zr", -Infinity, 3, { reverse: true, page: { offset: 1, count: 2 } })).toEqual(["c", "b"]);
    expect(await store.zrangeByScore("zr", 0, Infinity, { page: { offset: 3, count: 10 } })).toEqual(["d", "e"]);
    expect(await store.zrangeByScore("zr", 0, Infinity, { reverse: true, page: { offset: 5, count: 10 } })).toEqual([]);
  });

  it("jobs: a list pages through more jobs than one batch of ids, newest first", async () => {
    const jobs = new JobStore(store, 3_600_000);
    const now = Date.now();
    for (let i = 0; i < 230; i++) {
      const createdAt = now - 230 + i;
      await jobs.create({
        id: `j_${String(i).padStart(3, "0")}`,
        owner: "k_many",
        method: "m",
        context: { caller: "k_many" },
        status: i % 2 ? "completed" : "queued",
        createdAt,
        updatedAt: createdAt,
        expiresAt: createdAt + 3_600_000,
        fingerprint: "f",
      });
    }
    const seen: string[] = [];
    let before: number | undefined;
    do {
      const page = await jobs.list("k_many", { limit: 70, ...(before === undefined ? {} : { before }) }, now);
      seen.push(...page.jobs.map((j) => j.id));
      before = page.next;
    } while (before !== undefined);
    expect(seen).toEqual(Array.from({ length: 230 }, (_, i) => `j_${String(229 - i).padStart(3, "0")}`));
    // A status filter reads on past the batches it skips.
    const queued = await jobs.list("k_many", { limit: 115, status: "queued" }, now);
    expect(queued.jobs).toHaveLength(115);
    expect(queued.jobs.at(-1)!.id).toBe("j_000");
  });

  it("runs the compare-and-set script: one winner per revision", async () => {
    const keys = ["doc", "rev"];
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => store.run(compareAndSetDoc, keys, [0, `v${i}`])));
    expect(results.filter((r) => r === 1)).toHaveLength(1);
    expect(results.filter((r) => r === -1)).toHaveLength(9);
    expect(await store.run(compareAndSetDoc, keys, [1, "next"])).toBe(2);
    expect(await store.get("doc")).toBe("next");
  });

  it("idempotency: only the claim's owner may complete or release it", async () => {
    expect(await store.set("idem", "tok-1\n{}", { nx: true, px: 10_000 })).toBe(true);
    expect(await store.run(completeClaim, ["idem"], ["tok-2", "tok-2\nx", 10_000])).toBe(false);
    expect(await store.run(releaseClaim, ["idem"], ["tok-"])).toBe(false);
    expect(await store.run(completeClaim, ["idem"], ["tok-1", "tok-1\ndone", 10_000])).toBe(true);
    expect(await store.get("idem")).toBe("tok-1\ndone");
    expect(await store.run(releaseClaim, ["idem"], ["tok-1"])).toBe(true);
    expect(await store.get("idem")).toBeNull();
    expect(await store.run(completeClaim, ["idem"], ["tok-1", "late", 10_000])).toBe(false);
  });

  it("idempotency: 20 concurrent runOnce calls execute once and agree", async () => {
    let runs = 0;
    const options = { ttlMs: 10_000, pendingTtlMs: 10_000, waitMs: 5_000, pollMs: 10 };
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        runOnce(store, "once", "fp", options, async () => {
          runs++;
          await new Promise((r) => setTimeout(r, 50));
          return { ok: true as const, result: { n: runs }, deployment: "s@1" };
        }),
      ),
    );
    expect(runs).toBe(1);
    expect(new Set(results.map((r) => JSON.stringify(r.outcome)))).toEqual(new Set([JSON.stringify({ ok: true, result: { n: 1 }, deployment: "s@1" })]));
    expect(results.filter((r) => r.replayed)).toHaveLength(19);
  });

  describe("breaker", () => {
    const policy = JSON.stringify(DEFAULT_BREAKER_POLICY);
    /** One record: `successes` since the last one, then a failure of `failedBy` ("" = none). */
    const record = (key: string, now: number, successes: number, failedBy = "", probe = "") =>
      store.run(recordOutcome, [key], [now, successes, failedBy, probe, policy]);
    const claim = (key: string, now: number, token: string, caller: string) => store.run(claimProbe, [key], [now, token, 15_000, caller]);

    it("opens on 5 failures in a row not counting the caller with most of them; a success resets the streak", async () => {
      const t = 1_000_000;
      for (let i = 0; i < 30; i++) expect((await record("b", t + i, 0, "mallory")).state).toBe("closed"); // one caller alone: never
      expect(await record("b", t + 30, 1)).toMatchObject({ state: "closed", tripped: false });
      const callers = ["a", "b", "c"];
      for (let i = 0; i < 7; i++) expect((await record("b", t + 31 + i, 0, callers[i % 3])).state, `failure ${i + 1}`).toBe("closed");
      const opened = await record("b", t + 40, 0, "b"); // a3 b3 c2: 8 in a row, 5 without a's
      expect(opened).toEqual({ state: "open", openUntil: t + 40 + 30_000, opens: 1, reason: "8 consecutive failures from 3 callers", tripped: true });
      expect(statusOf(await store.get("b"))).toMatchObject({ state: "open", openUntil: t + 40 + 30_000 });
    });

    it("opens at a 50% failure rate over at least 20 calls in the window, not counting the caller who failed most", async () => {
      const t = 2_000_000;
      // Groups of one success and four failures of distinct callers: never 5 in a row.
      const group = async (key: string, at: number, name: (i: number) => string) => {
        const statuses = [await record(key, at, 1, name(0))];
        for (let i = 1; i < 4; i++) statuses.push(await record(key, at + i, 0, name(i)));
        return statuses;
      };
      for (let g = 0; g < 4; g++) for (const status of await group("r", t + g * 10, (i) => `g${g}c${i}`)) expect(status.state).toBe("closed");
      const opened = await record("r", t + 50, 1, "last"); // 22 calls, 17 failed: 16 of 21 without one caller's
      expect(opened).toMatchObject({ state: "open", reason: "17 of 22 calls failed in 30 s", tripped: true });
      // The same traffic with every failure from one caller stays closed.
      for (let g = 0; g < 6; g++) for (const status of await group("m", t + g * 10, () => "mallory")) expect(status.state).toBe("closed");
      // Old calls leave the window: failures 31 s ago do not count.
      for (let g = 0; g < 4; g++) await group("w", t, (i) => `g${g}c${i}`);
      expect(await record("w", t + 31_000, 1, "late")).toMatchObject({ state: "closed" });
    });

    it("lets one probe through after the open period; one caller's failed probe bars only that caller, two callers' double the period", async () => {
      const t = 3_000_000;
      for (let i = 0; i < 9; i++) await record("p", t, 0, ["a", "b", "c"][i % 3]);
      expect(statusOf(await store.get("p"))).toMatchObject({ state: "open", openUntil: t + 30_000 });
      expect(await claim("p", t + 29_999, "early", "a")).toBe(false);
      const claims = await Promise.all(["w", "x", "y", "z"].map((token) => claim("p", t + 30_000, token, "mallory")));
      expect(claims.filter(Boolean)).toHaveLength(1);
      const winner = ["w", "x", "y", "z"][claims.indexOf(true)]!;
      expect(await record("p", t + 30_001, 0, "a", "not-the-probe")).toMatchObject({ state: "half-open" });
      // Mallory's probe fails: nothing reopens, Mallory may not probe for a period, Alice may at once.
      expect(await record("p", t + 30_100, 0, "mallory", winner)).toMatchObject({ state: "half-open", opens: 1, tripped: false });
      expect(await claim("p", t + 30_200, "m2", "mallory")).toBe(false);
      expect(await claim("p", t + 30_200, "a1", "alice")).toBe(true);
      // Alice's call is cut short by her own deadline: the probe is freed, nothing else changes.
      expect(await record("p", t + 30_300, 0, "", "a1")).toMatchObject({ state: "half-open", opens: 1 });
      expect(await claim("p", t + 30_400, "b1", "bob")).toBe(true);
      // Bob's probe fails too: two callers' probes, so it reopens for twice the period.
      expect(await record("p", t + 30_500, 0, "bob", "b1")).toMatchObject({ state: "open", opens: 2, openUntil: t + 30_500 + 60_000, tripped: true });
      expect(await claim("p", t + 90_500, "again", "mallory")).toBe(true); // a new open period: nobody is barred
      expect(await record("p", t + 90_600, 1, "", "again")).toMatchObject({ state: "closed", tripped: false });
    });

    it("doubles the open period on every failed probe, up to maxOpenMs (5 min)", async () => {
      const t = 5_000_000;
      for (let i = 0; i < 9; i++) await record("cap", t, 0, ["a", "b", "c"][i % 3]);
      const periods: number[] = [];
      let now = t;
      let openUntil = statusOf(await store.get("cap")).openUntil;
      for (let round = 0; round < 6; round++) {
        periods.push(openUntil - now);
        now = openUntil;
        // Two callers' probes fail: the breaker opens again for a doubled period.
        expect(await claim("cap", now, `a${round}`, "a")).toBe(true);
        await record("cap", now, 0, "a", `a${round}`);
        expect(await claim("cap", now, `b${round}`, "b")).toBe(true);
        ({ openUntil } = await record("cap", now, 0, "b", `b${round}`));
      }
      expect(periods).toEqual([30_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
    });

    it("a caller whose probe failed alone may probe again after a period", async () => {
      const t = 4_000_000;
      for (let i = 0; i < 9; i++) await record("q", t, 0, ["a", "b", "c"][i % 3]);
      expect(await claim("q", t + 30_000, "m1", "mallory")).toBe(true);
      await record("q", t + 30_000, 0, "mallory", "m1");
      expect(await claim("q", t + 59_999, "m2", "mallory")).toBe(false);
      expect(await claim("q", t + 60_000, "m3", "mallory")).toBe(true);
    });
  });

  it("rate limits: counts up to the limit of each window, then refuses without counting", async () => {
    const count = (rl: number, ql: number) => store.run(countCall, ["rl:rate", "rl:quota"], [rl, 60_000, ql, 86_400_000]);
    expect(await count(2, 3)).toEqual([1, 0, 1, 1]);
    expect(await count(2, 3)).toEqual([1, 0, 2, 2]);
    expect(await count(2, 3)).toEqual([0, 1, 2, 2]); // the rate refuses; the quota is not used up
    expect(await count(5, 3)).toEqual([1, 0, 3, 3]);
    expect(await count(5, 3)).toEqual([0, 2, 3, 3]);
    expect(await count(NO_LIMIT, NO_LIMIT)).toEqual([1, 0, 0, 0]); // no limits
    // A limit of 0 allows nothing (a suspended key), and counts nothing.
    expect(await store.run(countCall, ["rl:zero", "rl:none"], [0, 60_000, NO_LIMIT, 0])).toEqual([0, 1, 0, 0]);
    expect(await store.run(countCall, ["rl:none", "rl:zero-quota"], [NO_LIMIT, 0, 0, 86_400_000])).toEqual([0, 2, 0, 0]);
    const concurrent = await Promise.all(Array.from({ length: 20 }, () => store.run(countCall, ["rl:burst", "rl:none"], [7, 60_000, NO_LIMIT, 0])));
    expect(concurrent.filter(([allowed]) => allowed === 1)).toHaveLength(7);
  });

  it("metrics: adds a window's sums, in all and per caller, and names at most the given number of callers", async () => {
    // Latency sketches: calls in bucket 231 (~100 ms), failures also in bucket 12.
    const sums = (calls: number, errors: number) => ({ calls, errors, latency: { "231": calls, ...(errors ? { "12": errors } : {}) } });
    const add = (callers: Record<string, ReturnType<typeof sums>>) => {
      const total = Object.values(callers).reduce((t, c) => ({ calls: t.calls + c.calls, errors: t.errors + c.errors }), { calls: 0, errors: 0 });
      return JSON.stringify({ ...sums(total.calls, total.errors), callers });
    };
    await store.run(addMetrics, ["m"], [60_000, add({ k_a: sums(3, 1), k_b: sums(1, 0) }), 3]);
    await store.run(addMetrics, ["m"], [60_000, add({ k_a: sums(2, 0), k_c: sums(1, 1) }), 3]);
    // A fourth caller past the three named is added up with the others.
    expect(await store.run(addMetrics, ["m"], [60_000, add({ k_d: sums(5, 0), k_e: sums(1, 0) }), 3])).toBe(13);
    const window = TallySchema.parse(JSON.parse((await store.get("m"))!));
    expect({ calls: window.calls, errors: window.errors, latency: window.latency }).toEqual({ calls: 13, errors: 2, latency: { "231": 13, "12": 2 } });
    expect(Object.fromEntries(Object.entries(window.callers).map(([c, s]) => [c, [s.calls, s.errors, s.latency["231"], s.latency["12"]]]))).toEqual({
      k_a: [5, 1, 5, 1],
      k_b: [1, 0, 1, undefined],
      k_c: [1, 1, 1, 1],
      [OTHER_CALLERS]: [6, 0, 6, undefined],
    });
    // A window written before callers were counted reads as one with none.
    await store.set("old", JSON.stringify(sums(2, 0)));
    await store.run(addMetrics, ["old"], [60_000, JSON.stringify({ ...sums(0, 0), callers: {} }), 3]);
    expect(TallySchema.parse(JSON.parse((await store.get("old"))!))).toMatchObject({ calls: 2, latency: { "231": 2 }, callers: {} });
  });

  it("audit: appends newest first, keeps only the newest entries, counts every entry, and reads a page from a position", async () => {
    const keys = ["audit", "audit:count"];
    await store.run(appendAudit, keys, [3, "a", "b"]);
    // The count of every entry ever appended: "d" is the 4th, the newest.
    expect(await store.run(appendAudit, keys, [3, "c", "d"])).toBe(4);
    expect(await store.run(readAudit, keys, [-1, 10])).toEqual({ count: 4, lines: ["d", "c", "b"] });
    expect(await store.run(readAudit, keys, [-1, 2])).toEqual({ count: 4, lines: ["d", "c"] });
    // From position 3 ("c") on, and positions that hold while entries arrive.
    expect(await store.run(readAudit, keys, [3, 2])).toEqual({ count: 4, lines: ["c", "b"] });
    await store.run(appendAudit, keys, [3, "e"]);
    expect(await store.run(readAudit, keys, [3, 2])).toEqual({ count: 5, lines: ["c"] });
    // Past the end (trimmed), a position beyond the count, and no log at all.
    expect(await store.run(readAudit, keys, [1, 2])).toEqual({ count: 5, lines: [] });
    expect(await store.run(readAudit, keys, [99, 1])).toEqual({ count: 5, lines: ["e"] });
    expect(await store.run(readAudit, ["nothing", "nothing:count"], [-1, 2])).toEqual({ count: 0, lines: [] });
  });

  it("lists: LTRIM keeps what Redis keeps for any range, negative indexes included", async () => {
    const trimmed = {
      name: "test.ltrim",
      lua: `redis.call('DEL', KEYS[1]) redis.call('RPUSH', KEYS[1], 'a', 'b', 'c', 'd', 'e', 'f')
redis.call('LTRIM', KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])) return redis.call('LRANGE', KEYS[1], 0, -1)`,
      memory: (data: ScriptData, [key]: string[], [start, stop]: string[]) => {
        data.del(key!);
        data.lpush(key!, "f", "e", "d", "c", "b", "a");
        data.ltrim(key!, Number(start), Number(stop));
        return [data.lrange(key!, 0, -1), data.llen(key!)];
      },
      fromRedis: (reply: unknown) => reply,
    };
    // Redis's rule, on a head-first array: negative indexes count from the end, out of range clamps, empty when start > stop.
    const reference = (start: number, stop: number) => {
      const list = ["a", "b", "c", "d", "e", "f"];
      const from = Math.max(0, start < 0 ? list.length + start : start);
      const to = Math.min(list.length - 1, stop < 0 ? list.length + stop : stop);
      return from > to ? [] : list.slice(from, to + 1);
    };
    for (const [start, stop] of [
      [0, 2],
      [0, -1],
      [1, 3],
      [-2, -1],
      [2, 1],
      [0, 99],
      [4, 99],
      [-99, 0],
      [6, 9],
      [0, -7],
      [-3, 4],
    ] as const) {
      const reply = await store.run(trimmed, ["list"], [start, stop]);
      const kept = driver === "memory" ? (reply as [string[], number])[0] : reply;
      expect(kept, `LTRIM ${start} ${stop}`).toEqual(reference(start, stop));
      if (driver === "memory") expect((reply as [string[], number])[1]).toBe(reference(start, stop).length);
    }
  });

  it("jobs: move only along their statuses; a cancel that comes first is not overwritten; [] stays []", async () => {
    const jobs = new JobStore(store, 60_000);
    const now = Date.now();
    const job = {
      id: "j_1",
      owner: "k_1",
      method: "m",
      params: [],
      context: { caller: "k_1" },
      status: "queued" as const,
      createdAt: now,
      updatedAt: now,
      expiresAt: now + 60_000,
      fingerprint: "f",
    };
    expect(await jobs.create(job)).toBe(true);
    expect(await jobs.create(job)).toBe(false); // a retried submit finds it
    expect((await jobs.move("j_1", ["queued"], { status: "running" }, now + 1))?.status).toBe("running");
    expect(await jobs.move("j_1", ["queued"], { status: "running" }, now + 2)).toBeUndefined();
    expect((await jobs.move("j_1", ["queued", "running"], { status: "cancelled" }, now + 3))?.status).toBe("cancelled");
    expect(await jobs.move("j_1", ["running"], { status: "completed", result: [] }, now + 4)).toBeUndefined();
    expect(await jobs.get("j_1")).toMatchObject({ status: "cancelled", params: [], updatedAt: now + 3 });
    expect((await jobs.list("k_1", { limit: 10 }, now + 5)).jobs.map((j) => j.id)).toEqual(["j_1"]);
    expect((await jobs.list("k_2", { limit: 10 }, now + 5)).jobs).toEqual([]);
  });

  it("jobs: an owner's index keeps about a ttl of jobs, and expires a ttl after the newest", async () => {
    const ttl = 60_000;
    const jobs = new JobStore(store, ttl);
    const at = (id: string, createdAt: number) => ({
      id,
      owner: "k_9",
      method: "m",
      context: { caller: "k_9" },
      status: "queued" as const,
      createdAt,
      updatedAt: createdAt,
      expiresAt: createdAt + ttl,
      fingerprint: "f",
    });
    const now = Date.now();
    // Jobs submitted over three ttls: an index that kept every one would grow without end.
    for (const [i, createdAt] of [now - 3 * ttl, now - 2 * ttl, now - ttl - 1, now - ttl + 1_000, now].entries())
      expect(await jobs.create(at(`j_${i}`, createdAt))).toBe(true);
    const indexed = await store.zrangeByScore("sm:jobs:k_9", -Infinity, Infinity);
    expect(indexed).toEqual(["j_3", "j_4"]);
    expect((await jobs.list("k_9", { limit: 10 }, now)).jobs.map((j) => j.id)).toEqual(["j_4", "j_3"]);
    // The index itself expires: a later store holds nothing of an owner gone quiet.
    const short = new JobStore(store, 300);
    expect(await short.create({ ...at("j_short", Date.now()), owner: "k_short", context: { caller: "k_short" } })).toBe(true);
    expect(await store.zrangeByScore("sm:jobs:k_short", -Infinity, Infinity)).toEqual(["j_short"]);
    await eventually(
      () => store.zrangeByScore("sm:jobs:k_short", -Infinity, Infinity),
      (left) => left.length === 0,
      3_000,
      50,
    );
    expect(await store.zrangeByScore("sm:jobs:k_short", -Infinity, Infinity)).toEqual([]);
  });

  it("registry: concurrent registrations through compare-and-set lose no write", async () => {
    const repo = new RegistryRepository(store);
    const names = Array.from({ length: 12 }, (_, i) => `skill.n${i}`);
    await Promise.all(names.map((name) => repo.register({ manifest: manifest(name, "1.0.0"), endpoint: { binding: "X" }, registrationId: name }, Date.now())));
    const { rev, doc } = await repo.read();
    expect(Object.keys(doc.deployments).sort()).toEqual(names.map((n) => `${n}@1.0.0`).sort());
    expect(rev).toBe(12);
  });

  it("registry: heartbeat deadlines expire deployments and a poll reports them", async () => {
    const repo = new RegistryRepository(store);
    const now = Date.now();
    await repo.register({ manifest: manifest("s", "1.0.0"), endpoint: { binding: "X" }, registrationId: "r", ttlSeconds: 10 }, now);
    expect((await repo.poll(now + 5_000)).expired).toEqual([]);
    const later = await repo.poll(now + 11_000);
    expect(later.expired).toEqual(["s@1.0.0"]);
    expect(await repo.deregister(later.expired, now + 11_000)).toEqual(["s@1.0.0"]);
    expect((await repo.read()).doc.deployments).toEqual({});
    expect(await store.zrangeByScore(REGISTRY_KEYS.expiry, -Infinity, Infinity)).toEqual([]);
  });

  it("registry: 100 skills registered at once plus 10 versions of one skill, none lost, each skill written once", async () => {
    const repo = new RegistryRepository(store);
    const names = Array.from({ length: 100 }, (_, i) => `skill.p${i}`);
    const versions = Array.from({ length: 10 }, (_, i) => `1.${i}.0`);
    await Promise.all([
      ...names.map((name) => repo.register({ manifest: manifest(name, "1.0.0"), endpoint: { binding: "X" }, registrationId: name }, Date.now())),
      ...versions.map((version) =>
        repo.register({ manifest: manifest("skill.same", version), endpoint: { binding: "X" }, registrationId: version }, Date.now()),
      ),
    ]);
    const { rev, doc } = await repo.read();
    expect(Object.keys(doc.deployments).length).toBe(110);
    expect(rev).toBe(110); // one write per registration: conflicts were retried, not duplicated
    const same = Object.values(doc.deployments).filter((d) => d.name === "skill.same");
    expect(same.filter((d) => d.role === "stable").length).toBe(1);
    expect(Object.values(doc.routes["skill.same"]!["*"]!).reduce((a, b) => a + b, 0)).toBe(100);
  });

  it("registry: a poll names the skills written after a revision, and only those", async () => {
    const repo = new RegistryRepository(store);
    for (const name of ["a", "b", "c"])
      await repo.register({ manifest: manifest(name, "1.0.0"), endpoint: { binding: "X" }, registrationId: name }, Date.now());
    const { rev } = await repo.poll(Date.now());
    await repo.register({ manifest: manifest("b", "2.0.0"), endpoint: { binding: "X" }, registrationId: "b2" }, Date.now());
    await repo.deregister(["c@1.0.0"], Date.now());
    const after = await repo.poll(Date.now(), rev);
    expect(after.rev).toBe(rev + 2);
    expect(after.changed.sort()).toEqual(["b", "c"]);
    expect((await repo.poll(Date.now(), after.rev)).changed).toEqual([]);
    expect((await repo.poll(Date.now(), 0)).changed.sort()).toEqual(["a", "b", "c"]);
    const skills = await repo.readSkills(["b", "c"]);
    expect(Object.keys(skills.get("b")!.deployments).sort()).toEqual(["b@1.0.0", "b@2.0.0"]);
    expect(skills.get("c")).toBeUndefined();
  });

  it("registry: a heartbeat moves the deadline but not the revision", async () => {
    const repo = new RegistryRepository(store);
    const input = { manifest: manifest("s", "1.0.0"), endpoint: { binding: "X" }, registrationId: "r", ttlSeconds: 10 };
    const now = Date.now();
    await repo.register(input, now);
    const { rev } = await repo.poll(now);
    expect((await repo.register(input, now + 8_000)).changed).toBe(false);
    expect((await repo.poll(now + 12_000)).expired).toEqual([]); // the first deadline has passed, the new one has not
    expect((await repo.poll(now + 12_000)).rev).toBe(rev);
    expect((await repo.poll(now + 18_001)).expired).toEqual(["s@1.0.0"]);
  });

  it("registry: a sweep does not remove a deployment whose heartbeat came after it was read", async () => {
    const repo = new RegistryRepository(store);
    const now = Date.now();
    await repo.register({ manifest: manifest("s", "1.0.0"), endpoint: { binding: "X" }, registrationId: "r", ttlSeconds: 10 }, now);
    const keys = [REGISTRY_KEYS.skill("s"), REGISTRY_KEYS.rev, REGISTRY_KEYS.changes, REGISTRY_KEYS.expiry, REGISTRY_KEYS.events];
    const stored = await store.run(readSkill, [keys[0]!, REGISTRY_KEYS.changes, REGISTRY_KEYS.expiry], ["s", now + 11_000]);
    expect(stored.expired).toEqual(["s@1.0.0"]);
    // The heartbeat lands between the sweeper's read and its write (by a gateway whose clock is
    // behind: the deployment had not expired for it, so the heartbeat moved only the deadline).
    expect(
      (await repo.register({ manifest: manifest("s", "1.0.0"), endpoint: { binding: "X" }, registrationId: "r", ttlSeconds: 10 }, now + 9_000)).changed,
    ).toBe(false);
    const sweep = {
      name: "s",
      expectedVersion: stored.version,
      raw: "",
      now: now + 11_000,
      mustBeExpired: stored.expired,
      forget: stored.expired,
      deadlines: [],
      events: [],
      keepEvents: 100,
    };
    expect((await store.run(writeSkill, keys, skillWriteArgs(sweep))).version).toBe(-1);
    expect(Object.keys((await repo.read()).doc.deployments)).toEqual(["s@1.0.0"]);
  });

  it("registry: rollout events are kept newest first, at most MAX_EVENTS", async () => {
    const repo = new RegistryRepository(store);
    await repo.register({ manifest: manifest("s", "1.0.0"), endpoint: { binding: "X" }, registrationId: "1" }, 0);
    await repo.register({ manifest: manifest("s", "2.0.0"), endpoint: { binding: "X" }, registrationId: "2" }, 0);
    for (let i = 0; i <= MAX_EVENTS; i++) await repo.update("s", i, (doc) => setCanary(doc, "s", "2.0.0", { "*": i % 50 }, { now: i, by: "admin" }));
    const events = await repo.events();
    expect(events.length).toBe(MAX_EVENTS);
    expect(events[0]!.at).toBe(MAX_EVENTS);
    expect(events.at(-1)!.at).toBe(1);
  });

  it("registry: a registry stored as one document (before per-skill keys) is moved on first use, routes and events kept", async () => {
    let legacy = applyRegistration(emptyRegistry(), { manifest: manifest("s", "1.0.0"), endpoint: { binding: "X" }, registrationId: "1" }, 0).doc;
    legacy = applyRegistration(legacy, { manifest: manifest("s", "2.0.0"), endpoint: { binding: "X" }, registrationId: "2" }, 0).doc;
    legacy = applyRegistration(legacy, { manifest: manifest("t", "1.0.0"), endpoint: { binding: "Y" }, registrationId: "3" }, 0).doc;
    legacy = setCanary(legacy, "s", "2.0.0", { "*": 25 }, { now: 5, by: "admin" });
    await store.set(REGISTRY_KEYS.legacy, JSON.stringify(legacy));
    await store.set(REGISTRY_KEYS.rev, "41");
    const repo = new RegistryRepository(store);
    const { rev, doc } = await repo.read();
    expect(rev).toBe(43);
    expect(Object.keys(doc.deployments).sort()).toEqual(["s@1.0.0", "s@2.0.0", "t@1.0.0"]);
    expect(doc.routes).toEqual({ s: { "*": { "1.0.0": 75, "2.0.0": 25 } }, t: { "*": { "1.0.0": 100 } } });
    expect(doc.events.map((e) => [e.skill, e.type])).toEqual([["s", "canary"]]);
    expect(await store.get(REGISTRY_KEYS.legacy)).toBeNull();
    expect(await store.get(REGISTRY_KEYS.legacyMoved)).toBe(JSON.stringify(legacy));
    // A second repository (another isolate) finds nothing to move and changes nothing.
    expect((await new RegistryRepository(store).read()).rev).toBe(43);
  });

  it("registry: the same registration twice changes nothing, not even the revision", async () => {
    const repo = new RegistryRepository(store);
    const input = { manifest: manifest("s", "1.0.0"), endpoint: { binding: "X" }, registrationId: "same" };
    expect((await repo.register(input, 1)).changed).toBe(true);
    const before = await repo.read();
    expect((await repo.register(input, 2)).changed).toBe(false);
    expect(await repo.read()).toEqual(before);
  });
});

describe("upstash driver against a dead endpoint", () => {
  it("fails fast with an error instead of hanging", async () => {
    const store = upstashStore({ url: "http://127.0.0.1:9", token: "x", retries: 0 });
    const started = Date.now();
    await expect(store.get("k")).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
