/**
 * `skillmesh` — the rollout CLI. It talks to a gateway's admin API:
 *   SKILLMESH_URL (default http://127.0.0.1:8787) and SKILLMESH_ADMIN_TOKEN.
 *
 *   skillmesh status [skill]
 *   skillmesh canary <skill> <version> --group beta=100 --group vip=20 --group '*'=5
 *   skillmesh promote <skill> <version>
 *   skillmesh rollback <skill> [--version <canary>] [--reason "..."]
 *   skillmesh rollout <skill> <version> --steps 5,25,50,100 --every 5m --max-error-rate 1% …
 *   skillmesh rollout <skill> pause|resume|abort
 *   skillmesh keys create|list|update|revoke …
 *   skillmesh audit [--caller] [--skill] [--outcome] [--type] [--since] [--limit]
 *   skillmesh hop-key                     a key pair for signed hops (prints both keys; needs no gateway)
 *   skillmesh new <name> [--version 1.0.0] [--tags <tag> …] [--idempotent]   (scripts/cli/new-skill.ts)
 */
import { relative } from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";
import type { z } from "zod";
import {
  type AuditEntry,
  AuditListSchema,
  AuditQuerySchema,
  KeyCreateRequestSchema,
  KeyCreatedSchema,
  KeyListSchema,
  KeyUpdateRequestSchema,
  type KeyView,
  KeyViewSchema,
  RolloutAnswerSchema,
  RolloutCommandSchema,
  RolloutRequestSchema,
  utcTime,
} from "../../src/admin-api/index.js";
import type { Rollout } from "../../src/delivery/index.js";
import { shownRoleOf } from "../../src/routing/edits.js";
import { valueAt } from "../../src/json/index.js";

const USAGE = `usage: skillmesh <command>
  new <name> [--version <v>] [--tags <tag> …] [--idempotent]
                                                   create skills/<name>/ (handler, test, wrangler.toml, README)
  status [skill]                                   deployments, weights per group, breakers, recent events
  canary <skill> <version> --group <g>=<pct> ...   give a canary a share per group (stable takes the rest)
  promote <skill> <version>                        make a version stable at 100% everywhere
  rollback <skill> [--version <v>] [--reason <r>]  send every group (or one canary's share) back to stable
  rollout <skill> <version> --steps 5,25,50,100 --every 5m --max-error-rate 1%
          [--max-p95-ratio 1.5] [--min-calls 20] [--groups <group> …]
                                                   raise a canary step by step while it stays healthy
  rollout <skill> pause|resume|abort [--reason <r>]
  keys create --name <n> [grants]                  issue an API key (printed once)
  keys list                                        every key: grants, limits, revoked or not
  keys update <id|name> [grants] [--new-name <n>]  change a key's grants (none clears --admin/--rate/--quota)
  keys revoke <id|name>                            stop a key everywhere within about a second
    grants: --skills <glob> … --tags <glob> … --groups <group> … --admin read|write
            --rate <n>/<s|min|h|day> --quota <n>/<day|month>
  contracts check                                  compare the skills with contracts/ (npm run contracts writes them)
  sessions end                                     sign every dashboard session out (after a credential leaked)
  hop-key                                          a new key pair for signed hops (SKILLMESH_HOP_KEY, SKILLMESH_HOP_PUBLIC_KEY)
  audit [--caller <id>] [--skill <name>] [--outcome ok|error|<code>] [--type call|admin]
        [--since <ISO date|ms>] [--limit <n>] [--cursor <c>]
                                                   the audit log, newest first, a page at a time
env: SKILLMESH_URL (default http://127.0.0.1:8787), SKILLMESH_ADMIN_TOKEN`;

interface Deployment {
  id: string;
  name: string;
  version: string;
  role: string;
  registeredAt: number;
  ttlSeconds?: number;
  endpoint: { binding?: string; url?: string };
  manifest?: { reliability?: { successRate?: number; p95Ms?: number }; cost?: { currency: string; perCall?: number } };
}
interface Observed { calls: number; errorRate: number; p95Ms?: number }
interface Event { at: number; skill: string; type: string; version?: string; by: string; reason: string }
type Routes = Record<string, Record<string, number>>;
interface Breaker { state: string; openUntil: number; reason: string }

