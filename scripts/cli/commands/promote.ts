/** `skillmesh promote <skill> <version>`: the version becomes stable at 100% everywhere. */
import { RoutingEditAnswerSchema } from "../../../src/admin/api/index.js";
import { type CliIO, answerOf, api } from "../io.js";
import type { CommandLine } from "../options.js";

export async function run(io: CliIO, line: CommandLine): Promise<void> {
  const { skill, version, need } = line;
  const answer = answerOf(
    RoutingEditAnswerSchema,
    await api(io, "POST", `/skills/${encodeURIComponent(need(skill, "a skill"))}/promote`, { version: need(version, "a version") }),
  );
  io.out(answer.event.reason);
}
