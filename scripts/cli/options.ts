/** The `skillmesh` command line: its usage text, its options, and how a request field names its option. */
import { type ParseArgsConfig, parseArgs } from "node:util";
import type { z } from "zod";
import { valueAt } from "../../src/lib/json/index.js";
import { CliError } from "./io.js";

export const USAGE = `usage: skillmesh <command>
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
  upstream add <name> --url <MCP server URL> | --openapi <document URL or file> [--url <base URL>]
          | --a2a <A2A agent's URL or its Agent Card's URL>
          [--version <v>] [--tags <tag> …] [--include <glob> …] [--exclude <glob> …]
          [--operation-tags <tag> …] [--timeout-ms <n>] [--bearer-env <VAR> | --per-caller]
                                                   serve an MCP server's tools, an API's operations or
                                                   an agent's skills as skills <name>.<tool>
  upstream list                                    upstreams: versions, tools, held changes, last refresh
  upstream refresh <name>                          read its definitions again (changes are held for approval)
  upstream approve <name> [--version <v>] [--tools <tool> …] [--offerings <subject>:<name> …]
                                                   print the held changes named, in full, and serve
                                                   them as printed (refused if they change meanwhile)
  upstream remove <name> [--version <v>]           remove it (or one version) and its tools
env: SKILLMESH_URL (default http://127.0.0.1:8787), SKILLMESH_ADMIN_TOKEN`;

export const OPTIONS = {
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
  url: { type: "string" },
  openapi: { type: "string" },
  a2a: { type: "string" },
  include: { type: "string", multiple: true },
  exclude: { type: "string", multiple: true },
  tools: { type: "string", multiple: true },
  offerings: { type: "string", multiple: true },
  "operation-tags": { type: "string", multiple: true },
  "timeout-ms": { type: "string" },
  "bearer-env": { type: "string" },
  "per-caller": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} satisfies ParseArgsConfig["options"];

/** The command line, or its mistake (an unknown option, a missing value) with the usage. */
export function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${USAGE}`);
  }
}

/** The options given, by name. */
export type Values = ReturnType<typeof parseCommandLine>["values"];

/** One command's view of the command line: `skillmesh <command> <skill> <version> …`. */
export interface CommandLine {
  command: string;
  /** The first and second words after the command (a skill and a version, for most commands). */
  skill?: string;
  version?: string;
  positionals: string[];
  values: Values;
  /** The value, or a CliError saying the command needs `what`. */
  need: (value: string | undefined, what: string) => string;
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

/** Validates a request body before it is sent, with the admin API's own schema; a mistake is named by its option. */
export function requestOf<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw new CliError(
      parsed.error.issues
        .map((i) => `${optionOf(i.path)}: ${i.code === "invalid_type" && valueAt(body, i.path) === undefined ? "missing" : i.message}`)
        .join("\n"),
    );
  return parsed.data;
}
