/** The dashboard's cards and panels: a skill's card with its rollout and chart, the upstreams with their held changes, the packages. */
import { html } from "hono/html";
import { type DeploymentsPageAnswer, type UpstreamHealth, utcTime } from "../../src/admin/api/index.js";
import { shownRoleOf } from "../../src/registry/routing/edits.js";
import type { Rollout } from "../../src/registry/delivery/index.js";
import type { Observed } from "../../src/registry/metrics/index.js";
import { type Deployment, UPSTREAM_KIND_WORDS, federatedWhat } from "../../src/registry/deployments/model.js";
import type { HeldChange, UpstreamView } from "../../src/federation/upstream/model.js";
import { SUBJECT_WORDS, approvalKeyOf, fieldChanges, heldDefinitionOf } from "../../src/federation/upstream/held.js";
import { hiddenIn, visibleText } from "../../src/lib/visible/index.js";
import type { PackageRecord } from "../../src/registry/packages/registry.js";
import { compareSemver } from "../../src/registry/deployments/semver.js";

import { type Html, control, table } from "./parts.js";

type Page = DeploymentsPageAnswer;

export function skillCard(
  name: string,
  deployments: Deployment[],
  routes: Record<string, Record<string, number>>,
  registry: Page,
  history: Record<string, Array<Observed & { start: number }>>,
  rollout: Rollout | undefined,
  canWrite: boolean,
): Html {
  const groups = Object.keys(routes).sort((a, b) =>
    a === "*" ? -1
    : b === "*" ? 1
    : a.localeCompare(b),
  );
  const rank: Record<string, number> = { stable: 0, canary: 1, degraded: 2 };
  const sorted = [...deployments].sort((a, b) => (rank[a.role] ?? 3) - (rank[b.role] ?? 3) || a.version.localeCompare(b.version));
  const stableVersion = sorted.find((d) => d.role === "stable")?.version;
  const roleOf = (d: Deployment) => shownRoleOf(d, stableVersion);
  const canaries = sorted.filter((d) => roleOf(d) === "canary");
  const skillPath = `/admin/skills/${encodeURIComponent(name)}`;
  const actionOf = (d: Deployment) =>
    roleOf(d) === "canary" ? control(`${skillPath}/promote`, "POST", "Promote", { version: d.version })
    : roleOf(d) === "previous" ? control(`${skillPath}/promote`, "POST", "Make stable again", { version: d.version })
    : "";
  const pipeline = sorted.find((d) => d.pipeline);
  const federated = sorted.flatMap((d) => ("upstream" in d.endpoint ? [d.endpoint.upstream] : []))[0];
  const rows = sorted.map((d) => {
    const observed = registry.observed[d.id];
    return [
      d.version,
      roleOf(d),
      ...groups.map((g) => (d.role === "degraded" ? "-" : `${routes[g]?.[d.version] ?? 0}%`)),
      registry.breakers[d.id]?.state ?? "closed",
      observed?.calls ? `${observed.calls}` : "0",
      observed?.calls ? `${(observed.errorRate * 100).toFixed(1)}%` : "-",
      observed?.p95Ms !== undefined ? `${observed.p95Ms} ms` : "-",
      sparkline(history[d.id] ?? []),
      ...(canWrite ? [actionOf(d)] : []),
    ];
  });
  // The canary form starts at the weight the selected canary has in the group (app.js follows the selects).
  const weights = Object.fromEntries(canaries.map((d) => [d.version, Object.fromEntries(groups.map((g) => [g, routes[g]?.[d.version] ?? 0]))]));
  const firstWeight = canaries[0] ? (routes["*"]?.[canaries[0].version] ?? 0) : 0;
  return html`<article class="skill" data-skill="${name}">
    <h3>
      ${name}${pipeline ? html` <span class="badge" title="a pipeline: its steps call ${pipeline.manifest.pipeline?.steps.join(", ") ?? ""}">pipeline</span>` : ""}${federated ? html` <span class="badge" title="a tool of upstream ${federated.name}">${UPSTREAM_KIND_WORDS[federated.kind]} upstream</span>` : ""}
    </h3>
    ${pipeline?.manifest.pipeline ? html`<p class="steps">Steps call ${pipeline.manifest.pipeline.steps.join(", ")}</p>` : ""}
    ${federated ? html`<p class="steps">Federated: ${federatedWhat(federated)} of upstream ${federated.name} (see Upstreams)</p>` : ""}
    ${table(["Version", "Role", ...groups.map((g) => (g === "*" ? "* (default)" : g)), "Breaker", "Calls (15 min)", "Errors", "p95", "Last hour", ...(canWrite ? [""] : [])], rows)}
    ${rollout ? rolloutPanel(rollout, skillPath, canWrite) : ""}
    ${
      canWrite && canaries.length ?
        html`<div class="controls">
          <form data-api="${skillPath}/canary" data-method="POST" data-shape="canary" data-weights="${JSON.stringify(weights)}" class="canary">
            <label
              >Canary
              <select name="version">
                ${canaries.map((d) => html`<option value="${d.version}">${d.version}</option>`)}
              </select></label
            >
            <label>group <input name="group" value="*" size="8" required /></label>
            <label>weight <input name="weight" type="number" min="0" max="100" value="${firstWeight}" required />%</label>
            <button type="submit">Set weight</button>
          </form>
          ${control(`${skillPath}/rollback`, "POST", "Roll back every canary")}
        </div>`
      : ""
    }
  </article>`;
}

