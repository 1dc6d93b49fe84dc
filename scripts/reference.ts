/**
 * `npm run reference`: writes the generated parts of docs/reference.md — the gateway's settings
 * (from src/gateway/config's SettingsSchema) and the error codes (from src/policies/failures) — between their
 * `<!-- generated: … -->` markers, and the admin API's OpenAPI document (scripts/admin-openapi.ts)
 * to src/admin/api/openapi.json. test/reference.test.ts and test/admin-openapi.test.ts fail when
 * either file is out of date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { SettingsSchema } from "../src/gateway/config/index.js";
import { ERROR_CODE_DOCS, failureClassOf } from "../src/policies/failures/index.js";
import { adminOpenApi } from "./admin-openapi.js";
import { ROOT } from "./mesh/bundle.js";
import { GATEWAY_SECRETS } from "./mesh/deploy-plan.js";

export const REFERENCE_PATH = join(ROOT, "docs/reference.md");
export const OPENAPI_PATH = join(ROOT, "src/admin/api/openapi.json");

/** src/admin/api/openapi.json as it should be now. */
export function generatedOpenApi(): string {
  return `${JSON.stringify(adminOpenApi(), null, 2)}\n`;
}

type Meta = { description?: string; values?: string };

/** A schema's meta, looked for through its wrappers (optional, default, pipe). */
function metaOf(schema: z.ZodType): Meta {
  const found: Meta = {};
  for (let at: z.ZodType | undefined = schema; at;) {
    Object.assign(found, { ...(at.meta() as Meta | undefined), ...found });
    const def: { innerType?: z.ZodType; out?: z.ZodType } = (at as unknown as { _zod: { def: { innerType?: z.ZodType; out?: z.ZodType } } })._zod.def;
    at = def.innerType ?? def.out;
  }
  return found;
}

/** What a setting accepts, in a few words: what its meta says, else what its JSON Schema does. */
function valuesOf(schema: z.ZodType, meta: Meta): string {
  if (meta.values) return meta.values;
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as { enum?: string[]; format?: string; minLength?: number };
  if (json.enum) return json.enum.map((v) => `\`${v}\``).join(", ");
  if (json.format === "uri") return "an http(s) URL";
  if (json.minLength && json.minLength > 1) return `${json.minLength}+ characters`;
  return "text";
}

/** The settings `npm run deploy` provisions as secrets (scripts/mesh/deploy-plan.ts): the rest are plain vars. */
const SECRETS: ReadonlySet<string> = new Set(GATEWAY_SECRETS);

const cell = (text: string) => text.replace(/\|/g, "\\|");

/** The settings table: every variable the gateway reads, what it takes, its default, what it does. */
export function settingsTable(): string {
  const defaults = SettingsSchema.parse({}) as Record<string, unknown>;
  const rows = Object.entries(SettingsSchema.shape).map(([name, schema]) => {
    const meta = metaOf(schema as z.ZodType);
    const fallback = defaults[name];
    const shown = fallback === undefined || fallback === "" ? "—" : `\`${String(fallback)}\``;
    return `| \`${name}\`${SECRETS.has(name) ? " (secret)" : ""} | ${cell(valuesOf(schema as z.ZodType, meta))} | ${shown} | ${cell(meta.description ?? "")} |`;
  });
  return ["| setting | takes | default | what it does |", "|---|---|---|---|", ...rows].join("\n");
}

/** The error table: every code, what it means, its data, and how the gateway treats it. */
export function errorTable(): string {
  const yes = (value: boolean) => (value ? "yes" : "no");
  const rows = ERROR_CODE_DOCS.map(({ code, meaning, data }) => {
    const { breaker, retry, replay } = failureClassOf(code);
    return `| ${code} | ${cell(meaning)} | ${data ?? ""} | ${yes(breaker)} | ${retry === "never" ? "no" : retry} | ${yes(replay)} |`;
  });
  return ["| code | meaning | data | counts against the breaker | retried | kept for replays |", "|---|---|---|---|---|---|", ...rows].join("\n");
}

/** `text` with the part between `<!-- generated: name -->` and `<!-- end generated -->` replaced. */
export function withGenerated(text: string, name: string, content: string): string {
  const start = `<!-- generated: ${name} (npm run reference) -->`;
  const at = text.indexOf(start);
  const end = text.indexOf("<!-- end generated -->", at);
  if (at < 0 || end < 0) throw new Error(`docs/reference.md has no ${start} … <!-- end generated --> section`);
  return `${text.slice(0, at + start.length)}\n${content}\n${text.slice(end)}`;
}

/** docs/reference.md as it should be now. */
export function generatedReference(current = readFileSync(REFERENCE_PATH, "utf8")): string {
  return withGenerated(withGenerated(current, "settings", settingsTable()), "error codes", errorTable());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  writeFileSync(REFERENCE_PATH, generatedReference());
  writeFileSync(OPENAPI_PATH, generatedOpenApi());
  console.log("docs/reference.md (settings, error codes) and src/admin/api/openapi.json are up to date");
}
