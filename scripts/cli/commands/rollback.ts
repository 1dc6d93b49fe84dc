/** `skillmesh rollback <skill> [--version <v>] [--reason <r>]`: every group (or one canary's share) back to stable. */
import { RoutingEditAnswerSchema } from "../../../src/admin/api/index.js";
import { type CliIO, answerOf, api } from "../io.js";
import type { CommandLine } from "../options.js";

export async function run(io: CliIO, line: CommandLine): Promise<void> {
  const { skill, values, need } = line;
  const body = { ...(values.version ? { version: values.version } : {}), ...(values.reason ? { reason: values.reason } : {}) };
  const answer = answerOf(RoutingEditAnswerSchema, await api(io, "POST", `/skills/${encodeURIComponent(need(skill, "a skill"))}/rollback`, body));
  io.out(answer.event.reason);
}