function rolloutPanel(r: Rollout, skillPath: string, canWrite: boolean): Html {
  const live = r.state === "running" || r.state === "paused";
  return html`<div class="rollout ${r.state}">
    <strong>Rollout of ${r.version}</strong>: ${r.state}, step ${r.step + 1}/${r.steps.length} (${r.steps[r.step]}% in ${r.groups.join(", ")}), steps
    ${r.steps.join(" → ")}% every ${r.everyMs / 1000} s, errors
    ≤${(r.maxErrorRate * 100).toFixed(1)}%${r.maxP95Ratio ? html`, p95 ≤${r.maxP95Ratio}× stable` : ""}.
    <span class="status">${r.status}</span>
    ${
      canWrite && live ?
        html`<div class="controls">
          ${r.state === "running" ? control(`${skillPath}/rollout/pause`, "POST", "Pause") : control(`${skillPath}/rollout/resume`, "POST", "Resume")}
          ${control(`${skillPath}/rollout/abort`, "POST", "Abort")}
        </div>`
      : ""
    }
  </div>`;
}

/**
 * The federated upstreams: one row per version (kind, where it answers, health, the tools it
 * serves), then every definition change held for approval — tools, resources, templates and
 * prompts — with every changed field in full, hidden characters (zero-width, bidi, Unicode tags)
 * made visible and flagged, and its hash; a write-level admin gets Refresh per upstream and
 * Approve per held change, which approves that hash (a change since is refused, 409).
 */
export function upstreamsPanel(upstreams: UpstreamView[], health: UpstreamHealth[], canWrite: boolean): Html {
  const healthOf = (name: string, version: string) => health.find((h) => h.upstream === name && h.version === version);
  const versions = upstreams.flatMap((u) => Object.entries(u.versions).map(([version, v]) => ({ u, version, v, h: healthOf(u.name, version) })));
  const path = (name: string) => `/admin/upstreams/${encodeURIComponent(name)}`;
  const held = versions.flatMap(({ u, version, v }) => v.held.map((change) => ({ u, version, change })));
  return html`${table(
      ["Upstream", "Kind", "Version", "URL", "Health", "Tools", "Last refresh (UTC)", ...(canWrite ? [""] : [])],
      versions.map(({ u, version, v, h }) => [
        u.name,
        u.kind,
        version,
        v.url,
        h ?
          html`<span class="health ${h.status}">${h.status}</span>${h.breakersOpen ? ` (${h.breakersOpen} breaker${h.breakersOpen > 1 ? "s" : ""} open)` : ""}`
        : "-",
        html`<span class="count">${Object.keys(v.tools).length}</span> ${Object.values(v.tools).sort().join(", ")}`,
        v.refresh ? html`${utcTime(v.refresh.at)}${v.refresh.ok ? "" : html` <span class="error">${v.refresh.error ?? "failed"}</span>`}` : "-",
        ...(canWrite ? [control(`${path(u.name)}/refresh`, "POST", `Refresh ${u.name}`)] : []),
      ]),
    )}
    <h3>Held definition changes</h3>
    ${table(
      ["Upstream", "Version", "Held", "Change", "Serving meanwhile", "What changed (in full)", "Hash", "Seen (UTC)", ...(canWrite ? [""] : [])],
      held.map(({ u, version, change }) => [
        u.name,
        version,
        `${SUBJECT_WORDS[change.subject]} ${change.name}`,
        `${change.kind}${change.breaking ? " (breaking)" : ""}`,
        change.withdrawn ? html`<span class="error">withdrawn until approved</span>`
        : change.kind === "new" ? "not served yet"
        : "the pinned definition",
        changedFields(change),
        html`<code>${change.contractHash.slice(0, 19)}…</code>`,
        utcTime(change.seenAt),
        ...(canWrite ? [approveControl(`${path(u.name)}/approve`, version, change)] : []),
      ]),
    )}`;
}

