/**
 * What an operator looks at, read from the gateway's runtime: a page of the registry with its
 * breakers, observed numbers, rollouts and events, and one skill's view. The admin API answers
 * them (routes/admin/) and the dashboard renders them (routes/ui/); their wire formats are
 * `DeploymentsPageAnswerSchema` and `SkillAnswerSchema` (src/admin/api).
 */
import type { DeploymentsPageAnswer, SkillAnswer, UpstreamHealth } from "../api/index.js";
import { type BreakerStatus, breakerKey, statusOf } from "../../policies/breaker/index.js";
import type { GatewayRuntime } from "../../gateway/chain/runtime.js";
import { own } from "../../lib/json/index.js";
import type { MetricsBoard } from "../../registry/metrics/index.js";
import { type Deployment, deploymentId } from "../../registry/deployments/model.js";
import { type Store, mgetInBatches } from "../../store/index.js";
import type { UpstreamView } from "../../federation/upstream/model.js";

/**
 * Every deployment's breaker status, in the deployments' order (read in batches: a registry may hold thousands).
 * @example const [status] = await breakerStatesOf(runtime.store, [deployment])
 */
export async function breakerStatesOf(store: Store, deployments: Deployment[]): Promise<BreakerStatus[]> {
  const stored = await mgetInBatches(
    store,
    deployments.map((d) => breakerKey(d.id)),
  );
  return deployments.map((_, i) => statusOf(stored[i] ?? null));
}

/** Each deployment's observed numbers, by deployment id. */
function observedOf(metrics: MetricsBoard, deployments: Deployment[]) {
  return metrics.observed(Object.fromEntries(deployments.map((d) => [d.id, [d.id]])));
}

/**
 * A page of the registry: `limit` skills after `cursor` (a skill name, the `nextCursor` of the
 * page before), with their deployments, routing tables, breakers, observed numbers and rollouts,
 * and the recent routing events.
 * @example const page = await deploymentsPage(gatewayRuntime(env), { limit: 500 })
 */
export async function deploymentsPage(runtime: GatewayRuntime, query: { limit: number; cursor?: string }): Promise<DeploymentsPageAnswer> {
  const { store, registry, metrics, rollouts: rolloutBoard } = runtime;
  const [{ rev, doc, next }, { expired }] = await Promise.all([registry.read({ after: query.cursor, limit: query.limit }), registry.poll(Date.now())]);
  const deployments = Object.values(doc.deployments)
    .filter((d) => !expired.includes(d.id))
    .sort((a, b) => a.id.localeCompare(b.id));
  const onPage = new Set(deployments.map((d) => d.name));
  const routes = Object.fromEntries(Object.entries(doc.routes).filter(([name]) => onPage.has(name)));
  const [states, observed, allRollouts] = await Promise.all([breakerStatesOf(store, deployments), observedOf(metrics, deployments), rolloutBoard.list()]);
  const breakers = Object.fromEntries(deployments.map((d, i) => [d.id, states[i]!]));
  const rollouts = Object.fromEntries(Object.entries(allRollouts).filter(([skill]) => onPage.has(skill)));
  return { revision: rev, deployments, routes, breakers, observed, rollouts, events: doc.events, ...(next !== undefined ? { nextCursor: next } : {}) };
}

/**
 * One skill: its deployments, routing table, observed numbers, events and rollout; undefined
 * when nothing of it is registered.
 * @example const view = await skillView(gatewayRuntime(env), "text.summarize")
 */
export async function skillView(runtime: GatewayRuntime, skill: string): Promise<SkillAnswer | undefined> {
  const { registry, metrics, rollouts: rolloutBoard } = runtime;
  const [doc, events] = await Promise.all([registry.readSkill(skill, Date.now()), registry.events()]);
  const deployments = Object.values(doc.deployments).sort((a, b) => a.id.localeCompare(b.id));
  if (!deployments.length) return undefined;
  const [observed, rollouts] = await Promise.all([observedOf(metrics, deployments), rolloutBoard.list()]);
  const rollout = own(rollouts, skill);
  return {
    skill,
    deployments,
    routes: own(doc.routes, skill) ?? {},
    observed,
    events: events.filter((e) => e.skill === skill),
    ...(rollout ? { rollout } : {}),
  };
}

/**
 * Each version of each upstream: what it serves, holds and withdrew, its last refresh, and how
 * many of its tools' breakers are open — `failing` when either went wrong. What `/healthz` tells
 * an admin and the metrics export.
 * @example const [everything] = await upstreamHealthOf(runtime.store, await runtime.upstreams.records.views())
 */
export async function upstreamHealthOf(store: Store, records: UpstreamView[]): Promise<UpstreamHealth[]> {
  const versions = records.flatMap((record) => Object.entries(record.versions).map(([version, v]) => ({ record, version, v })));
  const ids = versions.map(({ version, v }) => Object.values(v.tools).map((skill) => deploymentId(skill, version)));
  const stored = await mgetInBatches(store, ids.flat().map(breakerKey));
  let offset = 0;
  return versions.map(({ record, version, v }, i) => {
    const mine = stored.slice(offset, (offset += ids[i]!.length));
    const breakersOpen = mine.filter((raw) => statusOf(raw ?? null).state !== "closed").length;
    const withdrawn = v.held.filter((h) => h.withdrawn).length;
    const tools = v.held.filter((h) => h.subject === "tool");
    const failing = breakersOpen > 0 || v.refresh?.ok === false;
    return {
      upstream: record.name,
      version,
      kind: record.kind,
      status: failing ? "failing" : "ok",
      tools: Object.keys(v.tools).length - tools.filter((h) => h.withdrawn && h.kind === "changed").length,
      held: v.held.length - withdrawn,
      withdrawn,
      breakersOpen,
      ...(v.refresh ? { lastRefresh: v.refresh } : {}),
    };
  });
}
