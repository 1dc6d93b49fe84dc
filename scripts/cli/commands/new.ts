/** `skillmesh new <name>`: a new skill folder (scripts/cli/new-skill.ts), and what to do next. */
import { relative } from "node:path";
import { CliError, type CliIO, gatewayBaseOf } from "../io.js";
import type { CommandLine } from "../options.js";

export async function run(io: CliIO, line: CommandLine): Promise<void> {
  const { skill, positionals, values, need } = line;
  const { createSkill, exampleCurl, projectRootFrom } = await import("../new-skill.js");
  const { readDevState } = await import("../../mesh/dev-state.js");
  const name = need(skill, "a skill name, e.g. skillmesh new greet");
  if (positionals.length > 2) throw new CliError(`new takes one skill name; unexpected ${JSON.stringify(positionals[2])} (names have no spaces)`);
  let created: Awaited<ReturnType<typeof createSkill>>;
  let root: string;
  try {
    root = projectRootFrom(process.cwd());
    created = await createSkill(root, { name, version: values.version, tags: values.tags, idempotent: values.idempotent });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  const shown = (file: string) => relative(root, file);
  io.out(`Created ${name}@${values.version ?? "1.0.0"} in ${shown(created.dir)}/:`);
  for (const file of created.files) io.out(`  ${shown(file)}`);
  // The curl goes to the project's running mesh (its port, its key) when there is one.
  const running = readDevState(root);
  const serve =
    running ?
      `the running npm run dev (${running.url}) serves it within seconds`
    : "npm run dev                     serves it (a running npm run dev picks it up on its own)";
  io.out(`The gateway binds it as ${created.binding} (wrangler.toml [[services]]: npm run deploy registers it by that binding).
Next:
${serve}
${exampleCurl(name, running?.url ?? gatewayBaseOf(io.env), running?.auth ?? false)}
npx vitest run ${shown(created.dir)}       its tests (npm test runs them too)
npm run contracts               before a release: write contracts/${name}/${values.version ?? "1.0.0"}.json, and commit it`);
}
