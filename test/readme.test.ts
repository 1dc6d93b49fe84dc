/**
 * The README's tour and the guides, run top to bottom the way a reader runs them: every `sh`
 * block of the README's "A 5-minute tour", then of each guide in the order the README's "Where to
 * go next" gives (writing-skills.md up to "Write a new skill"), in bash, against one `npm run dev`
 * (with the `long` fixture the long-running guide asks for; the servers the federation guide
 * federates — server-everything twice, Prism, the MCP Apps map server, an A2A agent — started here on its ports). What the text shows next to a block is
 * checked: the plain block that follows it (its output), and the `# {…}` and `# → …` comment
 * lines inside it (the answer of the command above). `…` stands for anything; times and runs of spaces are
 * compared loosely. A block marked `<!-- tour-test: skip (why) -->` is not run.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../scripts/mesh/bundle.js";
import { type RunningProcess, startA2aAgentProcess, startMapServer, startPrism, startServerEverything } from "./support/processes.js";

const run = promisify(execFile);
const README = readFileSync(join(ROOT, "README.md"), "utf8");
/** What the README's `export SKILLMESH_ADMIN_TOKEN=…` says to set before `npm run dev`. */
const TOUR_TOKEN = README.match(/export SKILLMESH_ADMIN_TOKEN=(\S+)/)![1]!;

/** The documents whose examples run, in order, and the part of each that does. */
const TOUR: Array<{ file: string; from?: string; to?: string }> = [
  { file: "README.md", from: "## A 5-minute tour", to: "## Where to go next" },
  { file: "docs/guides/calling.md" },
  { file: "docs/guides/long-running.md" },
  { file: "docs/guides/operating.md" },
  { file: "docs/guides/traffic.md" },
  // What follows "Write a new skill" creates files and deploys: the tests of those commands run it.
  { file: "docs/guides/writing-skills.md", to: "## Write a new skill" },
  // Its servers to federate are started by this test, where the guide starts them (those blocks are skipped).
  { file: "docs/guides/federating.md" },
  { file: "docs/guides/agent-skills.md" },
  { file: "docs/guides/code-mode.md" },
];
/** The servers the federation guide starts, on the ports it names. */
const GUIDE_SERVERS = () => [
  startServerEverything(3901),
  startServerEverything(3902),
  startPrism(join(ROOT, "test/fixtures/openapi/petstore.yaml"), 4010),
  startMapServer(3903),
  startA2aAgentProcess(3904),
];
let guideServers: RunningProcess[] = [];

interface TourBlock {
  file: string;
  /** The heading the block is under. */
  section: string;
  line: number;
  script: string;
  /** The plain block right after it: its output. */
  output?: string;
  skip?: string;
}

/** A document's `sh` blocks between `from` and `to`, in order, each with the output block that follows it. */
function blocksOf({ file, from, to }: (typeof TOUR)[number]): TourBlock[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const start = from ? text.indexOf(from) : 0;
  const end = to ? text.indexOf(to) : text.length;
  if (start < 0 || end < 0) throw new Error(`${file} has no ${start < 0 ? from : to}`);
  const blocks: TourBlock[] = [];
  const fence = /^```(\w*)\n([\s\S]*?)^```\n/gm;
  for (let match = fence.exec(text); match; match = fence.exec(text)) {
    if (match.index < start || match.index > end) continue;
    const [, lang, body] = match as unknown as [string, string, string];
    const before = text.slice(0, match.index);
    if (lang === "" && blocks.length && before.endsWith(`${blocks.at(-1)!.script}\`\`\`\n`)) {
      blocks.at(-1)!.output = body;
      continue;
    }
    if (lang !== "sh") continue;
    const section = before.match(/^#{1,4} .+$/gm)!.at(-1)!;
    const skip = before
      .trimEnd()
      .split("\n")
      .at(-1)!
      .match(/^<!-- tour-test: skip \((.+)\) -->$/)?.[1];
    blocks.push({ file, section, line: before.split("\n").length, script: body, skip });
  }
  return blocks;
}

/** Loose text: one space for any run of spaces, `<time>` for a date and time. */
const loose = (text: string) =>
  text
    .replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?Z?/g, "<time>")
    .replace(/[ \t]+/g, " ")
    .trim();

/**
 * A pattern for one expected line: literal text, `…` matching anything within a line (as little
 * as it can: curl prints answers without a newline, so several can share a line).
 */
const patternOf = (expected: string) =>
  new RegExp(
    loose(expected)
      .split("…")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*?"),
    "g",
  );

