/** `skillmesh sessions end`: signs every dashboard session out. */
import { CliError, type CliIO, api } from "../io.js";
import { type CommandLine, USAGE } from "../options.js";

export async function run(io: CliIO, line: CommandLine): Promise<void> {
  const { skill } = line;
  if (skill !== "end") throw new CliError(`sessions takes end (signs every dashboard session out)\n${USAGE}`);
  await api(io, "DELETE", "/sessions");
  io.out("Every dashboard session is signed out; signing in again works as before.");
}
