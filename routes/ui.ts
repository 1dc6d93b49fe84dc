/**
 * The rollout dashboard at `/admin/ui`: a server-rendered page of every skill and version (role,
 * weight per group, breaker, observed numbers and a chart of the last hour), the rollouts, recent
 * events and audit entries, the federated upstreams (their versions, health, tools and held
 * definition changes), and — for a write-level admin — controls that call the admin API
 * (canary weight, promote, rollback, rollout pause/resume/abort, upstream refresh and approval,
 * key revocation). Sign-in trades
 * an admin credential for a session cookie (src/admin/dashboard/session.ts). One small script (`app.js`), no
 * inline code, a strict Content-Security-Policy.
 */
import { type Context, Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import type { HtmlEscapedString } from "hono/utils/html";
import { type AuditEntry, type AuditQuery, AuditQuerySchema, type DeploymentsPageAnswer, type UpstreamHealth, utcTime } from "../src/admin/api/index.js";
import type { AuditPage } from "../src/registry/audit/index.js";
import { shownRoleOf } from "../src/registry/routing/edits.js";
import { adminOf, adminThrottled, countFailedAdmin } from "../src/identity/auth/admin.js";
import { addressIdOf } from "../src/protocols/context/index.js";
import type { Rollout } from "../src/registry/delivery/index.js";
import { type GatewayEnv, gatewayRuntime } from "../src/gateway/chain/runtime.js";
import { viewOf } from "../src/identity/keys/index.js";
import type { Observed } from "../src/registry/metrics/index.js";
import { type Deployment, UPSTREAM_KIND_WORDS, federatedWhat } from "../src/registry/deployments/model.js";
import { RETRY_AFTER_STORE_MS, routeFailureStatus } from "../src/store/index.js";
import { UI_COOKIE, UI_HEADER, UI_SESSION_MS, endSession, sessionOf, sessionTokenOf, startSession } from "../src/admin/dashboard/session.js";
import { deploymentsPage, upstreamHealthOf } from "../src/admin/operator-view/index.js";
import type { HeldChange, UpstreamView } from "../src/federation/upstream/model.js";
import { SUBJECT_WORDS, approvalKeyOf, fieldChanges, heldDefinitionOf } from "../src/federation/upstream/held.js";
import { hiddenIn, visibleText } from "../src/lib/visible/index.js";
import type { PackageRecord } from "../src/registry/packages/registry.js";
import { compareSemver } from "../src/registry/deployments/semver.js";
// The page's script and style, bundled as text (wrangler.toml [[rules]] type = "Text").
import SCRIPT from "./ui-assets/app.client.js";
import STYLES from "./ui-assets/style.css";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export const uiRoutes = new Hono<{ Bindings: GatewayEnv }>();

uiRoutes.use(
  secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      connectSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
    // Not no-referrer: with it, browsers send `Origin: null` on the sign-in form's POST.
    referrerPolicy: "same-origin",
  }),
);
uiRoutes.use(async (c, next) => {
  await next();
  c.header("cache-control", "no-store");
});

const page = (title: string, body: Html) =>
  html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title}</title>
        <link rel="icon" href="/admin/ui/icon.svg" />
        <link rel="stylesheet" href="/admin/ui/app.css" />
        <script src="/admin/ui/app.js" defer></script>
      </head>
      <body data-ui-header="${UI_HEADER}">
        ${body}
      </body>
    </html>`;

const signIn = (problem?: string) =>
  page(
    "Skillmesh — sign in",
    html`<main class="narrow">
      <h1>Skillmesh</h1>
      <form method="post" action="/admin/ui/session" class="signin">
        <label>Admin token or admin API key <input type="password" name="key" autocomplete="current-password" required /></label>
        <button type="submit">Sign in</button>
      </form>
      ${problem ? html`<p class="error">${problem}</p>` : ""}
    </main>`,
  );

// A page, not JSON, when something fails: a store that does not answer says so (503).
uiRoutes.onError((error, c) => {
  if (error instanceof HTTPException) return error.getResponse();
  const status = routeFailureStatus("[ui]", error);
  const message =
    status === 503 ?
      `The gateway's store is unavailable; reload in ${RETRY_AFTER_STORE_MS / 1000} s.`
    : "Something went wrong on the gateway; its log has the error.";
  c.header("cache-control", "no-store");
  return c.html(
    page(
      "Skillmesh — unavailable",
      html`<main class="narrow">
        <h1>Skillmesh</h1>
        <p class="error">${message}</p>
      </main>`,
    ),
    status,
  );
});

uiRoutes.get("/app.css", (c) => c.body(STYLES, 200, { "content-type": "text/css; charset=utf-8" }));
uiRoutes.get("/icon.svg", (c) => c.body(ICON, 200, { "content-type": "image/svg+xml" }));
uiRoutes.get("/app.js", (c) => c.body(SCRIPT, 200, { "content-type": "text/javascript; charset=utf-8" }));

