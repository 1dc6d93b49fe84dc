/** `skillmesh contracts check`: every skill against the contracts committed in contracts/. */
import { CliError, type CliIO } from "../io.js";
import { type CommandLine, USAGE } from "../options.js";

export async function run(io: CliIO, line: CommandLine): Promise<void> {
  const { skill } = line;
  if (skill !== "check") throw new CliError(`contracts takes check (npm run contracts writes them)\n${USAGE}`);
  const { contractProblems } = await import("../../contracts.js"); // starts the skills' bundles: only for this command
  io.out("Checking every skill against contracts/ (bundled with wrangler, started in workerd) …");
  const problems = await contractProblems();
  for (const problem of problems) io.out(`✗ ${problem}`);
  if (problems.length)
    throw new CliError(`${problems.length} problem${problems.length === 1 ? "" : "s"} with the contracts committed in contracts/ (skills and pipelines)`);
  io.out("Contracts: every skill matches its committed contract.");
}
