/** What the CLI prints: tables of skills, events, rollouts, keys and audit entries. */
import { type AuditEntry, type KeyView, utcTime } from "../../src/admin/api/index.js";
import type { BreakerStatus } from "../../src/policies/breaker/index.js";
import type { Rollout } from "../../src/registry/delivery/index.js";
import type { Observed } from "../../src/registry/metrics/index.js";
import { type Deployment, type RoutingEvent, type RoutingTable, endpointLabel } from "../../src/registry/deployments/model.js";
import { shownRoleOf } from "../../src/registry/routing/edits.js";
import { type CliIO, table } from "./io.js";

/** A breaker in a few words: "closed", "open until 03:25:10 (5 consecutive failures)". */
function describeBreaker(breaker: BreakerStatus | undefined): string {
  if (!breaker || breaker.state === "closed") return "closed";
  const until = breaker.state === "open" && breaker.openUntil > Date.now() ? ` until ${utcTime(breaker.openUntil).slice(11)}` : "";
  return `${breaker.state}${until}${breaker.reason ? ` (${breaker.reason})` : ""}`;
}

/** Observed beside declared, e.g. "12 calls, 8.3% errors (promised 1%), p95 251.3 ms (promised 300)". */
export function describeObserved(observed: Observed | undefined, declared: Deployment["manifest"]): string {
  if (!observed?.calls) return "no calls (15 min)";
  const promise = declared?.reliability;
  const errors = `${(observed.errorRate * 100).toFixed(1)}% errors${promise?.successRate !== undefined ? ` (promised ${((1 - promise.successRate) * 100).toFixed(1)}%)` : ""}`;
  const p95 = observed.p95Ms !== undefined ? `, p95 ${observed.p95Ms} ms${promise?.p95Ms !== undefined ? ` (promised ${promise.p95Ms})` : ""}` : "";
  return `${observed.calls} calls, ${errors}${p95}`;
}

/** A skill's deployments as a table: role, weight per group, breaker, observed numbers, endpoint. */
export function printSkill(
  io: CliIO,
  name: string,
  deployments: Deployment[],
  routes: RoutingTable,
  breakers: Record<string, BreakerStatus> = {},
  observed: Record<string, Observed> = {},
): void {
  const groups = Object.keys(routes).sort((a, b) =>
    a === "*" ? -1
    : b === "*" ? 1
    : a.localeCompare(b),
  );
  const cost = deployments.find((d) => d.role === "stable")?.manifest?.cost;
  io.out(cost?.perCall !== undefined ? `${name}  (${cost.perCall} ${cost.currency} a call)` : name);
  const rows = [["  VERSION", "ROLE", ...groups.map((g) => (g === "*" ? "* (default)" : g)), "BREAKER", "OBSERVED", "ENDPOINT", "REGISTERED", "TTL"]];
  const rank: Record<string, number> = { stable: 0, canary: 1, degraded: 2 };
  const stableVersion = deployments.find((d) => d.role === "stable")?.version;
  for (const d of [...deployments].sort((a, b) => (rank[a.role] ?? 3) - (rank[b.role] ?? 3) || a.version.localeCompare(b.version))) {
    const weights = groups.map((g) => (d.role === "degraded" ? "-" : `${routes[g]?.[d.version] ?? 0}%`));
    rows.push([
      `  ${d.version}`,
      shownRoleOf(d, stableVersion),
      ...weights,
      describeBreaker(breakers[d.id]),
      describeObserved(observed[d.id], d.manifest),
      endpointLabel(d.endpoint),
      utcTime(d.registeredAt),
      d.ttlSeconds ? `${d.ttlSeconds}s` : "-",
    ]);
  }
  table(rows).forEach((line) => io.out(line));
  io.out("");
}

/** The latest routing events (ten). */
export function printEvents(io: CliIO, events: RoutingEvent[]): void {
  io.out("Recent events");
  if (!events.length) return io.out("  (none)");
  table([
    ["  TIME (UTC)", "SKILL", "EVENT", "VERSION", "BY", "REASON"],
    ...events.slice(0, 10).map((e) => [`  ${utcTime(e.at)}`, e.skill, e.type, e.version ?? "-", e.by, e.reason]),
  ]).forEach((l) => io.out(l));
}

/** Where a rollout stands, why it last moved or stopped, and its latest decisions. */
export function printRollout(io: CliIO, r: Rollout): void {
  const limits = [
    `errors ≤${(r.maxErrorRate * 100).toFixed(1)}%`,
    ...(r.maxP95Ratio ? [`p95 ≤${r.maxP95Ratio}x stable`] : []),
    `≥${r.minCalls} calls a step`,
  ].join(", ");
  io.out(
    `Rollout of ${r.skill} ${r.version} (vs ${r.stable}): ${r.state}, step ${r.step + 1}/${r.steps.length} (${r.steps[r.step]}% in ${r.groups.join(",")}), steps ${r.steps.join("→")}% every ${r.everyMs / 1000} s; ${limits}`,
  );
  io.out(`  now: ${r.status}`);
  for (const event of r.history.slice(0, 5)) io.out(`  ${utcTime(event.at)}  ${event.type.padEnd(8)} ${event.reason}`);
  io.out("");
}

/** Keys as a table: grants and limits, never a secret. */
export function printKeys(io: CliIO, keys: KeyView[]): void {
  const list = (items: string[]) => (items.length ? items.join(",") : "-");
  const rows = [["ID", "NAME", "KEY", "SKILLS", "TAGS", "GROUPS", "ADMIN", "RATE", "QUOTA", "CREATED", "REVOKED"]];
  for (const k of keys) {
    rows.push([
      k.id,
      k.name,
      k.hint,
      list(k.skills),
      list(k.tags),
      list(k.groups),
      k.admin ?? "-",
      k.rate ?? "-",
      k.quota ?? "-",
      utcTime(k.createdAt),
      k.revokedAt ? utcTime(k.revokedAt) : "-",
    ]);
  }
  table(rows).forEach((line) => io.out(line));
}

/** Audit entries as a table, newest first. */
export function printAudit(io: CliIO, entries: AuditEntry[]): void {
  if (!entries.length) return io.out("(no audit entries match)");
  const rows = [["TIME (UTC)", "WHO", "WHAT", "OUTCOME", "MS", "NOTES"]];
  for (const e of entries) {
    if (e.type === "admin") rows.push([utcTime(e.at), e.by, e.action, `HTTP ${e.status}`, "-", "admin"]);
    else if (e.type === "egress") rows.push([utcTime(e.at), e.deployment, `${e.method} ${e.host}`, "refused", "-", "egress not declared"]);
    else {
      const notes = [
        e.group && `group ${e.group}`,
        e.replayed && "replayed",
        e.degraded && "degraded",
        e.hidden && "hidden from caller",
        e.args && `args ${e.args.slice(0, 12)}`,
      ]
        .filter(Boolean)
        .join(", ");
      rows.push([utcTime(e.at), e.caller, e.deployment ?? e.method, e.code === 0 ? "ok" : String(e.code), String(e.ms), notes || "-"]);
    }
  }
  table(rows).forEach((line) => io.out(line));
}