/** The answers written under commands: `# {…}` / `# […]` (continuation lines `#   …` joined) and `# → text`. */
function commentedAnswers(script: string): string[] {
  const answers: string[] = [];
  for (const line of script.split("\n")) {
    if (/^# [{[]/.test(line)) answers.push(line.slice(2));
    else if (line.startsWith("# → ")) answers.push(line.slice(4));
    else if (/^# {3}\S/.test(line) && answers.length) answers[answers.length - 1] += line.slice(1).trim();
  }
  return answers;
}

/** Checks that every expected line is found in the output, each after the one before. */
function expectInOrder(actual: string, expected: string[], where: string): void {
  const text = actual.split("\n").map(loose).join("\n");
  let at = 0;
  for (const want of expected.map((line) => line.trim()).filter(Boolean)) {
    const pattern = patternOf(want);
    pattern.lastIndex = at;
    const found = pattern.exec(text);
    expect(found, `${where}: nothing in the output matches\n  ${want}\nafter character ${at} of the output:\n${actual}`).not.toBeNull();
    at = found!.index + found![0].length;
  }
}

let dev: ChildProcess | undefined;
let gatewayUrl = "";

beforeAll(async () => {
  guideServers = await Promise.all(GUIDE_SERVERS());
  let output = "";
  // As the README says: the admin token exported before npm run dev, the `long` fixture for the jobs section, `wipe` for code mode's approval.
  dev = spawn("npm", ["run", "dev", "--", "--port", "0", "--no-watch", "--skill", "test/fixtures/skills/long", "--skill", "test/fixtures/skills/wipe"], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, SKILLMESH_ADMIN_TOKEN: TOUR_TOKEN, UPSTASH_REDIS_REST_URL: "", UPSTASH_REDIS_REST_TOKEN: "" },
  });
  dev.stdout!.on("data", (chunk) => (output += chunk));
  dev.stderr!.on("data", (chunk) => (output += chunk));
  gatewayUrl = await new Promise<string>((resolve, reject) => {
    const poll = setInterval(() => {
      const url = output.match(/Skillmesh gateway: (http:\/\/\S+)/)?.[1];
      if (url && output.includes("Ctrl-C")) {
        clearInterval(poll);
        resolve(url);
      } else if (dev!.exitCode !== null) {
        clearInterval(poll);
        reject(new Error(`npm run dev exited:\n${output}`));
      }
    }, 50);
  });
}, 120_000);
afterAll(async () => {
  try {
    if (dev && dev.exitCode === null) process.kill(-dev.pid!, "SIGINT");
  } catch {
    // already gone
  }
  await Promise.all(guideServers.map((server) => server.stop()));
});

describe("the README's front page", () => {
  it("is a front page: under 400 lines, and it links every guide", () => {
    expect(README.split("\n").length).toBeLessThan(400);
    for (const guide of readdirSync(join(ROOT, "docs/guides"))) expect(README, guide).toContain(`](docs/guides/${guide})`);
  });

  it("names the guides the tour test runs, in the order it runs them", () => {
    const next = README.slice(README.indexOf("## Where to go next"));
    const linked = [...next.matchAll(/\]\((docs\/guides\/[\w-]+\.md)\)/g)].map((m) => m[1]);
    const run = TOUR.slice(1).map((doc) => doc.file);
    expect(linked.filter((file) => run.includes(file!))).toEqual(run);
  });
});

describe("the README's tour and the guides, in order", () => {
  const blocks = TOUR.flatMap(blocksOf);

  it("has its blocks where the test looks for them", () => {
    for (const { file } of TOUR) expect(blocks.filter((b) => b.file === file && !b.skip).length, file).toBeGreaterThan(0);
    expect(blocks.filter((b) => !b.skip).length).toBeGreaterThan(20);
  });

  for (const block of blocks) {
    const title = `${block.section.replace(/^#+ /, "")} (${block.file}:${block.line})`;
    if (block.skip) continue; // listed in the tour-test comments; nothing to run
    it(
      title,
      async () => {
        // The reader's 127.0.0.1:8787 is this mesh's port; the CLI finds it by SKILLMESH_URL.
        // `npx skillmesh` is node_modules/.bin/skillmesh, scripts/cli/skillmesh.mjs: run here as npx
        // would, without npx's own lookup (1.3 s of CPU a call, ~40 s over the tour).
        const npx = `npx() { if [ "$1" = skillmesh ]; then shift; "${process.execPath}" "${join(ROOT, "scripts/cli/skillmesh.mjs")}" "$@"; else command npx "$@"; fi; }`;
        const script = `${npx}\n${block.script.replaceAll("http://127.0.0.1:8787", gatewayUrl)}`;
        const { stdout, stderr } = await run("bash", ["-e", "-o", "pipefail", "-c", script], {
          cwd: ROOT,
          env: { ...process.env, SKILLMESH_URL: gatewayUrl, SKILLMESH_ADMIN_TOKEN: TOUR_TOKEN },
          timeout: 60_000,
        });
        const actual = `${stdout}\n${stderr}`;
        expectInOrder(actual, commentedAnswers(block.script), `${title}, its # answers`);
        if (block.output) expectInOrder(actual, block.output.split("\n"), `${title}, the output shown after it`);
      },
      90_000,
    );
  }
});
