/** The registry's rules (pure), version order, tag discovery, and the per-isolate snapshot. */
import { describe, expect, it } from "vitest";
import type { SkillManifest } from "../../skill/manifest.js";
import { type Store, type StoreScript } from "../../store/index.js";
import { memoryStore } from "../../store/memory.js";
import { discover } from "./discovery.js";
import { emptyRegistry } from "./model.js";
import { applyRegistration, removeDeployments } from "./mutations.js";
import { RegistryRepository } from "./repository.js";
import { compareSemver } from "./semver.js";
import { RegistrySnapshot } from "./snapshot.js";

const manifest = (name: string, version: string, extra: Partial<SkillManifest> = {}): SkillManifest => ({
  name,
  version,
  description: "",
  tags: ["t"],
  idempotent: true,
  degraded: false,
  timeoutMs: 1000,
  inputSchema: {},
  outputSchema: {},
  ...extra,
});
const register = (doc = emptyRegistry(), m: SkillManifest, registrationId = `${m.name}@${m.version}`) =>
  applyRegistration(doc, { manifest: m, endpoint: { binding: "X" }, registrationId }, 0);

describe("registration rules", () => {
  it("first version stable at 100%, later ones canary at 0% in every group, degraded out of the table", () => {
    let doc = register(undefined, manifest("s", "1.0.0")).doc;
    doc.routes.s!.beta = { "1.0.0": 100 };
    doc = register(doc, manifest("s", "2.0.0")).doc;
    doc = register(doc, manifest("s", "0.1.0-lead", { degraded: true })).doc;
    expect(Object.values(doc.deployments).map((d) => [d.version, d.role])).toEqual([
      ["1.0.0", "stable"],
      ["2.0.0", "canary"],
      ["0.1.0-lead", "degraded"],
    ]);
    expect(doc.routes.s).toEqual({ "*": { "1.0.0": 100, "2.0.0": 0 }, beta: { "1.0.0": 100, "2.0.0": 0 } });
  });

  it("the same registration id changes nothing; a new one (a redeploy) keeps role and weights", () => {
    const first = register(undefined, manifest("s", "1.0.0"), "r1");
    expect(register(first.doc, manifest("s", "1.0.0"), "r1")).toMatchObject({ changed: false, doc: first.doc });
    const redeploy = register(first.doc, manifest("s", "1.0.0"), "r2");
    expect(redeploy.changed).toBe(true);
    expect(redeploy.deployment.role).toBe("stable");
    expect(redeploy.doc.routes.s).toEqual({ "*": { "1.0.0": 100 } });
  });

  it("refuses another definition under the same name@version, saying what changed, unless forced", () => {
    const first = register(
      undefined,
      manifest("s", "1.0.0", { inputSchema: { type: "object", properties: { text: { type: "string", maxLength: 100 } } } }),
      "r1",
    );
    const changed = manifest("s", "1.0.0", { description: "new", inputSchema: { type: "object", properties: { text: { type: "string", maxLength: 50 } } } });
    const refused = register(first.doc, changed, "r2");
    expect(refused).toMatchObject({ changed: false, doc: first.doc, conflict: ['description: "" → "new"', "inputSchema.properties.text.maxLength: 100 → 50"] });
    const forced = applyRegistration(first.doc, { manifest: changed, endpoint: { binding: "X" }, registrationId: "r2", force: true }, 0);
    expect(forced.changed).toBe(true);
    expect(forced.doc.deployments["s@1.0.0"]!.manifest.description).toBe("new");
    // A new version is the way: no conflict.
    expect(register(first.doc, { ...changed, version: "1.1.0" }, "r3").conflict).toBeUndefined();
  });

  it("a redeploy (every npm run deploy: a new registration id) keeps the stable stable and the canary's weights, with both registered", () => {
    let doc = register(undefined, manifest("s", "1.0.0"), "v1").doc;
    doc = register(doc, manifest("s", "2.0.0"), "v2").doc;
    doc.routes.s = { "*": { "1.0.0": 90, "2.0.0": 10 }, beta: { "1.0.0": 0, "2.0.0": 100 } };
    const stable = register(doc, manifest("s", "1.0.0"), "v1-redeploy");
    expect(stable.deployment.role).toBe("stable");
    const canary = register(stable.doc, manifest("s", "2.0.0"), "v2-redeploy");
    expect(canary.deployment.role).toBe("canary");
    expect(canary.doc.routes.s).toEqual({ "*": { "1.0.0": 90, "2.0.0": 10 }, beta: { "1.0.0": 0, "2.0.0": 100 } });
  });

  it("a version registered when only a degraded one exists becomes stable", () => {
    const doc = register(register(undefined, manifest("s", "0.1.0", { degraded: true })).doc, manifest("s", "1.0.0")).doc;
    expect(doc.deployments["s@1.0.0"]!.role).toBe("stable");
    expect(doc.routes.s).toEqual({ "*": { "1.0.0": 100 } });
  });

  it("does not change the document it was given", () => {
    const doc = register(undefined, manifest("s", "1.0.0")).doc;
    const before = structuredClone(doc);
    register(doc, manifest("s", "2.0.0"));
    removeDeployments(doc, ["s@1.0.0"]);
    expect(doc).toEqual(before);
  });
});

