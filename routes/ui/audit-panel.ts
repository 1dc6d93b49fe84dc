/** The dashboard's audit log: its filter form's query, and the panel of entries (src/registry/audit). */
import { html } from "hono/html";
import { type AuditEntry, type AuditQuery, AuditQuerySchema, utcTime } from "../../src/admin/api/index.js";
import type { AuditPage } from "../../src/registry/audit/index.js";

import { type Html, table } from "./parts.js";

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
export function auditPanel(query: AuditQuery, page: AuditPage): Html {
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
