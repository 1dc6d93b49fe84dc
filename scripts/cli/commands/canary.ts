/** `skillmesh canary <skill> <version> --group <g>=<pct> …`: a share per group for a canary (stable takes the rest). */
import { RoutingEditAnswerSchema, SkillAnswerSchema } from "../../../src/admin/api/index.js";
import { CliError, type CliIO, answerOf, api } from "../io.js";
import type { CommandLine } from "../options.js";
import { printSkill } from "../print.js";

export async function run(io: CliIO, line: CommandLine): Promise<void> {
  const { skill, version, values, need } = line;
  const groups = parseGroups(values.group ?? []);
  if (!Object.keys(groups).length) throw new CliError("canary needs at least one --group <group>=<percent>, e.g. --group beta=100");
  const answer = answerOf(
    RoutingEditAnswerSchema,
    await api(io, "POST", `/skills/${encodeURIComponent(need(skill, "a skill"))}/canary`, { version: need(version, "a version"), groups }),
  );
  io.out(answer.event.reason);
  printSkill(io, skill!, answerOf(SkillAnswerSchema, await api(io, "GET", `/skills/${encodeURIComponent(skill!)}`)).deployments, answer.routes);
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
