/** `skillmesh status [skill]`: every skill (or one) with its deployments, weights per group, breakers, observed numbers and rollout, then the recent events. */
import { DeploymentsPageAnswerSchema } from "../../../src/admin/api/index.js";
import { CliError, type CliIO, answerOf, api } from "../io.js";
import type { CommandLine } from "../options.js";
import { printEvents, printRollout, printSkill } from "../print.js";

export async function run(io: CliIO, line: CommandLine): Promise<void> {
  const { skill } = line;
  // The admin API pages the registry by skill name: follow the cursors.
  const all = answerOf(DeploymentsPageAnswerSchema, await api(io, "GET", "/deployments"));
  for (let cursor = all.nextCursor; cursor;) {
    const page = answerOf(DeploymentsPageAnswerSchema, await api(io, "GET", `/deployments?cursor=${encodeURIComponent(cursor)}`));
    all.deployments.push(...page.deployments);
    Object.assign(all.routes, page.routes);
    Object.assign(all.breakers, page.breakers);
    Object.assign(all.observed, page.observed);
    Object.assign(all.rollouts, page.rollouts);
    cursor = page.nextCursor;
  }
  const names = [...new Set(all.deployments.map((d) => d.name))].filter((n) => !skill || n === skill).sort();
  if (skill && !names.length) throw new CliError(`No skill ${skill} is registered`);
  for (const name of names) {
    printSkill(
      io,
      name,
      all.deployments.filter((d) => d.name === name),
      all.routes[name] ?? {},
      all.breakers,
      all.observed,
    );
    const rollout = all.rollouts[name];
    if (rollout) printRollout(io, rollout);
  }
  printEvents(
    io,
    all.events.filter((e) => !skill || e.skill === skill),
  );
}