/** Audits a sign-in or sign-out (the request's own method and path) under who made it. */
const audit = (c: Context<{ Bindings: GatewayEnv }>, by: string, status: number) =>
  gatewayRuntime(c.env).audit.record({ type: "admin", at: Date.now(), by, action: `${c.req.method} ${c.req.path}`, status }, (p) =>
    c.executionCtx.waitUntil(p),
  );

/** Sign-in: the credential is checked as the admin API checks it, then exchanged for a session. */
uiRoutes.post("/session", async (c) => {
  const runtime = gatewayRuntime(c.env);
  const address = await addressIdOf(c.req.header("cf-connecting-ip"));
  const waitMs = await adminThrottled(runtime.store, address);
  if (waitMs !== undefined)
    return c.html(signIn(`Too many failed sign-ins from this address; try again in ${Math.ceil(waitMs / 1000)} s.`), 429, {
      "retry-after": String(Math.ceil(waitMs / 1000)),
    });
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const key = typeof form.key === "string" ? form.key : "";
  // Only the credential typed in counts: the request's own headers (an address, a stray Authorization) are not it.
  const identity = await adminOf(new Headers({ authorization: `Bearer ${key}` }), runtime.config, runtime.keys);
  if (identity.level === "none") {
    await countFailedAdmin(runtime.store, address);
    audit(c, address, 401);
    return c.html(signIn("That is not an admin token or an API key with admin access."), 401);
  }
  const token = await startSession(runtime, identity);
  audit(c, identity.by, 303);
  setCookie(c, UI_COOKIE, token, {
    path: "/admin",
    httpOnly: true,
    sameSite: "Strict",
    secure: new URL(c.req.url).protocol === "https:",
    maxAge: UI_SESSION_MS / 1000,
  });
  return c.redirect("/admin/ui", 303);
});

uiRoutes.post("/logout", async (c) => {
  const runtime = gatewayRuntime(c.env);
  const token = sessionTokenOf(c);
  const session = await sessionOf(runtime, token);
  await endSession(runtime, token);
  if (session) audit(c, session.by, 303);
  deleteCookie(c, UI_COOKIE, { path: "/admin" });
  return c.redirect("/admin/ui", 303);
});

uiRoutes.get("/", async (c) => {
  const runtime = gatewayRuntime(c.env);
  const session = await sessionOf(runtime, sessionTokenOf(c));
  if (!session) return c.html(signIn());
  const canWrite = session.level === "write";
  const registry = await deploymentsPage(runtime, { limit: 100 });
  const ids = registry.deployments.slice(0, 200).map((d) => d.id);
  const auditQuery = auditQueryOf(c.req.query());
  const [history, auditPage, keys, upstreams, packages] = await Promise.all([
    runtime.metrics.history(ids),
    runtime.audit.read(auditQuery),
    runtime.keys.list(),
    runtime.upstreams.records.views(),
    runtime.packages.list(),
  ]);
  const upstreamHealth = await upstreamHealthOf(runtime.store, upstreams);
  const names = [...new Set(registry.deployments.map((d) => d.name))];
  const body = html`<header>
      <h1>Skillmesh</h1>
      <span class="who">signed in as ${session.by} (${canWrite ? "read and write" : "read only"})</span>
      <form method="post" action="/admin/ui/logout"><button type="submit">Sign out</button></form>
    </header>
    <main>
      <p class="error" id="problem" hidden></p>
      <section id="skills">
        <h2>Skills</h2>
        <div class="cards">
          ${names.map((name) =>
            skillCard(
              name,
              registry.deployments.filter((d) => d.name === name),
              registry.routes[name] ?? {},
              registry,
              history,
              registry.rollouts[name],
              canWrite,
            ),
          )}
        </div>
        ${registry.nextCursor ? html`<p>The first 100 skills are shown; the admin API pages the rest.</p>` : ""}
      </section>
      <section id="upstreams">
        <h2>Upstreams</h2>
        ${upstreamsPanel(upstreams, upstreamHealth, canWrite)}
      </section>
      <section id="packages">
        <h2>Agent Skills</h2>
        ${packagesPanel(packages, canWrite)}
      </section>
      <section id="events">
        <h2>Recent rollout events</h2>
        ${table(
          ["Time (UTC)", "Skill", "Event", "Version", "By", "Reason"],
          registry.events.slice(0, 20).map((e) => [utcTime(e.at), e.skill, e.type, e.version ?? "-", e.by, e.reason]),
        )}
      </section>
      <div class="lower">
        <section id="audit">
          <h2>Audit log</h2>
          ${auditPanel(auditQuery, auditPage)}
        </section>
        <section id="keys">
          <h2>API keys</h2>
          ${table(
            ["Name", "Id", "Skills", "Admin", "State", ...(canWrite ? [""] : [])],
            keys
              .map(viewOf)
              .map((k) => [
                k.name,
                k.id,
                k.skills.join(", ") || "-",
                k.admin ?? "-",
                k.revokedAt ? "revoked" : "active",
                ...(canWrite ? [k.revokedAt ? "" : control(`/admin/keys/${encodeURIComponent(k.id)}`, "DELETE", `Revoke ${k.name}`)] : []),
              ]),
          )}
        </section>
      </div>
    </main>`;
  return c.html(page("Skillmesh — rollouts", body));
});