describe("removal rules", () => {
  const three = () => {
    let doc = register(undefined, manifest("s", "1.0.0")).doc;
    doc = register(doc, manifest("s", "2.0.0")).doc;
    doc = register(doc, manifest("s", "1.5.0")).doc;
    doc.routes.s = { "*": { "1.0.0": 60, "2.0.0": 30, "1.5.0": 10 }, beta: { "1.0.0": 0, "2.0.0": 100, "1.5.0": 0 } };
    return doc;
  };

  it("a removed canary's share returns to the stable version", () => {
    expect(removeDeployments(three(), ["s@2.0.0"]).routes.s).toEqual({ "*": { "1.0.0": 90, "1.5.0": 10 }, beta: { "1.0.0": 100, "1.5.0": 0 } });
  });

  it("removing the stable version promotes the highest remaining one, which takes the share", () => {
    const doc = removeDeployments(three(), ["s@1.0.0"]);
    expect(doc.deployments["s@2.0.0"]!.role).toBe("stable");
    expect(doc.routes.s).toEqual({ "*": { "2.0.0": 90, "1.5.0": 10 }, beta: { "2.0.0": 100, "1.5.0": 0 } });
  });

  it("removing every version drops the routing table", () => {
    expect(removeDeployments(three(), ["s@1.0.0", "s@2.0.0", "s@1.5.0"])).toEqual(emptyRegistry());
  });
});

describe("compareSemver", () => {
  it("orders by precedence, numerically, pre-releases below their release", () => {
    const sorted = ["1.10.0", "1.2.0", "2.0.0-rc.1", "2.0.0", "1.0.0-lead", "1.0.0", "2.0.0-beta.11", "2.0.0-beta.2", "1.0.0+build"].sort(compareSemver);
    expect(sorted).toEqual(["1.0.0-lead", "1.0.0", "1.0.0+build", "1.2.0", "1.10.0", "2.0.0-beta.2", "2.0.0-beta.11", "2.0.0-rc.1", "2.0.0"]);
  });
});

describe("discovery", () => {
  it("needs every pattern to match some tag of the deployment", () => {
    const doc = register(register(undefined, manifest("a", "1.0.0", { tags: ["text", "html.extract"] })).doc, manifest("b", "1.0.0", { tags: ["text"] })).doc;
    const all = Object.values(doc.deployments);
    expect(discover(all, { tags: ["text", "html.*"] }).map((d) => d.name)).toEqual(["a"]);
    expect(discover(all, { capability: "text" }).map((d) => d.name)).toEqual(["a", "b"]);
    expect(discover(all, {}).length).toBe(2);
  });
});

