/**
 * `skillmesh new <name> [--version 1.0.0] [--tags a --tags b] [--idempotent]`: a new skill folder
 * set up like the shipped ones — index.ts with a typed example handler, wrangler.toml with the
 * same settings, a README, and index.test.ts (run by `npm test`, calling the skill in workerd) —
 * plus the gateway's `[[services]]` binding to it (what `npm run deploy` registers it by) and the
 * regenerated binding types. `npm run dev` serves it at once (it watches skills/).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { SemverSchema, SkillNameSchema, TagSchema } from "../../src/skill/manifest.js";
import { bindingNameOf, workerNameOf } from "../mesh/bundle.js";

const run = promisify(execFile);

export interface NewSkillOptions {
  /** The skill's name (its JSON-RPC method and MCP tool): `greet`, `math.subtract`. */
  name: string;
  version?: string;
  tags?: string[];
  idempotent?: boolean;
}

export interface NewSkill {
  dir: string;
  workerName: string;
  binding: string;
  files: string[];
}

/** `math.subtract` → the folder `math-subtract` (its Worker and binding are named after it, as the mesh names them). */
export function namesOf(name: string): { folder: string; workerName: string; binding: string } {
  const folder = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return { folder, workerName: workerNameOf(folder), binding: bindingNameOf(folder) };
}

/**
 * The project a command runs in: the nearest folder up from `cwd` with a wrangler.toml and skills/.
 * @example projectRootFrom(process.cwd()) // "/home/me/skillmesh"
 */
export function projectRootFrom(cwd: string): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "wrangler.toml")) && existsSync(join(dir, "skills"))) return dir;
    if (dirname(dir) === dir) throw new Error("not inside a Skillmesh project (no folder up from here has wrangler.toml and skills/)");
  }
}

/**
 * Creates the skill's folder under `root`/skills and binds it to the gateway; refuses to overwrite.
 * @example await createSkill("/home/me/skillmesh", { name: "greet" })
 */
export async function createSkill(root: string, options: NewSkillOptions): Promise<NewSkill> {
  const name = SkillNameSchema.safeParse(options.name);
  if (!name.success) throw new Error(`${JSON.stringify(options.name)} is not a skill name: ${name.error.issues[0]?.message}`);
  const version = SemverSchema.safeParse(options.version ?? "1.0.0");
  if (!version.success) throw new Error(`${JSON.stringify(options.version)}: ${version.error.issues[0]?.message}`);
  for (const tag of options.tags ?? []) {
    const checked = TagSchema.safeParse(tag);
    if (!checked.success) throw new Error(`${JSON.stringify(tag)} is not a tag: ${checked.error.issues[0]?.message}`);
  }
  // A released name@version is one definition (the registry refuses another under it).
  const released = join(root, "contracts", name.data, `${version.data}.json`);
  if (existsSync(released)) {
    throw new Error(
      `${name.data}@${version.data} is already released (${relative(root, released)}): give the new skill another name, or --version for a new version of it`,
    );
  }
  const { folder, workerName, binding } = namesOf(name.data);
  if (!folder) throw new Error(`${JSON.stringify(options.name)} has no letters or digits to name a folder after`);
  const dir = join(root, "skills", folder);
  if (existsSync(dir)) throw new Error(`${relative(root, dir)} already exists`);
  const gatewayConfig = join(root, "wrangler.toml");
  const gatewayToml = readFileSync(gatewayConfig, "utf8");
  if (new RegExp(`^binding = "${binding}"$`, "m").test(gatewayToml)) throw new Error(`the gateway's wrangler.toml already has a binding ${binding}`);

  const skill = {
    name: name.data,
    version: version.data,
    tags: options.tags?.length ? options.tags : [name.data],
    idempotent: options.idempotent ?? false,
    workerName,
    folder,
  };
  mkdirSync(dir, { recursive: true });
  const files = {
    "index.ts": indexTs(skill),
    "index.test.ts": indexTestTs(skill),
    "wrangler.toml": wranglerToml(skill),
    "README.md": readme(skill),
  };
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  writeFileSync(gatewayConfig, withServiceBinding(gatewayToml, binding, workerName));
  // The gateway's Env type names every binding (`npm run typecheck` checks it is current).
  await run(
    process.execPath,
    [join(root, "node_modules/wrangler/bin/wrangler.js"), "types", "--include-runtime=false", "--path", "worker-configuration.d.ts"],
    { cwd: root },
  );
  return { dir, workerName, binding, files: [...Object.keys(files).map((file) => join(dir, file)), gatewayConfig, join(root, "worker-configuration.d.ts")] };
}