type Page = DeploymentsPageAnswer;

/** Audit entries a page of the dashboard shows. */
const AUDIT_PAGE = 50;

/** The audit query's fields the page carries, each as `audit_<field>` in its URL. */
const AUDIT_FIELDS = ["type", "caller", "skill", "outcome", "cursor"] as const;

/**
 * The audit query of the page's filter form (`?audit_type=call&audit_caller=…&audit_skill=…&audit_outcome=error&audit_cursor=…`);
 * a value the admin API would refuse is left out.
 * @example auditQueryOf({ audit_type: "admin" }) // { type: "admin", limit: 50 }
 */
export function auditQueryOf(query: Record<string, string>): AuditQuery {
  const kept = AUDIT_FIELDS.flatMap((field) => {
    const value = query[`audit_${field}`];
    return value && AuditQuerySchema.shape[field].safeParse(value).success ? [[field, value]] : [];
  });
  return AuditQuerySchema.parse({ ...Object.fromEntries(kept), limit: AUDIT_PAGE });
}

/** The page's URL query for an audit query (`auditQueryOf` reads it back). */
const auditUrlQueryOf = (query: Partial<Record<(typeof AUDIT_FIELDS)[number], string | number>>) =>
  new URLSearchParams(
    AUDIT_FIELDS.flatMap((field): Array<[string, string]> => (query[field] === undefined ? [] : [[`audit_${field}`, String(query[field])]])),
  ).toString();

/** One audit row's cells. */
const auditCells = (e: AuditEntry): string[] =>
  e.type === "admin" ? [e.by, e.action, String(e.status)]
  : e.type === "egress" ? [e.deployment, `${e.method} ${e.host}`, "egress refused"]
  : [e.caller, `${e.method}${e.deployment ? ` → ${e.deployment}` : ""}`, e.code ? String(e.code) : "ok"];

/** The audit log: a filter form, entries in a row each (a run of the same who, what and outcome is one row with its count and time span), and a link to older ones. */
function auditPanel(query: AuditQuery, page: AuditPage): Html {
  const rows: Array<{ cells: string[]; newest: number; oldest: number; count: number }> = [];
  for (const entry of page.entries) {
    const cells = auditCells(entry);
    const last = rows.at(-1);
    if (last && last.cells.join("\n") === cells.join("\n")) {
      last.count++;
      last.oldest = entry.at;
    } else rows.push({ cells, newest: entry.at, oldest: entry.at, count: 1 });
  }
  const selected = (value: string | undefined, option: string) =>
    value === option ? html`<option value="${option}" selected>${option}</option>` : html`<option value="${option}">${option}</option>`;
  const older = auditUrlQueryOf({ ...query, cursor: page.nextCursor });
  return html`<form method="get" action="/admin/ui#audit" class="filter">
      <label
        >type
        <select name="audit_type">
          <option value="">any</option>
          ${selected(query.type, "call")}${selected(query.type, "admin")}${selected(query.type, "egress")}
        </select></label
      >
      <label>who <input name="audit_caller" value="${query.caller ?? ""}" size="14" /></label>
      <label>skill or action <input name="audit_skill" value="${query.skill ?? ""}" size="14" /></label>
      <label>outcome <input name="audit_outcome" value="${query.outcome ?? ""}" size="6" placeholder="ok, error, -32005" /></label>
      <button type="submit">Filter</button>
    </form>
    ${table(
      ["Time (UTC)", "Who", "What", "Outcome", ""],
      rows.map((r) => [
        r.count > 1 ? `${utcTime(r.oldest)} – ${utcTime(r.newest).slice(11)}` : utcTime(r.newest),
        ...r.cells,
        r.count > 1 ? html`<span class="count">×${r.count}</span>` : "",
      ]),
    )}
    <p class="pager">
      ${page.entries.length}
      entries${query.cursor ? html` · <a href="/admin/ui#audit">newest</a>` : ""}${page.nextCursor ? html` · <a href="/admin/ui?${older}#audit" class="older">older entries</a>` : ""}
    </p>`;
}

function skillCard(
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
function upstreamsPanel(upstreams: UpstreamView[], health: UpstreamHealth[], canWrite: boolean): Html {
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
function packagesPanel(packages: PackageRecord[], canWrite: boolean): Html {
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

/** One button that calls the admin API (app.js sends it as JSON with the dashboard's header). */
function control(api: string, method: string, label: string, fields: Record<string, string> = {}): Html {
  return html`<form data-api="${api}" data-method="${method}" class="control">
    ${Object.entries(fields).map(([field, value]) => html`<input type="hidden" name="${field}" value="${value}" />`)}<button type="submit">${label}</button>
  </form>`;
}

function table(head: string[], rows: Array<Array<string | Html>>): Html {
  if (!rows.length) return html`<p class="empty">None.</p>`;
  return html`<table>
    <thead>
      <tr>
        ${head.map((h) => html`<th>${h}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (row) =>
          html`<tr>
            ${row.map((cell) => html`<td>${cell}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;
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

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#2563eb"/></svg>`;