/** A memory store that counts calls and can be switched off. */
function instrumented(): Store & { calls: string[]; down: boolean; mgets: string[][] } {
  const inner = memoryStore();
  const state = { calls: [] as string[], down: false, mgets: [] as string[][] };
  const wrap =
    <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (state.down) throw new Error("store down");
      state.calls.push(name === "run" ? `run:${(args[0] as StoreScript<unknown>).name}` : name);
      return fn(...args);
    };
  return Object.assign(state, {
    driver: inner.driver,
    get: wrap("get", inner.get),
    mget: wrap("mget", (...keys: string[]) => (state.mgets.push(keys), inner.mget(...keys))),
    set: wrap("set", inner.set),
    del: wrap("del", inner.del),
    incr: wrap("incr", inner.incr),
    zadd: wrap("zadd", inner.zadd),
    zrem: wrap("zrem", inner.zrem),
    zrangeByScore: wrap("zrangeByScore", inner.zrangeByScore),
    run: wrap("run", inner.run) as Store["run"],
    ping: wrap("ping", inner.ping),
  });
}

/** Holds the store's script calls (the registry poll) until the returned function is called. */
function holdScripts(store: Store): () => void {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const run = store.run;
  store.run = (async (...args: Parameters<Store["run"]>) => {
    await gate;
    return run(...args);
  }) as Store["run"];
  return release;
}

