/**
 * `skillmesh upstream add|list|refresh|approve|remove …`: MCP servers and OpenAPI services whose
 * tools the gateway serves as skills (src/federation/upstream). A secret is never an argument (shells keep
 * history): `--bearer-env VAR` names the environment variable that holds it.
 */
import { existsSync, readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import {
  ApproveRequestSchema,
  SyncAnswerSchema,
  UpstreamListSchema,
  UpstreamRegistrationSchema,
  UpstreamRemovedSchema,
  type UpstreamView,
  UpstreamViewSchema,
} from "../../../src/admin/api/index.js";
import { SUBJECT_WORDS, approvalKeyOf, fieldChanges, heldDefinitionOf } from "../../../src/federation/upstream/held.js";
import type { HeldChange } from "../../../src/federation/upstream/model.js";
import { hiddenIn, visibleText } from "../../../src/lib/visible/index.js";
import { type CliIO, CliError, answerOf, api, table } from "../io.js";
import { type CommandLine, USAGE, requestOf } from "../options.js";

export async function run(io: CliIO, { positionals, values }: CommandLine): Promise<void> {
  const [, action, name] = positionals;
  const environment = io.env;
  switch (action) {
    case "add": {
      if (!name) throw new CliError(`upstream add needs a name (the prefix of its tools' names)\n${USAGE}`);
      const auth =
        values["bearer-env"] ? { type: "bearer", token: environment[values["bearer-env"]] ?? failMissing(values["bearer-env"]) }
        : values["per-caller"] ? { type: "per-caller" }
        : undefined;
      const common = {
        name,
        version: values.version,
        tags: values.tags,
        include: values.include,
        exclude: values.exclude,
        ...(values["timeout-ms"] ? { timeoutMs: Number(values["timeout-ms"]) } : {}),
        ...(auth ? { auth } : {}),
      };
      const openapi = values.openapi;
      const body =
        openapi ?
          {
            kind: "openapi",
            document: /^https?:\/\//.test(openapi) ? openapi : documentOf(openapi),
            url: values.url,
            operationTags: values["operation-tags"],
            ...common,
          }
        : values.a2a ? { kind: "a2a", url: values.a2a, ...common }
        : { kind: "mcp", url: values.url, ...common };
      const answer = answerOf(SyncAnswerSchema, await api(io, "POST", "/upstreams", requestOf(UpstreamRegistrationSchema, body)));
      for (const report of answer.reports) {
        io.out(
          `Upstream ${report.upstream}@${report.version}: ${report.served.length} tool(s) served as skills, ${report.offerings.length} resource(s), template(s), prompt(s), Agent Skill(s) and MCP App(s)`,
        );
        for (const id of report.served) io.out(`  ${id}`);
        for (const offering of report.offerings) io.out(`  ${offering}`);
        for (const skipped of report.skipped) io.out(`  skipped ${skipped.tool}: ${skipped.reason}`);
      }
      return;
    }
    case "list":
      return printUpstreams(io, answerOf(UpstreamListSchema, await api(io, "GET", "/upstreams")).upstreams);
    case "refresh": {
      if (!name) throw new CliError(`upstream refresh needs a name\n${USAGE}`);
      const { reports } = answerOf(SyncAnswerSchema, await api(io, "POST", `/upstreams/${encodeURIComponent(name)}/refresh`));
      for (const report of reports) {
        io.out(`Upstream ${report.upstream}@${report.version}: ${report.served.length} served, ${report.held.length} held, ${report.removed.length} removed`);
        for (const held of report.held)
          io.out(
            `  held ${held.kind} ${SUBJECT_WORDS[held.subject]} ${held.name}${held.breaking ? " (breaking: withdrawn until approved)" : ""}${held.changes.length ? `: ${held.changes.join("; ")}` : ""}`,
          );
        for (const removed of report.removed) io.out(`  removed ${removed}`);
        for (const skipped of report.skipped) io.out(`  skipped ${skipped.tool}: ${skipped.reason}`);
      }
      if (reports.some((r) => r.held.length))
        io.out(`Review and approve with: skillmesh upstream approve ${name} --tools <tool> … --offerings <subject>:<name> …`);
      return;
    }
    case "approve": {
      if (!name) throw new CliError(`upstream approve needs a name\n${USAGE}`);
      const named = [...(values.tools ?? []), ...(values.offerings ?? [])];
      if (!named.length)
        throw new CliError(
          `upstream approve names what it approves: --tools <tool> … and/or --offerings <subject>:<name> … (skillmesh upstream list shows what is held)`,
        );
      const view = answerOf(UpstreamViewSchema, await api(io, "GET", `/upstreams/${encodeURIComponent(name)}`));
      const held = Object.entries(view.versions).flatMap(([version, v]) =>
        values.version && version !== values.version ? [] : v.held.map((change) => ({ version, change })),
      );
      const picked = held.filter(({ change }) => named.includes(approvalKeyOf(change)));
      const missing = named.filter((key) => !picked.some(({ change }) => approvalKeyOf(change) === key));
      if (missing.length) throw new CliError(`Nothing of ${name} is held as ${missing.join(", ")}${values.version ? ` in version ${values.version}` : ""}`);
      // What is approved is what is printed here: each change's hash goes with the approval.
      for (const { version, change } of picked) printHeld(io, name, version, change);
      const approval = (subject: "tool" | "offering") =>
        Object.fromEntries(
          picked.filter(({ change }) => (change.subject === "tool") === (subject === "tool")).map(({ change }) => [approvalKeyOf(change), change.contractHash]),
        );
      const body = requestOf(ApproveRequestSchema, {
        ...(values.version ? { version: values.version } : {}),
        tools: approval("tool"),
        offerings: approval("offering"),
      });
      const { reports } = answerOf(SyncAnswerSchema, await api(io, "POST", `/upstreams/${encodeURIComponent(name)}/approve`, body));
      for (const report of reports)
        for (const approved of report.approved ?? []) io.out(`Approved ${report.upstream}@${report.version} ${approved.key} ${approved.contractHash}`);
      return;
    }
    case "remove": {
      if (!name) throw new CliError(`upstream remove needs a name\n${USAGE}`);
      const query = values.version ? `?version=${encodeURIComponent(values.version)}` : "";
      const { removed } = answerOf(UpstreamRemovedSchema, await api(io, "DELETE", `/upstreams/${encodeURIComponent(name)}${query}`));
      io.out(`Removed upstream ${name}${values.version ? `@${values.version}` : ""} and ${removed.length} deployment(s)`);
      return;
    }
    default:
      throw new CliError(`upstream takes add, list, refresh, approve or remove\n${USAGE}`);
  }
}

function failMissing(variable: string): never {
  throw new CliError(`--bearer-env ${variable}: the environment variable is not set`);
}

/** An OpenAPI document from a file (JSON or YAML), sent inline. */
function documentOf(path: string): Record<string, unknown> {
  if (!existsSync(path)) throw new CliError(`--openapi ${path}: no such file (or give an http(s) URL)`);
  const parsed = parseYaml(readFileSync(path, "utf8")) as unknown;
  if (typeof parsed !== "object" || parsed === null) throw new CliError(`--openapi ${path}: not a JSON or YAML document`);
  return parsed as Record<string, unknown>;
}

function printUpstreams(io: CliIO, upstreams: UpstreamView[]): void {
  if (!upstreams.length) return io.out("No upstreams. Add one: skillmesh upstream add <name> --url <MCP server URL> | --openapi <document>");
  const rows = [["UPSTREAM", "KIND", "VERSION", "URL", "TOOLS", "HELD", "AUTH", "LAST REFRESH"]];
  for (const u of upstreams) {
    for (const [version, v] of Object.entries(u.versions)) {
      const refresh = v.refresh ? `${new Date(v.refresh.at).toISOString().slice(0, 19)}Z ${v.refresh.ok ? "ok" : `failed: ${v.refresh.error ?? ""}`}` : "-";
      rows.push([
        u.name,
        u.kind,
        version,
        v.url,
        String(Object.keys(v.tools).length),
        v.held.map((h) => `${approvalKeyOf(h)} (${h.kind}${h.withdrawn ? ", withdrawn" : ""})`).join(", ") || "-",
        v.auth.type,
        refresh,
      ]);
    }
  }
  table(rows).forEach((line) => io.out(line));
}

/** A held change as an operator reviews it: every changed field in full, hidden characters shown and flagged, its hash. */
function printHeld(io: CliIO, name: string, version: string, change: HeldChange): void {
  io.out(`${name}@${version}: ${change.kind} ${SUBJECT_WORDS[change.subject]} ${change.name}${change.breaking ? " (breaking)" : ""}  ${change.contractHash}`);
  for (const field of fieldChanges(change.previous, heldDefinitionOf(change))) {
    const hidden = hiddenIn(`${field.before ?? ""}${field.after ?? ""}`);
    io.out(`  ${field.path}${hidden.length ? `  !! hidden characters: ${hidden.map((h) => `${h.kind} x${h.count}`).join(", ")}` : ""}`);
    if (field.before !== undefined) io.out(visibleText(field.before).replace(/^/gm, "    - "));
    if (field.after !== undefined) io.out(visibleText(field.after).replace(/^/gm, "    + "));
  }
}
