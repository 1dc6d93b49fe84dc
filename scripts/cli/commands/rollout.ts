/** `skillmesh rollout <skill> <version> --steps … --every … --max-error-rate …`, and `rollout <skill> pause|resume|abort`: progressive delivery. */
import { RolloutAnswerSchema, RolloutCommandSchema, RolloutRequestSchema } from "../../../src/admin/api/index.js";
import { type CliIO, answerOf, api } from "../io.js";
import { type CommandLine, requestOf } from "../options.js";
import { printRollout } from "../print.js";

export async function run(io: CliIO, line: CommandLine): Promise<void> {
  const { skill, version, values, need } = line;
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
}
