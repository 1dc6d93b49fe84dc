/**
 * `GET /admin/metrics` as Prometheus reads it: the text parsed by a Prometheus text-format parser
 * (`parse-prometheus-text-format`), its counts matching the calls made — on both store drivers
 * (the counters are a Lua script on Redis and its twin in memory).
 */
import { spawnSync } from "node:child_process";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

interface Family {
  name: string;
  type: string;
  metrics: Array<{ labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string; sum?: string }>;
}

describe.each([
  ["memory", undefined],
  ["upstash", () => ({ url: inject("redisRestUrl"), token: inject("redisRestToken") })],
] as const)("/admin/metrics on the %s store", (driver, upstash) => {
  let mesh: Mesh;
  let key: string;
  let limitedKey: string;
  beforeAll(async () => {
    mesh = await startMesh({
      skills: ["flaky-v1", "flaky-v2"].map(fixture),
      adminToken: ADMIN_TOKEN,
      upstash: upstash?.(),
      gatewayVars: { SKILLMESH_AUTH: "required", SKILLMESH_STORE_PREFIX: `metrics-${process.pid}-${driver}:` },
    });
    key = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "scraper-test", skills: ["*"] })).json.key;
    limitedKey = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "limited", skills: ["*"], rate: "1/h" })).json.key;
  });
  afterAll(() => mesh?.dispose());

  const call = (method: string, params: unknown, headers: Record<string, string> = {}) => wireOf(mesh.gatewayUrl).rpc(method, params, { key, headers });
  let text = "";
  const scrape = async () => {
    const response = await fetch(`${mesh.gatewayUrl}/admin/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    text = await response.text();
    return parsePrometheusTextFormat(text) as Family[];
  };
  const sample = (families: Family[], name: string, labels: Record<string, string>) =>
    families.find((f) => f.name === name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));

  it("counts calls by skill, version, outcome and code; latency; replays; rate limits; refusals; breakers and rollouts", async () => {
    for (let i = 0; i < 3; i++) expect((await call("test.flaky", { value: `v${i}` })).json.result).toBeDefined();
    expect((await call("test.flaky", {})).json.error.code).toBe(-32602);
    for (let i = 0; i < 2; i++) expect((await call(`no.such.skill.${i}`, {})).json.error.code).toBe(-32601);
    // The same Idempotency-Key twice: the second is a replay.
    for (let i = 0; i < 2; i++) await call("test.flaky", { value: "once" }, { "idempotency-key": "order-1" });
    // A key allowed one call an hour: its second is rate-limited.
    for (let i = 0; i < 2; i++) await call("test.flaky", { value: "x" }, { authorization: `Bearer ${limitedKey}` });
    // No credential: refused.
    expect((await post(`${mesh.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "test.flaky", params: { value: "x" }, id: 1 })).status).toBe(401);
    // A rollout in progress.
    expect(
      (await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/rollout", { version: "2.0.0", steps: [5, 100], every: "1h", maxErrorRate: "1%" })).status,
    ).toBe(200);

    // Counters land about a second after the calls.
    const families = await eventually(
      scrape,
      (f) =>
        Number(sample(f, "skillmesh_refused_total", { status: "401" })?.value ?? 0) >= 1 &&
        Number(sample(f, "skillmesh_calls_total", { skill: "test.flaky", outcome: "ok", code: "0" })?.value ?? 0) >= 6,
      10_000,
      200,
    );

    // 3 plain calls, 2 with the key (one of them replayed), 1 before the limit: 6 results from 1.0.0.
    expect(sample(families, "skillmesh_calls_total", { skill: "test.flaky", version: "1.0.0", outcome: "ok", code: "0" })?.value).toBe("6");
    expect(sample(families, "skillmesh_calls_total", { skill: "test.flaky", outcome: "error", code: "-32602" })?.value).toBe("1");
    // Unknown methods are one series, whatever their names.
    expect(sample(families, "skillmesh_calls_total", { skill: "(unknown)", version: "", outcome: "error", code: "-32601" })?.value).toBe("2");
    expect(sample(families, "skillmesh_calls_total", { skill: "test.flaky", code: "-32005" })?.value).toBe("1");
    expect(sample(families, "skillmesh_rate_limited_total", {})?.value).toBe("1");
    expect(sample(families, "skillmesh_replays_total", { skill: "test.flaky" })?.value).toBe("1");
    expect(sample(families, "skillmesh_refused_total", { status: "401" })?.value).toBe("1");

    // The parser reads the histogram's type and buckets, but merges labelled series (its known
    // limit): the per-series count is read from the text's own line.
    // Durations in seconds, Prometheus' base unit.
    const histogram = families.find((f) => f.name === "skillmesh_call_duration_seconds")!;
    expect(histogram.type).toBe("HISTOGRAM");
    // (The parser's buckets are an object: integer-like keys come first, so compare sorted.)
    expect(Object.keys(histogram.metrics[0]!.buckets!).sort()).toEqual(
      ["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "30", "60", "+Inf"].sort(),
    );
    const line = (name: string) =>
      Number(text.match(new RegExp(`^${name}\\{skill="test\\.flaky",version="1\\.0\\.0"(?:,le="\\+Inf")?\\} ([\\d.e+-]+)$`, "m"))?.[1]);
    expect(line("skillmesh_call_duration_seconds_count")).toBe(6 + 1); // the results and the -32602 its skill answered
    expect(line("skillmesh_call_duration_seconds_bucket")).toBe(line("skillmesh_call_duration_seconds_count"));
    // The fixture answers within milliseconds: under a second a call (a sum in ms would not be).
    expect(line("skillmesh_call_duration_seconds_sum")).toBeLessThan(7);

    // Prometheus' own linter accepts the scrape (names, units, help, types).
    const lint = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
    expect(lint.error, "promtool is Debian's prometheus package (.ci/run installs it)").toBeUndefined();
    expect(`${lint.stdout}${lint.stderr}`).toBe("");
    expect(lint.status).toBe(0);

    expect(sample(families, "skillmesh_breaker_state", { skill: "test.flaky", version: "1.0.0", state: "closed" })?.value).toBe("1");
    expect(sample(families, "skillmesh_breaker_state", { skill: "test.flaky", version: "1.0.0", state: "open" })?.value).toBe("0");
    expect(sample(families, "skillmesh_rollout_step", { skill: "test.flaky", version: "2.0.0", state: "running" })?.value).toBe("1");
    expect(sample(families, "skillmesh_rollout_weight_percent", { skill: "test.flaky", version: "2.0.0" })?.value).toBe("5");
  }, 60_000);

  it("needs an admin key", async () => {
    expect((await fetch(`${mesh.gatewayUrl}/admin/metrics`)).status).toBe(401);
    // A caller's key is no admin key.
    expect([401, 403]).toContain((await fetch(`${mesh.gatewayUrl}/admin/metrics`, { headers: { authorization: `Bearer ${key}` } })).status);
  });
});
