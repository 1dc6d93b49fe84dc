/** The dashboard's smallest parts: what a card renders to, a table, and a button that calls the admin API. */
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/** What a card renders to. */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** One button that calls the admin API (app.js sends it as JSON with the dashboard's header). */
export function control(api: string, method: string, label: string, fields: Record<string, string> = {}): Html {
  return html`<form data-api="${api}" data-method="${method}" class="control">
    ${Object.entries(fields).map(([field, value]) => html`<input type="hidden" name="${field}" value="${value}" />`)}<button type="submit">${label}</button>
  </form>`;
}

export function table(head: string[], rows: Array<Array<string | Html>>): Html {
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
