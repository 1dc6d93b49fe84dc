/**
 * The dashboard's pages (routes/ui/index.ts serves them): the frame every page shares, the sign-in
 * form, the page of an error, and the dashboard itself, made of the cards of cards.ts.
 */
import type { ApiKey } from "../../src/identity/keys/index.js";
import { auditPanel } from "./audit-panel.js";
import { packagesPanel, skillCard, upstreamsPanel } from "./cards.js";
import { type Html, control, table } from "./parts.js";
import { html } from "hono/html";
import { type AuditQuery, type DeploymentsPageAnswer, type UpstreamHealth, utcTime } from "../../src/admin/api/index.js";
import type { AuditPage } from "../../src/registry/audit/index.js";
import { viewOf } from "../../src/identity/keys/index.js";
import type { Observed } from "../../src/registry/metrics/index.js";
import { UI_HEADER } from "../../src/admin/dashboard/session.js";
import type { UpstreamView } from "../../src/federation/upstream/model.js";
import type { PackageRecord } from "../../src/registry/packages/registry.js";

/** What the dashboard shows, read by its route. */
export interface DashboardData {
  session: { by: string; level: string };
  registry: DeploymentsPageAnswer;
  history: Record<string, Array<Observed & { start: number }>>;
  auditQuery: AuditQuery;
  auditPage: AuditPage;
  keys: ApiKey[];
  upstreams: UpstreamView[];
  upstreamHealth: UpstreamHealth[];
  packages: PackageRecord[];
}

/** The frame of every page: its script and style, and the header app.js sends changes with. */
export const page = (title: string, body: Html) =>
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

/** The sign-in form, with what went wrong the last time. */
export const signIn = (problem?: string) =>
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

/** The page of a failure: what went wrong, in a sentence. */
export const unavailablePage = (message: string) =>
  page(
    "Skillmesh — unavailable",
    html`<main class="narrow">
      <h1>Skillmesh</h1>
      <p class="error">${message}</p>
    </main>`,
  );

/** The dashboard: skills, upstreams, packages, rollout events, the audit log and the keys. */
export function dashboardPage({ session, registry, history, auditQuery, auditPage, keys, upstreams, upstreamHealth, packages }: DashboardData): Html {
  const canWrite = session.level === "write";
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
  return page("Skillmesh — rollouts", body);
}

/** The dashboard's icon. */
export const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#2563eb"/></svg>`;
