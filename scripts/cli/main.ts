/** The `skillmesh` command: runs the CLI against the real environment. */
import { CliError, runCli } from "./index.js";

try {
  await runCli(process.argv.slice(2), { env: process.env, out: (line) => console.log(line), fetch });
} catch (error) {
  console.error(error instanceof CliError ? `skillmesh: ${error.message}` : error);
  process.exitCode = 1;
}