describe("RegistrySnapshot", () => {
  async function setup() {
    const store = instrumented();
    const repo = new RegistryRepository(store);
    await repo.register({ manifest: manifest("s", "1.0.0"), endpoint: { binding: "X" }, registrationId: "r" }, 0);
    let now = 1_000;
    const snapshot = new RegistrySnapshot(repo, { maxAgeMs: 1_000, now: () => now, onStale: () => {} });
    store.calls.length = 0;
    return { store, repo, snapshot, tick: (ms: number) => (now += ms) };
  }

  it("reads the registry once, then serves from memory until it is maxAgeMs old", async () => {
    const { store, snapshot, tick } = await setup();
    await snapshot.current();
    expect(store.calls).toEqual(["run:registry.poll", "mget"]);
    store.calls.length = 0;
    tick(500);
    await Promise.all([snapshot.current(), snapshot.current()]);
    expect(store.calls).toEqual([]);
  });

  it("revalidates with one poll, and reloads only when the revision moved", async () => {
    const { store, repo, snapshot, tick } = await setup();
    await snapshot.current();
    store.calls.length = 0;
    tick(1_000);
    await Promise.all([snapshot.current(), snapshot.current(), snapshot.current()]);
    expect(store.calls).toEqual(["run:registry.poll"]);
    await repo.register({ manifest: manifest("s", "2.0.0"), endpoint: { binding: "X" }, registrationId: "r2" }, 0);
    store.calls.length = 0;
    tick(1_000);
    const view = await snapshot.current();
    expect(store.calls).toEqual(["run:registry.poll", "mget"]);
    expect(view.tools.get("s")!.versions.map((d) => d.version)).toEqual(["2.0.0", "1.0.0"]);
  });

  it("after a change reads only the skills written since its revision; a removed skill leaves the view", async () => {
    const { store, repo, snapshot, tick } = await setup();
    for (let i = 0; i < 20; i++) await repo.register({ manifest: manifest(`m${i}`, "1.0.0"), endpoint: { binding: "X" }, registrationId: "r" }, 0);
    tick(1_000);
    await snapshot.current();
    store.mgets.length = 0;
    await repo.register({ manifest: manifest("m3", "2.0.0"), endpoint: { binding: "X" }, registrationId: "r2" }, 0);
    await repo.deregister(["m7@1.0.0"], 0);
    tick(1_000);
    const view = await snapshot.current();
    expect(store.mgets.map((keys) => keys.sort())).toEqual([["sm:registry:skill:m3", "sm:registry:skill:m7"]]);
    expect(view.tools.has("m7")).toBe(false);
    expect(view.names).toEqual(["s", ...Array.from({ length: 20 }, (_, i) => `m${i}`).filter((n) => n !== "m7")].sort());
    expect(view.tools.get("m3")!.versions.map((d) => d.version)).toEqual(["2.0.0", "1.0.0"]);
  });

  it("updated change by change, equals a view loaded from scratch (300 random changes)", async () => {
    const { repo, snapshot, tick } = await setup();
    let seed = 11;
    const random = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    let now = tick(0);
    for (let step = 0; step < 300; step++) {
      const name = `k${random(12)}`;
      const version = `1.${random(4)}.0`;
      const op = random(5);
      if (op < 2) await repo.register({ manifest: manifest(name, version), endpoint: { binding: "X" }, registrationId: `${step}` }, now);
      else if (op === 2)
        await repo.register({ manifest: manifest(name, version, { degraded: true }), endpoint: { binding: "X" }, registrationId: `${step}` }, now);
      else if (op === 3) await repo.register({ manifest: manifest(name, version), endpoint: { binding: "X" }, registrationId: `${step}`, ttlSeconds: 5 }, now);
      else await repo.deregister([`${name}@${version}`], now);
      now = tick(1_000 + random(3) * 1_000);
      if (step % 10) continue;
      const incremental = await snapshot.current();
      const fresh = await new RegistrySnapshot(repo, { now: () => now }).current();
      expect(incremental.names).toEqual(fresh.names);
      expect(Object.fromEntries(incremental.tools)).toEqual(Object.fromEntries(fresh.tools));
    }
  });

  it("lets other callers keep the current view while one polls: a Worker request never awaits another's I/O", async () => {
    const { store, snapshot, tick } = await setup();
    const before = await snapshot.current();
    tick(1_000);
    const release = holdScripts(store);
    const polling = snapshot.current();
    // Answered while the poll is still held at the gate.
    expect(await snapshot.current()).toBe(before);
    release();
    await polling;
  });

  it("after this isolate's own write, no caller gets the old view, even while another polls", async () => {
    const { store, repo, snapshot, tick } = await setup();
    await snapshot.current();
    const run = store.run;
    tick(1_000);
    const release = holdScripts(store);
    const slowPoll = snapshot.current(); // began before the write
    store.run = run;
    await repo.register({ manifest: manifest("s", "2.0.0"), endpoint: { binding: "X" }, registrationId: "r2" }, 0);
    snapshot.invalidate();
    expect((await snapshot.current()).tools.get("s")!.versions.map((d) => d.version)).toEqual(["2.0.0", "1.0.0"]);
    release();
    await slowPoll;
  });

  it("after this isolate's own write, concurrent callers share the poll begun since instead of each loading the change", async () => {
    const { store, repo, snapshot } = await setup();
    await snapshot.current();
    await repo.register({ manifest: manifest("s", "2.0.0"), endpoint: { binding: "X" }, registrationId: "r2" }, 0);
    snapshot.invalidate();
    store.calls.length = 0;
    const release = holdScripts(store);
    const first = snapshot.current(); // polls (held at the gate)
    const others = Promise.all(Array.from({ length: 5 }, () => snapshot.current()));
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    for (const view of [await first, ...(await others)]) expect(view.tools.get("s")!.versions.map((d) => d.version)).toEqual(["2.0.0", "1.0.0"]);
    expect(store.calls).toEqual(["run:registry.poll", "mget"]);
  });

  it("on a new isolate, a burst of callers shares the first one's load of the registry", async () => {
    const { store, repo } = await setup();
    const snapshot = new RegistrySnapshot(repo, { onStale: () => {} });
    const release = holdScripts(store);
    const views = Promise.all(Array.from({ length: 6 }, () => snapshot.current()));
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    for (const view of await views) expect(view.tools.has("s")).toBe(true);
    expect(store.calls).toEqual(["run:registry.poll", "mget"]);
  });

  it("on a new isolate with the store down, every caller of the burst gets the first one's error", async () => {
    const { store, repo } = await setup();
    const snapshot = new RegistrySnapshot(repo, { onStale: () => {} });
    store.down = true;
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => snapshot.current()));
    expect(outcomes.map((o) => o.status === "rejected" && String(o.reason))).toEqual(Array(4).fill("Error: store down"));
  });

  it("on a new isolate, reads the one skill a call needs and loads the whole view beside it", async () => {
    const { store, repo, tick } = await setup();
    await repo.register({ manifest: manifest("t", "1.0.0"), endpoint: { binding: "X" }, registrationId: "t", ttlSeconds: 10 }, tick(0));
    await repo.register({ manifest: manifest("t", "2.0.0"), endpoint: { binding: "X" }, registrationId: "t2" }, tick(0));
    tick(10_001); // t@1.0.0's heartbeat deadline has passed: hidden, not yet swept
    const snapshot = new RegistrySnapshot(repo, { now: () => tick(0), onStale: () => {} });
    store.calls.length = 0;
    const loading: Array<Promise<unknown>> = [];
    const entry = await snapshot.entry("t", (p) => loading.push(p));
    expect(entry!.versions.map((d) => d.version)).toEqual(["2.0.0"]);
    expect(await snapshot.entry("not a skill name!", (p) => loading.push(p))).toBeUndefined();
    await Promise.all(loading);
    expect(snapshot.loaded).toBe(true);
    expect(store.calls.filter((c) => c === "run:registry.readSkill")).toHaveLength(1); // the name that cannot exist reads nothing
    expect(store.calls.filter((c) => c === "run:registry.poll")).toHaveLength(1); // one load for both calls
    store.calls.length = 0;
    expect((await snapshot.entry("s", () => expect.unreachable()))!.name).toBe("s");
    expect(store.calls).toEqual([]); // from the view now
  });

  it("does not wait forever for a poll whose request never came back: past 5 s the next call polls", async () => {
    const { store, repo, snapshot, tick } = await setup();
    const before = await snapshot.current();
    const run = store.run;
    tick(1_000);
    holdScripts(store); // never released: that request was cancelled mid-poll
    void snapshot.current();
    store.run = run;
    await repo.register({ manifest: manifest("s", "2.0.0"), endpoint: { binding: "X" }, registrationId: "r2" }, 0);
    expect(await snapshot.current()).toBe(before); // the stuck poll counts as under way for now
    tick(5_001);
    expect((await snapshot.current()).tools.get("s")!.versions.map((d) => d.version)).toEqual(["2.0.0", "1.0.0"]);
  });

  it("keeps serving the last snapshot while the store is down, and throws only with none", async () => {
    const { store, snapshot, tick } = await setup();
    const before = await snapshot.current();
    store.down = true;
    tick(5_000);
    expect(await snapshot.current()).toBe(before);
    const fresh = new RegistrySnapshot(new RegistryRepository(store));
    await expect(fresh.current()).rejects.toThrow("store down");
  });

  it("hides deployments whose heartbeat deadline passed, before anyone sweeps them", async () => {
    const { repo, snapshot, tick } = await setup();
    await repo.register({ manifest: manifest("t", "1.0.0"), endpoint: { binding: "X" }, registrationId: "t", ttlSeconds: 10 }, 1_000);
    expect((await snapshot.current()).tools.has("t")).toBe(true);
    tick(10_001);
    expect((await snapshot.current()).tools.has("t")).toBe(false);
  });
});

describe("contracts", () => {
  it("hash the same definition the same whatever its key order, and another definition differently", async () => {
    const { contractHashOf } = await import("./contract.js");
    const a = manifest("s", "1.0.0", { inputSchema: { type: "object", properties: { a: { type: "string" }, b: { type: "number" } } } });
    const reordered = JSON.parse(
      JSON.stringify({ ...a, inputSchema: { properties: { b: { type: "number" }, a: { type: "string" } }, type: "object" } }),
    ) as SkillManifest;
    expect(await contractHashOf(reordered)).toBe(await contractHashOf(a));
    expect(await contractHashOf(a)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await contractHashOf({ ...a, description: "other" })).not.toBe(await contractHashOf(a));
  });
});