/** Every changed field of a held change, before and after in full, hidden characters shown and flagged. */
function changedFields(change: HeldChange): Html {
  const fields = fieldChanges(change.previous, heldDefinitionOf(change));
  const hidden = hiddenIn(fields.map((f) => `${f.before ?? ""}${f.after ?? ""}`).join(""));
  return html`<details class="diff" ${hidden.length ? " open" : ""}>
    <summary>
      ${hidden.length ? html`<strong class="error">hidden characters: ${hidden.map((h) => `${h.kind} ×${h.count}`).join(", ")}</strong> · ` : ""}${fields.length}
      field${fields.length === 1 ? "" : "s"}
    </summary>
    ${fields.map(
      (f) =>
        html`<div class="field">
          <code>${f.path}</code> ${f.before !== undefined ? html`<pre class="before">${visibleText(f.before)}</pre>` : ""}
          ${f.after !== undefined ? html`<pre class="after">${visibleText(f.after)}</pre>` : ""}
        </div>`,
    )}
  </details>`;
}

/**
 * The Agent Skills packages: one row per version (its role, the share of each group routed to it,
 * its files, the tools it names, when it was registered); a write-level admin gets Promote for a
 * version that is not stable and Roll back for a package with a canary.
 */
export function packagesPanel(packages: PackageRecord[], canWrite: boolean): Html {
  const rows = packages.flatMap((record) => {
    const routes = record.routes ?? { "*": { [record.stable]: 100 } };
    const path = `/admin/agent-skills/${encodeURIComponent(record.name)}`;
    const split = Object.values(routes).some((weights) => Object.entries(weights).some(([version, weight]) => version !== record.stable && weight > 0));
    return Object.entries(record.versions)
      .sort(([a], [b]) => compareSemver(b, a))
      .map(([version, v]) => [
        record.name,
        version,
        version === record.stable ? "stable"
        : Object.values(routes).some((weights) => (weights[version] ?? 0) > 0) ? "canary"
        : "canary 0%",
        Object.entries(routes)
          .map(([group, weights]) => `${group === "*" ? "* (default)" : group}: ${weights[version] ?? 0}%`)
          .join(", "),
        html`<span class="count">${v.files.length}</span> ${v.archive ? ".tar.gz" : "SKILL.md"}`,
        v.tools.join(", ") || "-",
        utcTime(v.registeredAt),
        ...(canWrite ?
          [
            html`${version !== record.stable ? control(`${path}/promote`, "POST", `Promote ${record.name} ${version}`, { version }) : ""}${version === record.stable && split ? control(`${path}/rollback`, "POST", `Roll back ${record.name}`) : ""}`,
          ]
        : []),
      ]);
  });
  return table(["Package", "Version", "Role", "Routed", "Files", "Tools", "Registered (UTC)", ...(canWrite ? [""] : [])], rows);
}

/** Approve one held change, by the hash shown: app.js sends `{version, tools: {name: hash}}` (or `offerings`). */
function approveControl(api: string, version: string, change: HeldChange): Html {
  const key = approvalKeyOf(change);
  return html`<form data-api="${api}" data-method="POST" data-shape="approve" class="control">
    <input type="hidden" name="version" value="${version}" /><input type="hidden" name="subject" value="${change.subject}" /><input
      type="hidden"
      name="key"
      value="${key}"
    /><input type="hidden" name="hash" value="${change.contractHash}" /><button type="submit">Approve ${change.name}</button>
  </form>`;
}

/** Calls per minute over the last hour as a line; minutes with failures marked. */
function sparkline(minutes: Array<Observed & { start: number }>): Html {
  const width = 120;
  const height = 24;
  const peak = Math.max(0, ...minutes.map((m) => m.calls));
  const max = Math.max(1, peak);
  const x = (i: number) => ((i / Math.max(1, minutes.length - 1)) * width).toFixed(1);
  const y = (calls: number) => (height - 2 - (calls / max) * (height - 4)).toFixed(1);
  const points = minutes.map((m, i) => `${x(i)},${y(m.calls)}`).join(" ");
  const total = minutes.reduce((sum, m) => sum + m.calls, 0);
  const failing = minutes.map((m, i) => ({ m, i })).filter(({ m }) => m.errorRate > 0);
  return html`<svg class="spark" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img">
    <title>${total} calls in the last hour (peak ${peak} a minute)</title>
    <polyline points="${points}" fill="none" stroke="#2563eb" stroke-width="1.5" />
    ${failing.map(({ m, i }) => html`<circle cx="${x(i)}" cy="${y(m.calls)}" r="2" fill="#dc2626" />`)}
  </svg>`;
}