/** A failure the user can act on: printed as is, exit code 1. */
export class CliError extends Error {}

export interface CliIO {
  env: Record<string, string | undefined>;
  out: (line: string) => void;
  fetch: typeof fetch;
}

/** The gateway the CLI talks to: SKILLMESH_URL, or the local mesh's default. */
const gatewayBaseOf = (env: CliIO["env"]) => (env.SKILLMESH_URL || "http://127.0.0.1:8787").replace(/\/$/, "");

async function api(io: CliIO, method: string, path: string, body?: unknown): Promise<any> {
  const base = gatewayBaseOf(io.env);
  const token = io.env.SKILLMESH_ADMIN_TOKEN;
  if (!token) throw new CliError("SKILLMESH_ADMIN_TOKEN is not set: export the gateway's admin token first");
  let response: Response;
  try {
    response = await io.fetch(`${base}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: "manual", // the admin token goes to SKILLMESH_URL, never where a redirect points
    });
  } catch (error) {
    throw new CliError(`cannot reach the gateway at ${base} (${(error as Error).cause ?? (error as Error).message}); is SKILLMESH_URL right?`);
  }
  const answer = (await response.json().catch(() => ({}))) as { error?: { message?: string; issues?: Array<{ path: string; message: string }> } };
  if (response.status === 401) throw new CliError(`the gateway at ${base} refused the admin token (check SKILLMESH_ADMIN_TOKEN)`);
  if (!response.ok) {
    const issues = answer.error?.issues?.map((i) => `\n  ${i.path}: ${i.message}`).join("") ?? "";
    throw new CliError(`${answer.error?.message ?? `the gateway answered HTTP ${response.status}`}${issues}`);
  }
  return answer;
}

/** Lays rows out in aligned columns. */
export function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd());
}

/** Parses `--group beta=100` values into `{ beta: 100 }`, refusing anything else. */
export function parseGroups(values: string[]): Record<string, number> {
  const groups: Record<string, number> = {};
  for (const value of values) {
    const match = value.match(/^([^=]+)=(\d{1,3})$/);
    if (!match) throw new CliError(`--group takes <group>=<percent>, e.g. --group beta=100 or --group '*'=5; got ${JSON.stringify(value)}`);
    groups[match[1]!] = Number(match[2]);
  }
  return groups;
}

/** A breaker in a few words: "closed", "open until 03:25:10 (5 consecutive failures)". */
function describeBreaker(breaker: Breaker | undefined): string {
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

function printSkill(io: CliIO, name: string, deployments: Deployment[], routes: Routes, breakers: Record<string, Breaker> = {}, observed: Record<string, Observed> = {}): void {
  const groups = Object.keys(routes).sort((a, b) => (a === "*" ? -1 : b === "*" ? 1 : a.localeCompare(b)));
  const cost = deployments.find((d) => d.role === "stable")?.manifest?.cost;
  io.out(cost?.perCall !== undefined ? `${name}  (${cost.perCall} ${cost.currency} a call)` : name);
  const rows = [["  VERSION", "ROLE", ...groups.map((g) => (g === "*" ? "* (default)" : g)), "BREAKER", "OBSERVED", "ENDPOINT", "REGISTERED", "TTL"]];
  const rank: Record<string, number> = { stable: 0, canary: 1, degraded: 2 };
  const stableVersion = deployments.find((d) => d.role === "stable")?.version;
  for (const d of [...deployments].sort((a, b) => (rank[a.role] ?? 3) - (rank[b.role] ?? 3) || a.version.localeCompare(b.version))) {
    const weights = groups.map((g) => (d.role === "degraded" ? "-" : `${routes[g]?.[d.version] ?? 0}%`));
    rows.push([`  ${d.version}`, shownRoleOf(d, stableVersion), ...weights, describeBreaker(breakers[d.id]), describeObserved(observed[d.id], d.manifest), d.endpoint.binding ?? d.endpoint.url ?? "", utcTime(d.registeredAt), d.ttlSeconds ? `${d.ttlSeconds}s` : "-"]);
  }
  table(rows).forEach((line) => io.out(line));
  io.out("");
}

function printEvents(io: CliIO, events: Event[]): void {
  io.out("Recent events");
  if (!events.length) return io.out("  (none)");
  table([["  TIME (UTC)", "SKILL", "EVENT", "VERSION", "BY", "REASON"], ...events.slice(0, 10).map((e) => [`  ${utcTime(e.at)}`, e.skill, e.type, e.version ?? "-", e.by, e.reason])]).forEach((l) => io.out(l));
}

/** Where a rollout stands, why it last moved or stopped, and its latest decisions. */
function printRollout(io: CliIO, r: Rollout): void {
  const limits = [`errors ≤${(r.maxErrorRate * 100).toFixed(1)}%`, ...(r.maxP95Ratio ? [`p95 ≤${r.maxP95Ratio}x stable`] : []), `≥${r.minCalls} calls a step`].join(", ");
  io.out(`Rollout of ${r.skill} ${r.version} (vs ${r.stable}): ${r.state}, step ${r.step + 1}/${r.steps.length} (${r.steps[r.step]}% in ${r.groups.join(",")}), steps ${r.steps.join("→")}% every ${r.everyMs / 1000} s; ${limits}`);
  io.out(`  now: ${r.status}`);
  for (const event of r.history.slice(0, 5)) io.out(`  ${utcTime(event.at)}  ${event.type.padEnd(8)} ${event.reason}`);
  io.out("");
}

/** Validates a request body before it is sent, with the admin API's own schema; a mistake is named by its option. */
function requestOf<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new CliError(parsed.error.issues.map((i) => `${optionOf(i.path)}: ${i.code === "invalid_type" && valueAt(body, i.path) === undefined ? "missing" : i.message}`).join("\n"));
  return parsed.data;
}

/**
 * The command-line option a request field comes from (`maxErrorRate` → `--max-error-rate`, an
 * item of a list counted from 1), else the field itself.
 * @example optionOf(["steps", 1]) // "--steps (item 2)"
 */
export function optionOf(path: readonly PropertyKey[]): string {
  const [field, ...rest] = path;
  const option = typeof field === "string" ? field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`) : undefined;
  if (!option || !(option in OPTIONS)) return path.map(String).join(".") || "request";
  const [item] = rest;
  if (typeof item === "number") return `--${option} (item ${item + 1})`;
  return [`--${option}`, ...rest.map(String)].join(".");
}

/** Reads an answer with the admin API's own schema (an answer of another shape is a wrong gateway). */
function answerOf<T extends z.ZodType>(schema: T, answer: unknown): z.output<T> {
  const parsed = schema.safeParse(answer);
  if (!parsed.success) throw new CliError("the gateway's answer is not what this CLI expects: is SKILLMESH_URL a Skillmesh gateway of this version?");
  return parsed.data;
}

const OPTIONS = {
  group: { type: "string", multiple: true },
  version: { type: "string" },
  reason: { type: "string" },
  name: { type: "string" },
  "new-name": { type: "string" },
  skills: { type: "string", multiple: true },
  tags: { type: "string", multiple: true },
  groups: { type: "string", multiple: true },
  admin: { type: "string" },
  rate: { type: "string" },
  quota: { type: "string" },
  caller: { type: "string" },
  skill: { type: "string" },
  outcome: { type: "string" },
  type: { type: "string" },
  since: { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
  idempotent: { type: "boolean" },
  steps: { type: "string" },
  every: { type: "string" },
  "max-error-rate": { type: "string" },
  "max-p95-ratio": { type: "string" },
  "min-calls": { type: "string" },
  help: { type: "boolean", short: "h" },
} satisfies ParseArgsConfig["options"];

/** The command line, or its mistake (an unknown option, a missing value) with the usage. */
function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${USAGE}`);
  }
}

/**
 * Runs one CLI command; throws CliError for anything the user should fix.
 * @example await runCli(["promote", "text.summarize", "2.0.0"], { env: process.env, out: console.log, fetch })
 */
export async function runCli(argv: string[], io: CliIO): Promise<void> {
  const { values, positionals } = parseCommandLine(argv);
  const [command, skill, version] = positionals;
  const need = (value: string | undefined, what: string) => {
    if (!value) throw new CliError(`${command} needs ${what}\n${USAGE}`);
    return value;
  };
  switch (values.help ? "help" : command) {
    case "status": {
      type Page = { deployments: Deployment[]; routes: Record<string, Routes>; breakers: Record<string, Breaker>; observed?: Record<string, Observed>; rollouts?: Record<string, Rollout>; events: Event[]; nextCursor?: string };
      // The admin API pages the registry by skill name: follow the cursors.
      const all = (await api(io, "GET", "/deployments")) as Page;
      for (let cursor = all.nextCursor; cursor; ) {
        const page = (await api(io, "GET", `/deployments?cursor=${encodeURIComponent(cursor)}`)) as Page;
        all.deployments.push(...page.deployments);
        Object.assign(all.routes, page.routes);
        Object.assign(all.breakers, page.breakers);
        all.observed = { ...all.observed, ...page.observed };
        all.rollouts = { ...all.rollouts, ...page.rollouts };
        cursor = page.nextCursor;
      }
      const names = [...new Set(all.deployments.map((d) => d.name))].filter((n) => !skill || n === skill).sort();
      if (skill && !names.length) throw new CliError(`No skill ${skill} is registered`);
      for (const name of names) {
        printSkill(io, name, all.deployments.filter((d) => d.name === name), all.routes[name] ?? {}, all.breakers, all.observed);
        const rollout = all.rollouts?.[name];
        if (rollout) printRollout(io, rollout);
      }
      printEvents(io, all.events.filter((e) => !skill || e.skill === skill));
      return;
    }
    case "canary": {
      const groups = parseGroups(values.group ?? []);
      if (!Object.keys(groups).length) throw new CliError("canary needs at least one --group <group>=<percent>, e.g. --group beta=100");
      const answer = await api(io, "POST", `/skills/${encodeURIComponent(need(skill, "a skill"))}/canary`, { version: need(version, "a version"), groups });
      io.out(answer.event.reason);
      printSkill(io, skill!, (await api(io, "GET", `/skills/${encodeURIComponent(skill!)}`)).deployments, answer.routes);
      return;
    }
    case "promote": {
      const answer = await api(io, "POST", `/skills/${encodeURIComponent(need(skill, "a skill"))}/promote`, { version: need(version, "a version") });
      io.out(answer.event.reason);
      return;
    }
    case "rollback": {
      const body = { ...(values.version ? { version: values.version } : {}), ...(values.reason ? { reason: values.reason } : {}) };
      const answer = await api(io, "POST", `/skills/${encodeURIComponent(need(skill, "a skill"))}/rollback`, body);
      io.out(answer.event.reason);
      return;
    }
    case "rollout": {
      const name = need(skill, "a skill");
      const action = need(version, "a version, or pause, resume or abort");
      if (["pause", "resume", "abort"].includes(action)) {
        const body = requestOf(RolloutCommandSchema, values.reason ? { reason: values.reason } : {});
        const { rollout } = answerOf(RolloutAnswerSchema, await api(io, "POST", `/skills/${encodeURIComponent(name)}/rollout/${action}`, body));
        printRollout(io, rollout);
        return;
      }
      const body = {
        version: action,
        steps: values.steps,
        every: values.every,
        maxErrorRate: values["max-error-rate"]?.endsWith("%") ? values["max-error-rate"] : Number(values["max-error-rate"]),
        ...(values["max-p95-ratio"] ? { maxP95Ratio: Number(values["max-p95-ratio"]) } : {}),
        ...(values["min-calls"] ? { minCalls: Number(values["min-calls"]) } : {}),
        ...(values.groups?.length ? { groups: values.groups.flatMap((g) => g.split(",")) } : {}),
      };
      requestOf(RolloutRequestSchema, body); // the API's own rules, said here before anything is sent
      const { rollout } = answerOf(RolloutAnswerSchema, await api(io, "POST", `/skills/${encodeURIComponent(name)}/rollout`, body));
      printRollout(io, rollout);
      return;
    }
    case "contracts": {
      if (skill !== "check") throw new CliError(`contracts takes check (npm run contracts writes them)\n${USAGE}`);
      const { contractProblems } = await import("../contracts.js"); // starts the skills' bundles: only for this command
      io.out("Checking every skill against contracts/ (bundled with wrangler, started in workerd) …");
      const problems = await contractProblems();
      for (const problem of problems) io.out(`✗ ${problem}`);
      if (problems.length) throw new CliError(`${problems.length} problem${problems.length === 1 ? "" : "s"} with the contracts committed in contracts/ (skills and pipelines)`);
      io.out("Contracts: every skill matches its committed contract.");
      return;
    }
    case "new": {
      const { createSkill, exampleCurl, projectRootFrom } = await import("./new-skill.js");
      const { readDevState } = await import("../mesh/dev-state.js");
      const name = need(skill, "a skill name, e.g. skillmesh new greet");
      if (positionals.length > 2) throw new CliError(`new takes one skill name; unexpected ${JSON.stringify(positionals[2])} (names have no spaces)`);
      let created: Awaited<ReturnType<typeof createSkill>>;
      let root: string;
      try {
        root = projectRootFrom(process.cwd());
        created = await createSkill(root, { name, version: values.version, tags: values.tags, idempotent: values.idempotent });
      } catch (error) {
        throw new CliError((error as Error).message);
      }
      const shown = (file: string) => relative(root, file);
      io.out(`Created ${name}@${values.version ?? "1.0.0"} in ${shown(created.dir)}/:`);
      for (const file of created.files) io.out(`  ${shown(file)}`);
      // The curl goes to the project's running mesh (its port, its key) when there is one.
      const running = readDevState(root);
      const serve = running ? `the running npm run dev (${running.url}) serves it within seconds` : "npm run dev                     serves it (a running npm run dev picks it up on its own)";
      io.out(`The gateway binds it as ${created.binding} (wrangler.toml [[services]]: npm run deploy registers it by that binding).
Next:
  ${serve}
  ${exampleCurl(name, running?.url ?? gatewayBaseOf(io.env), running?.auth ?? false)}
  npx vitest run ${shown(created.dir)}       its tests (npm test runs them too)
  npm run contracts               before a release: write contracts/${name}/${values.version ?? "1.0.0"}.json, and commit it`);
      return;
    }
    case "keys":
      return runKeys(io, positionals.slice(1), values);
    case "sessions": {
      if (skill !== "end") throw new CliError(`sessions takes end (signs every dashboard session out)\n${USAGE}`);
      await api(io, "DELETE", "/sessions");
      io.out("Every dashboard session is signed out; signing in again works as before.");
      return;
    }
    case "hop-key": {
      const { generateHopKeys } = await import("../../src/hop/index.js");
      const { privateKey, publicKey } = await generateHopKeys();
      io.out(`# The gateway's private key: its secret SKILLMESH_HOP_KEY, on the gateway only (npm run deploy reads it from its environment).
${privateKey.trimEnd()}
# Its public key: SKILLMESH_HOP_PUBLIC_KEY of each skill the gateway reaches by URL (not a secret; npm run deploy sets it).
${publicKey}`);
      return;
    }
    case "audit": {
      const filters = { caller: values.caller, skill: values.skill, outcome: values.outcome, type: values.type, since: values.since, limit: values.limit, cursor: values.cursor };
      const query = requestOf(AuditQuerySchema, Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined)));
      const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
      const page = answerOf(AuditListSchema, await api(io, "GET", `/audit?${search}`));
      printAudit(io, page.entries);
      if (page.nextCursor) io.out(`older entries: skillmesh audit … --cursor ${page.nextCursor}`);
      return;
    }
    case "help":
      io.out(USAGE);
      return;
    default:
      throw new CliError(`${command ? `unknown command ${command}` : "no command"}\n${USAGE}`);
  }
}

type Values = ReturnType<typeof parseCommandLine>["values"];

/** `--admin none` / `--rate none` clear a grant on update; on create they mean "not given". */
const orNull = (value: unknown) => (value === "none" ? null : value);

async function runKeys(io: CliIO, [action, which]: string[], values: Values): Promise<void> {
  const grants = { skills: values.skills, tags: values.tags, groups: values.groups, admin: values.admin, rate: values.rate, quota: values.quota };
  switch (action) {
    case "create": {
      const request = requestOf(KeyCreateRequestSchema, { ...grants, name: values.name, admin: orNull(values.admin) ?? undefined });
      if (!request.skills.length && !request.tags.length && !request.admin) {
        throw new CliError("a key that may call nothing and administer nothing is useless: give --skills, --tags or --admin");
      }
      const { key, view } = answerOf(KeyCreatedSchema, await api(io, "POST", "/keys", request));
      io.out(`Created key ${view.id} (${view.name}). It is shown only now; store it as a secret:`);
      io.out(`  ${key}`);
      printKeys(io, [view]);
      return;
    }
    case "list":
      return printKeys(io, answerOf(KeyListSchema, await api(io, "GET", "/keys")).keys);
    case "update": {
      if (!which) throw new CliError(`keys update needs a key id or name\n${USAGE}`);
      const changes = Object.fromEntries(Object.entries({ ...grants, name: values["new-name"] }).filter(([, v]) => v !== undefined).map(([k, v]) => [k, orNull(v)]));
      if (!Object.keys(changes).length) throw new CliError("keys update needs something to change, e.g. --skills 'text.*' or --rate 100/min");
      const view = answerOf(KeyViewSchema, await api(io, "PATCH", `/keys/${encodeURIComponent(which)}`, requestOf(KeyUpdateRequestSchema, changes)));
      io.out(`Updated key ${view.id} (${view.name}); every gateway isolate has it within about a second.`);
      return printKeys(io, [view]);
    }
    case "revoke": {
      if (!which) throw new CliError(`keys revoke needs a key id or name\n${USAGE}`);
      const view = answerOf(KeyViewSchema, await api(io, "DELETE", `/keys/${encodeURIComponent(which)}`));
      io.out(`Revoked key ${view.id} (${view.name}); it stops working everywhere within about a second.`);
      return;
    }
    default:
      throw new CliError(`keys takes create, list, update or revoke\n${USAGE}`);
  }
}

function printKeys(io: CliIO, keys: KeyView[]): void {
  const list = (items: string[]) => (items.length ? items.join(",") : "-");
  const rows = [["ID", "NAME", "KEY", "SKILLS", "TAGS", "GROUPS", "ADMIN", "RATE", "QUOTA", "CREATED", "REVOKED"]];
  for (const k of keys) {
    rows.push([k.id, k.name, k.hint, list(k.skills), list(k.tags), list(k.groups), k.admin ?? "-", k.rate ?? "-", k.quota ?? "-", utcTime(k.createdAt), k.revokedAt ? utcTime(k.revokedAt) : "-"]);
  }
  table(rows).forEach((line) => io.out(line));
}

function printAudit(io: CliIO, entries: AuditEntry[]): void {
  if (!entries.length) return io.out("(no audit entries match)");
  const rows = [["TIME (UTC)", "WHO", "WHAT", "OUTCOME", "MS", "NOTES"]];
  for (const e of entries) {
    if (e.type === "admin") rows.push([utcTime(e.at), e.by, e.action, `HTTP ${e.status}`, "-", "admin"]);
    else {
      const notes = [e.group && `group ${e.group}`, e.replayed && "replayed", e.degraded && "degraded", e.hidden && "hidden from caller", e.args && `args ${e.args.slice(0, 12)}`].filter(Boolean).join(", ");
      rows.push([utcTime(e.at), e.caller, e.deployment ?? e.method, e.code === 0 ? "ok" : String(e.code), String(e.ms), notes || "-"]);
    }
  }
  table(rows).forEach((line) => io.out(line));
}
