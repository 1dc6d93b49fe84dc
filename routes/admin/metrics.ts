/** `/admin/metrics`: Prometheus text — the counters from the store, gauges (breakers, rollouts, upstreams) read now (src/registry/metrics/prometheus.ts). */
import { Hono } from "hono";
import { breakerStatesOf, upstreamHealthOf } from "../../src/admin/operator-view/index.js";
import { gatewayRuntime } from "../../src/gateway/chain/runtime.js";
import { renderMetrics } from "../../src/registry/metrics/prometheus.js";
import type { AdminEnv } from "./respond.js";

export const metricRoutes = new Hono<AdminEnv>();

metricRoutes.get("/", async (c) => {
  const { store, snapshot, counters, rollouts, upstreams } = gatewayRuntime(c.env);
  const deployments = (await snapshot.current()).deployments();
  const [states, stored, allRollouts, upstreamHealth] = await Promise.all([
    breakerStatesOf(store, deployments),
    counters.read(),
    rollouts.list(),
    upstreams.records.views().then((views) => upstreamHealthOf(store, views)),
  ]);
  const breakerSamples = deployments.flatMap((d, i) => {
    const { state } = states[i]!;
    return (["closed", "open", "half-open"] as const).map((s) => ({ labels: { skill: d.name, version: d.version, state: s }, value: s === state ? 1 : 0 }));
  });
  const running = Object.values(allRollouts).filter((r) => r.state === "running" || r.state === "paused");
  const text = renderMetrics(stored, [
    { name: "skillmesh_breaker_state", help: "Each deployment's circuit breaker: 1 for its current state.", samples: breakerSamples },
    {
      name: "skillmesh_rollout_step",
      help: "Running or paused rollouts: the step the canary is at (1 = the first).",
      samples: running.map((r) => ({ labels: { skill: r.skill, version: r.version, state: r.state }, value: r.step + 1 })),
    },
    {
      name: "skillmesh_rollout_weight_percent",
      help: "Running or paused rollouts: the canary's weight at its current step.",
      samples: running.map((r) => ({ labels: { skill: r.skill, version: r.version }, value: r.steps[r.step]! })),
    },
    {
      name: "skillmesh_upstream_up",
      help: "Each federated upstream version: 1 when its last refresh succeeded and none of its tools' breakers is open, else 0.",
      samples: upstreamHealth.map((u) => ({ labels: { upstream: u.upstream, version: u.version, kind: u.kind }, value: u.status === "ok" ? 1 : 0 })),
    },
    {
      name: "skillmesh_upstream_tools",
      help: "Each federated upstream version's tools: served, held for approval, or withdrawn until approved.",
      samples: upstreamHealth.flatMap((u) =>
        (["served", "held", "withdrawn"] as const).map((state) => ({
          labels: { upstream: u.upstream, version: u.version, state },
          value: state === "served" ? u.tools : u[state],
        })),
      ),
    },
    {
      name: "skillmesh_upstream_last_refresh_timestamp_seconds",
      help: "When each federated upstream version's tools were last read (its registration or a refresh), successfully or not.",
      samples: upstreamHealth.flatMap((u) => (u.lastRefresh ? [{ labels: { upstream: u.upstream, version: u.version }, value: u.lastRefresh.at / 1000 }] : [])),
    },
  ]);
  return c.text(text, 200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
});