/** The gateway's wrangler.toml with one more `[[services]]` entry, after the last one (or at the end). */
export function withServiceBinding(toml: string, binding: string, service: string): string {
  const entry = `[[services]]\nbinding = "${binding}"\nservice = "${service}"\n`;
  const last = [...toml.matchAll(/^\[\[services\]\]\n(?:[^[\n].*\n)*/gm)].at(-1);
  if (!last) return `${toml.trimEnd()}\n\n${entry}`;
  const end = last.index + last[0].trimEnd().length + 1;
  return `${toml.slice(0, end)}\n${entry}${toml.slice(end)}`;
}

/** The template's example call: its test, its README and `skillmesh new`'s "Next:" all use it. */
export const EXAMPLE_PARAMS = { name: "Ada" } as const;

/**
 * The curl that calls a new skill: at the project's running mesh (its URL and key header) when
 * `npm run dev` runs, else at `fallbackUrl`.
 * @example exampleCurl("greet", "http://127.0.0.1:8790", true) // "curl -s http://127.0.0.1:8790/rpc … -H \"Authorization: Bearer $SKILLMESH_KEY\" …"
 */
export function exampleCurl(name: string, url: string, auth: boolean, separator = " "): string {
  const key = auth ? ` -H "Authorization: Bearer $SKILLMESH_KEY"` : "";
  return `curl -s ${url}/rpc -H 'content-type: application/json'${key}${separator}-d '${JSON.stringify({ jsonrpc: "2.0", method: name, params: EXAMPLE_PARAMS, id: 1 })}'`;
}

interface Template {
  name: string;
  version: string;
  tags: string[];
  idempotent: boolean;
  workerName: string;
  folder: string;
}

const indexTs = (s: Template) => `import { defineSkill, z } from "../../src/skill/index.js";

/**
 * ${s.name}: replace the example below with what the skill does. The description, the input's
 * field descriptions and the tags are what models and skills.discover see: write them for them.
 */
export default defineSkill({
  name: "${s.name}",
  version: "${s.version}",
  description: "Greets someone by name (an example: describe what the skill does, for the models that call it).",
  tags: ${JSON.stringify(s.tags)},
  input: z.object({
    name: z.string().min(1).max(100).describe("who to greet"),
  }),
  output: z.object({ greeting: z.string() }),
  idempotent: ${s.idempotent}, // true when a call is safe to repeat: the gateway may then retry it
  handler: async ({ name }, ctx) => {
    ctx.progress(1, 1, "greeted"); // no-op unless the caller asked for progress
    return { greeting: \`Hello, \${name}!\` };
  },
});
`;

const indexTestTs = (s: Template) => `import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSkill, startSkill } from "../../test/support/skill.js";

describe("${s.name} (workerd)", () => {
  let skill: RunningSkill;
  // The first run bundles the skill with wrangler: allow it more than vitest's default 10 s hook time.
  beforeAll(async () => (skill = await startSkill(fileURLToPath(new URL(".", import.meta.url)))), 120_000);
  afterAll(() => skill?.dispose());

  it("answers a call", async () => {
    const { result } = await skill.call(${JSON.stringify(EXAMPLE_PARAMS)});
    expect(result).toEqual({ greeting: "Hello, ${EXAMPLE_PARAMS.name}!" });
  });

  it("refuses input its schema rejects, saying which field", async () => {
    const { error } = await skill.call({ name: "" });
    expect(error).toMatchObject({ code: -32602, data: { issues: [expect.objectContaining({ path: "name" })] } });
  });
});
`;

const wranglerToml = (s: Template) => `name = "${s.workerName}"
main = "index.ts"
compatibility_date = "2026-04-01"
# ctx.signal also aborts when a caller disconnects from a streamed call.
compatibility_flags = ["enable_request_signal"]
# Smaller bundles parse faster on a cold isolate; source maps keep stack traces readable in logs.
minify = true
# No esbuild __name() wrappers: they run on every call of every closure (a few % of CPU per call).
keep_names = false
upload_source_maps = true
# Private: only the gateway reaches this skill, by service binding (no workers.dev or preview URL),
# so it may believe the caller context the gateway sends (X-Skillmesh-Context).
workers_dev = false
preview_urls = false

[vars]
SKILLMESH_TRUST_CONTEXT = "true"
`;

const readme = (s: Template) => `# ${s.name} ${s.version}

What the skill does, for the people who maintain it (models read the description in index.ts).

\`\`\`sh
${exampleCurl(s.name, "http://127.0.0.1:8787", false, " \\\n  ")}
\`\`\`

Run with the mesh: \`npm run dev\` (it reloads on save). Run alone:
\`npx wrangler dev -c skills/${s.folder}/wrangler.toml\`. Tests: \`index.test.ts\` (\`npx vitest run skills/${s.folder}\`).
Before releasing a version: \`npm run contracts\` and commit \`contracts/${s.name}/${s.version}.json\`.
`;
