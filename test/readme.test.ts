/**
 * The README's tour, run top to bottom the way a reader runs it: every `sh` block from "A
 * 5-minute tour" up to "Write a new skill", in order, in bash, against `npm run dev` (with the
 * `long` fixture the async-jobs section asks for). What the text shows next to a block is
 * checked: the plain block that follows it (its output), and the `# {…}` and `# → …` comment
 * lines inside it (the answer of the command above). `…` stands for anything; times and runs of spaces are
 * compared loosely. A block marked `<!-- tour-test: skip (why) -->` is not run.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../scripts/mesh/bundle.js";

const run = promisify(execFile);
const README = readFileSync(join(ROOT, "README.md"), "utf8");
/** What the README's `export SKILLMESH_ADMIN_TOKEN=…` says to set before `npm run dev`. */
const TOUR_TOKEN = README.match(/export SKILLMESH_ADMIN_TOKEN=(\S+)/)![1]!;

interface TourBlock {
  /** The heading the block is under. */
  section: string;
  line: number;
  script: string;
  /** The plain block right after it: its output. */
  output?: string;
  skip?: string;
}

/** The tour's `sh` blocks in order, each with the output block that follows it. */
function tourBlocks(): TourBlock[] {
  const start = README.indexOf("## A 5-minute tour");
  const end = README.indexOf("### Write a new skill");
  const blocks: TourBlock[] = [];
  const fence = /^```(\w*)\n([\s\S]*?)^```\n/gm;
  for (let match = fence.exec(README); match; match = fence.exec(README)) {
    if (match.index < start || match.index > end) continue;
    const [, lang, body] = match as unknown as [string, string, string];
    const before = README.slice(0, match.index);
    if (lang === "" && blocks.length && before.endsWith(`${blocks.at(-1)!.script}\`\`\`\n`)) {
      blocks.at(-1)!.output = body;
      continue;
    }
    if (lang !== "sh") continue;
    const section = before.match(/^#{2,4} .+$/gm)!.at(-1)!;
    const skip = before.trimEnd().split("\n").at(-1)!.match(/^<!-- tour-test: skip \((.+)\) -->$/)?.[1];
    blocks.push({ section, line: before.split("\n").length, script: body, skip });
  }
  return blocks;
}

/** Loose text: one space for any run of spaces, `<time>` for a date and time. */
const loose = (text: string) => text.replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?Z?/g, "<time>").replace(/[ \t]+/g, " ").trim();

/**
 * A pattern for one expected line: literal text, `…` matching anything within a line (as little
 * as it can: curl prints answers without a newline, so several can share a line).
 */
const patternOf = (expected: string) => new RegExp(loose(expected).split("…").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*?"), "g");

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
  let output = "";
  // As the README says: the admin token exported before npm run dev, the `long` fixture for the jobs section.
  dev = spawn("npm", ["run", "dev", "--", "--port", "0", "--no-watch", "--skill", "test/fixtures/skills/long"], {
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
afterAll(() => {
  try {
    if (dev && dev.exitCode === null) process.kill(-dev.pid!, "SIGINT");
  } catch {}
});

describe("the README's tour, in order", () => {
  const blocks = tourBlocks();

  it("has its blocks where the test looks for them", () => {
    expect(blocks.length).toBeGreaterThan(10);
    expect(blocks.filter((b) => !b.skip).length).toBeGreaterThan(10);
  });

  for (const block of blocks) {
    const title = `${block.section.replace(/^#+ /, "")} (README.md:${block.line})`;
    if (block.skip) continue; // listed in the tour-test comments; nothing to run
    it(title, async () => {
      // The reader's 127.0.0.1:8787 is this mesh's port; the CLI finds it by SKILLMESH_URL.
      const script = block.script.replaceAll("http://127.0.0.1:8787", gatewayUrl);
      const { stdout, stderr } = await run("bash", ["-e", "-o", "pipefail", "-c", script], {
        cwd: ROOT,
        env: { ...process.env, SKILLMESH_URL: gatewayUrl, SKILLMESH_ADMIN_TOKEN: TOUR_TOKEN },
        timeout: 60_000,
      });
      const actual = `${stdout}\n${stderr}`;
      expectInOrder(actual, commentedAnswers(block.script), `${title}, its # answers`);
      if (block.output) expectInOrder(actual, block.output.split("\n"), `${title}, the output shown after it`);
    }, 90_000);
  }
});
