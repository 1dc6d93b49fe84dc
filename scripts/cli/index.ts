/**
 * `skillmesh` — the rollout CLI. It talks to a gateway's admin API:
 *   SKILLMESH_URL (default http://127.0.0.1:8787) and SKILLMESH_ADMIN_TOKEN.
 *
 *   skillmesh status [skill]
 *   skillmesh canary <skill> <version> --group beta=100 --group vip=20 --group '*'=5
 *   skillmesh promote <skill> <version>
 *   skillmesh rollback <skill> [--version <canary>] [--reason "..."]
 *   skillmesh rollout <skill> <version> --steps 5,25,50,100 --every 5m --max-error-rate 1% …
 *   skillmesh rollout <skill> pause|resume|abort
 *   skillmesh keys create|list|update|revoke …
 *   skillmesh audit [--caller] [--skill] [--outcome] [--type] [--since] [--limit]
 *   skillmesh hop-key                     a key pair for signed hops (prints both keys; needs no gateway)
 *   skillmesh new <name> [--version 1.0.0] [--tags <tag> …] [--idempotent]   (scripts/cli/new-skill.ts)
 */
import { CliError, type CliIO } from "./io.js";
import { type CommandLine, USAGE, parseCommandLine } from "./options.js";
import { run as statusCommand } from "./commands/status.js";
import { run as canaryCommand } from "./commands/canary.js";
import { run as promoteCommand } from "./commands/promote.js";
import { run as rollbackCommand } from "./commands/rollback.js";
import { run as rolloutCommand } from "./commands/rollout.js";
import { run as contractsCommand } from "./commands/contracts.js";
import { run as newCommand } from "./commands/new.js";
import { run as keysCommand } from "./commands/keys.js";
import { run as sessionsCommand } from "./commands/sessions.js";
import { run as hopKeyCommand } from "./commands/hop-key.js";
import { run as auditCommand } from "./commands/audit.js";
import { run as upstreamCommand } from "./commands/upstream.js";

export { CliError, type CliIO } from "./io.js";
export { optionOf } from "./options.js";

/** Each command's module (scripts/cli/commands/<command>.ts). */
const COMMANDS: Record<string, (io: CliIO, line: CommandLine) => Promise<void>> = {
  status: statusCommand,
  canary: canaryCommand,
  promote: promoteCommand,
  rollback: rollbackCommand,
  rollout: rolloutCommand,
  contracts: contractsCommand,
  new: newCommand,
  keys: keysCommand,
  sessions: sessionsCommand,
  upstream: upstreamCommand,
  "hop-key": hopKeyCommand,
  audit: auditCommand,
};

/**
 * Runs one CLI command; throws CliError for anything the user should fix.
 * @example await runCli(["promote", "text.summarize", "2.0.0"], { env: process.env, out: console.log, fetch })
 */
export async function runCli(argv: string[], io: CliIO): Promise<void> {
  const { values, positionals } = parseCommandLine(argv);
  const [command, skill, version] = positionals;
  if (values.help || command === "help") return io.out(USAGE);
  const run = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command]! : undefined;
  if (!run) throw new CliError(`${command ? `unknown command ${command}` : "no command"}\n${USAGE}`);
  const need = (value: string | undefined, what: string) => {
    if (!value) throw new CliError(`${command} needs ${what}\n${USAGE}`);
    return value;
  };
  await run(io, { command: command!, skill, version, positionals, values, need });
}
