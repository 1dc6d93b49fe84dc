/**
 * `npm run dev` as a user runs it: it prints the gateway URL, the README's first curl example
 * answers there, code mode answers the official MCP clients of both eras, and Ctrl-C (SIGINT) stops everything. Once on the memory store, once with --redis.
 * Then a skill author's first steps: `skillmesh new`, its tests, and a live edit under npm run dev.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ROOT, skillDirs } from "../scripts/mesh/bundle.js";
import { startLocalUpstash } from "../scripts/redis-rest/serve.js";
import { admin, eventually } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

const run = promisify(execFile);
const DEV_TOKEN = "dev-test-token-2026";

let child: ChildProcess | undefined;
afterEach(() => {
  // The group may be gone already (its exit not yet seen here): nothing left to kill then.
  if (child && child.exitCode === null) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** Starts `npm run dev -- <args>` in its own process group; resolves with the URL it prints. */
async function startDev(args: string[], env: Record<string, string> = {}): Promise<{ url: string; output: () => string }> {
  let output = "";
  child = spawn("npm", ["run", "dev", "--", "--port", "0", ...args], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, SKILLMESH_ADMIN_TOKEN: DEV_TOKEN, ...env },
  });
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm run dev printed no URL:\n${output}`)), 90_000);
    const poll = setInterval(() => {
      const match = output.match(/Skillmesh gateway: (http:\/\/\S+)/);
      if (match && output.includes("Ctrl-C")) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(match[1]!);
      }
      if (child!.exitCode !== null) {
        clearInterval(poll);
        clearTimeout(timer);
        reject(new Error(`npm run dev exited with ${child!.exitCode}:\n${output}`));
      }
    }, 50);
  });
  return { url, output: () => output };
}

/** Ctrl-C as a terminal sends it: SIGINT to the whole process group. */
async function stopDev(): Promise<void> {
  const exited = new Promise<void>((resolve) => child!.once("exit", () => resolve()));
  process.kill(-child!.pid!, "SIGINT");
  await exited;
}

describe("npm run dev", () => {
  it.each([
    ["memory", []],
    ["redis", ["--redis"]],
  ] as const)(
    "serves the README example on the %s store and stops on Ctrl-C",
    async (store, args) => {
      const { url, output } = await startDev([...args]);
      expect(output()).toContain(`store: ${store === "redis" ? "upstash" : "memory"}`);
      expect(output()).toMatch(/text\.summarize@2\.0\.0\s+canary 0%/);
      const answer = await wireOf(url).rpc("modbus.decode", { frame: "11 03 00 6B 00 03 76 87" });
      expect(answer.json.result).toMatchObject({ slave: 17, function: "Read Holding Registers", crc: { valid: true } });
      // Every folder of skills/ is listed, registered, and a tool (beside the built-in skills.call).
      const listed = [...output().matchAll(/^ {2}(\S+)@\S+\s+(?:stable|canary|degraded)/gm)].map((m) => m[1]!);
      expect(listed).toHaveLength(skillDirs().length);
      const tools = await wireOf(url).mcp2025("tools/list");
      expect(tools.json.result.tools.map((t: { name: string }) => t.name)).toEqual([...new Set([...listed, "skills.call"])].sort());
      // Code mode, from the official clients of both eras: one script, its calls through the gateway.
      const script = { code: 'async () => (await modbus.decode({ frame: "11 03 00 6B 00 03 76 87" })).slave' };
      const v1 = new Client({ name: "dev-code-mode-v1", version: "1.0.0" });
      await v1.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp?catalog=code`)));
      expect((await v1.callTool({ name: "code.execute", arguments: script })).structuredContent).toMatchObject({ result: 17, calls: 1 });
      await v1.close();
      const v2 = new ClientV2({ name: "dev-code-mode-v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      await v2.connect(new TransportV2(new URL(`${url}/mcp?catalog=code`)));
      expect((await v2.callTool({ name: "code.execute", arguments: script })).structuredContent).toMatchObject({ result: 17, calls: 1 });
      await v2.close();
      await stopDev();
      const listening = () =>
        fetch(`${url}/healthz`).then(
          () => "up",
          () => "down",
        );
      expect(await eventually(listening, (state) => state === "down", 5_000, 100)).toBe("down"); // nothing left listening
    },
    120_000,
  );
});

describe("npm run dev says what is wrong, and reads what it is given", () => {
  it("a busy port: one plain sentence with the fix, not workerd's stack trace", async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const failed = await run("npm", ["run", "dev", "--", "--port", String(port)], { cwd: ROOT }).catch((error) => error);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(
        `Port ${port} on 127.0.0.1 is in use (another npm run dev?). Stop it, or pick another port: npm run dev -- --port ${port + 1}`,
      );
      expect(`${failed.stdout}${failed.stderr}`).not.toMatch(/kj::Exception|stack:/);
    } finally {
      busy.close();
    }
  }, 60_000);

  it("UPSTASH_REDIS_REST_URL and _TOKEN in its environment: the mesh runs on that Redis", async () => {
    const redis = await startLocalUpstash();
    try {
      const { url, output } = await startDev(["--no-watch"], { UPSTASH_REDIS_REST_URL: redis.url, UPSTASH_REDIS_REST_TOKEN: redis.token });
      expect(output()).toContain(`store: upstash → ${redis.url} (UPSTASH_REDIS_REST_URL)`);
      const answer = await wireOf(url).rpc("modbus.decode", { frame: "11 03 00 6B 00 03 76 87" });
      expect(answer.json.result).toMatchObject({ slave: 17 });
      expect((await redis.client.keys("*")).length).toBeGreaterThan(0); // the registry lives there
      await stopDev();
      const half = await run("npm", ["run", "dev", "--", "--port", "0"], {
        cwd: ROOT,
        env: { ...process.env, UPSTASH_REDIS_REST_URL: redis.url, UPSTASH_REDIS_REST_TOKEN: "" },
      }).catch((error) => error);
      expect(half.stderr).toContain("UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN go together");
    } finally {
      await redis.stop();
    }
  }, 120_000);
});

describe("a new skill, from `skillmesh new` to a live edit", () => {
  // A scratch project beside the real one: the real skills/ must not change under the other
  // tests (and a user's own skill may be called greet: this one is scratch.greet). Its src/,
  // routes/, test/, scripts/ and node_modules are the real ones (symlinks).
  mkdirSync(join(ROOT, ".skillmesh"), { recursive: true });
  const project = mkdtempSync(join(ROOT, ".skillmesh", "new-skill-"));
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it("creates a skill that passes its own tests, is served by npm run dev, and reloads on save", async () => {
    for (const linked of ["src", "routes", "test", "scripts", "node_modules"]) symlinkSync(join(ROOT, linked), join(project, linked));
    for (const copied of ["wrangler.toml", "worker-configuration.d.ts", "tsconfig.json", "package.json"])
      copyFileSync(join(ROOT, copied), join(project, copied));
    mkdirSync(join(project, "skills"));

    const { stdout } = await run(process.execPath, [join(ROOT, "scripts/cli/skillmesh.mjs"), "new", "scratch.greet", "--tags", "greeting", "--tags", "demo"], {
      cwd: project,
    });
    expect(stdout).toContain("Created scratch.greet@1.0.0 in skills/scratch-greet/:");
    const dir = join(project, "skills", "scratch-greet");
    expect(readdirSync(dir).sort()).toEqual(["README.md", "index.test.ts", "index.ts", "wrangler.toml"]);
    // The same Worker settings as a shipped skill (minified, private), and the gateway binds it.
    const settings = (toml: string) =>
      toml
        .split("\n")
        .filter((line) => /^(compatibility_\w+|minify|keep_names|upload_source_maps|workers_dev|preview_urls|SKILLMESH_TRUST_CONTEXT) =/.test(line));
    expect(settings(readFileSync(join(dir, "wrangler.toml"), "utf8"))).toEqual(settings(readFileSync(join(ROOT, "skills/html-extract/wrangler.toml"), "utf8")));
    expect(readFileSync(join(project, "wrangler.toml"), "utf8")).toContain('[[services]]\nbinding = "SKILL_SCRATCH_GREET"\nservice = "skill-scratch-greet"\n');
    // Optional: the staging environment ([env.staging]) binds no skill.
    expect(readFileSync(join(project, "worker-configuration.d.ts"), "utf8")).toMatch(/SKILL_SCRATCH_GREET\??: Fetcher/);
    const again = await run(process.execPath, [join(ROOT, "scripts/cli/skillmesh.mjs"), "new", "scratch.greet"], { cwd: project }).catch((error) => error);
    expect(again.stderr).toContain("skills/scratch-greet already exists");

    // Its generated test passes as generated (in workerd).
    writeFileSync(join(project, "vitest.config.ts"), 'export default { test: { include: ["skills/**/*.test.ts"] } };\n');
    const tests = await run(process.execPath, [join(ROOT, "node_modules/vitest/vitest.mjs"), "run"], { cwd: project });
    expect(tests.stdout).toMatch(/Tests\s+.*2 passed/);

    // npm run dev serves it (the scratch project's skills/, and the shipped text.summarize); an
    // edit is served without a restart, and the registry survives it.
    // The project's Agent Skills package (agent-skills/ beside its skills/) uses the new skill.
    const pkg = join(project, "agent-skills", "greeting-style");
    mkdirSync(pkg, { recursive: true });
    const skillMd = (version: string, body: string) =>
      `---\nname: greeting-style\ndescription: Greet people warmly. Use when asked to greet someone.\nallowed-tools: scratch.greet\nmetadata:\n  version: "${version}"\n---\n${body}\n`;
    writeFileSync(join(pkg, "SKILL.md"), skillMd("1.0.0", "Greet with scratch.greet."));
    const { url, output } = await startDev([
      "--skills-dir",
      join(project, "skills"),
      "--skill",
      join(ROOT, "skills/text-summarize-v1"),
      "--skill",
      join(ROOT, "skills/text-summarize-v2"),
    ]);
    expect(output()).toContain(`Watching ${project.slice(ROOT.length + 1)}/skills/, ${project.slice(ROOT.length + 1)}/agent-skills/, src/ and routes/`);
    expect(output()).toMatch(/^ {2}greeting-style@1\.0\.0\s+1 file, tools: scratch\.greet$/m);
    const readSkillMd = async () => (await fetch(`${url}/.well-known/agent-skills/greeting-style/SKILL.md`)).text();
    expect(await readSkillMd()).toBe(skillMd("1.0.0", "Greet with scratch.greet."));
    // An edit under the same version is refused, as a deploy would refuse it; a new version is registered beside it.
    writeFileSync(join(pkg, "SKILL.md"), skillMd("1.0.0", "Greet with scratch.greet, by name."));
    await eventually(
      async () => output(),
      (text) => text.includes("greeting-style: POST /admin/agent-skills: HTTP 409 greeting-style@1.0.0 is registered with other files"),
      30_000,
      100,
    );
    writeFileSync(join(pkg, "SKILL.md"), skillMd("1.1.0", "Greet with scratch.greet, by name."));
    await eventually(
      async () => output(),
      (text) => /✓ greeting-style@1\.1\.0\s+1 file, tools: scratch\.greet\n/.test(text),
      30_000,
      100,
    );
    // It serves nobody yet: the output says so, and how to promote it.
    expect(output()).toContain("↳ a canary at 0%: callers still get 1.0.0. Promote it with");
    expect(output()).toContain(`/admin/agent-skills/greeting-style/promote`);
    const versions = await admin(url, "GET", "/agent-skills/greeting-style", undefined, DEV_TOKEN);
    expect(Object.keys(versions.json.versions).sort()).toEqual(["1.0.0", "1.1.0"]);
    const greet = async () => (await wireOf(url).rpc("scratch.greet", { name: "Ada" })).json;
    expect((await greet()).result).toEqual({ greeting: "Hello, Ada!" });
    const tools = await wireOf(url).rpc("skills.discover", { tags: ["greeting", "demo"] });
    expect(tools.json.result.map((s: { name: string }) => s.name)).toEqual(["scratch.greet"]);
    expect((await admin(url, "POST", "/skills/text.summarize/canary", { version: "2.0.0", groups: { beta: 30 } }, DEV_TOKEN)).status).toBe(200);

    // The first change is a new skill (it takes the place of text.summarize's Worker in the list):
    // served without a restart, on a port of its own, and its "Next:" curl is this mesh's.
    const reloads = () => output().split("✓ reloaded in").length;
    const beforeWave = reloads();
    const created = await run(process.execPath, [join(ROOT, "scripts/cli/skillmesh.mjs"), "new", "scratch.wave"], { cwd: project });
    expect(created.stdout).toContain(`the running npm run dev (${url}) serves it`);
    const curl = created.stdout
      .split("\n")
      .find((line) => line.trim().startsWith("curl "))!
      .trim();
    expect(curl).toContain(`curl -s ${url}/rpc`);
    const waved = await eventually(
      () =>
        run("sh", ["-c", curl]).then(
          ({ stdout }) => JSON.parse(stdout),
          () => undefined,
        ),
      (answer) => answer?.result !== undefined,
      60_000,
      250,
    );
    expect(waved.result).toEqual({ greeting: "Hello, Ada!" });
    expect(output()).not.toMatch(/Address already in use|kj::Exception/);
    expect((await greet()).result).toEqual({ greeting: "Hello, Ada!" });

    // The new skill answers before its reload has restored the registry and said so: the edit's
    // reload is told from that one by waiting for it first.
    await eventually(
      async () => reloads(),
      (count) => count > beforeWave,
      30_000,
      100,
    );
    const source = join(dir, "index.ts");
    const beforeEdit = reloads();
    writeFileSync(source, readFileSync(source, "utf8").replace("Hello, ", "Welcome, "));
    // While workerd restarts (a second or two) the port refuses connections: poll through it.
    const edited = await eventually(
      () => greet().catch(() => undefined),
      (answer) => answer?.result?.greeting === "Welcome, Ada!",
      60_000,
      250,
    );
    expect(edited.result).toEqual({ greeting: "Welcome, Ada!" });
    await eventually(
      async () => reloads(),
      (count) => count > beforeEdit,
      10_000,
      100,
    ); // the registry is restored
    const summarize = await admin(url, "GET", "/skills/text.summarize", undefined, DEV_TOKEN);
    expect(summarize.json.routes.beta).toEqual({ "1.0.0": 70, "2.0.0": 30 });

    // A file that does not bundle: said clearly, and the last good version keeps answering.
    writeFileSync(source, `${readFileSync(source, "utf8")}\nexport const broken = ;\n`);
    await eventually(
      async () => output(),
      (text) => text.includes("Still serving the last good version"),
      60_000,
      250,
    );
    expect(output()).toMatch(/✗ wrangler could not bundle .*scratch-greet\/wrangler\.toml: Build failed with 1 error:\n\s+✘ \[ERROR\] Unexpected ";"/);
    expect((await greet()).result).toEqual({ greeting: "Welcome, Ada!" });

    // Mended, then the new skill's folder removed: gone without a restart.
    const mended = reloads();
    writeFileSync(source, readFileSync(source, "utf8").replace("\nexport const broken = ;\n", ""));
    await eventually(
      async () => reloads(),
      (count) => count > mended,
      60_000,
      250,
    );
    const wave = async () => (await wireOf(url).rpc("scratch.wave", { name: "Bo" })).json;
    expect((await wave()).result).toEqual({ greeting: "Hello, Bo!" });
    rmSync(join(project, "skills", "scratch-wave"), { recursive: true });
    // Mid-reload every skill answers -32601 (the memory store restarted empty, the registry is being
    // restored): the reload is done when the removed skill is gone and the others answer again.
    const both = async () => ({ wave: await wave().catch(() => undefined), greet: await greet().catch(() => undefined) });
    const settled = await eventually(both, (answers) => answers.wave?.error !== undefined && answers.greet?.result !== undefined, 60_000, 250);
    expect(settled.wave.error.code).toBe(-32601);
    expect(settled.greet.result).toEqual({ greeting: "Welcome, Ada!" });
    // It said where it runs, for the project's other commands (skillmesh new), until it stopped.
    const state = join(project, ".skillmesh", "dev.json");
    expect(JSON.parse(readFileSync(state, "utf8"))).toMatchObject({ url, auth: false });
    await stopDev();
    // npm may exit before the dev process it runs has finished its own exit (which removes the file).
    expect(
      await eventually(
        async () => existsSync(state),
        (present) => !present,
        10_000,
        100,
      ),
    ).toBe(false);
  }, 300_000);
});

describe("npm run dev -- --dispatch", () => {
  // Its own skills folder beside skills/ (their imports of ../../src resolve the same), so that one
  // can be added; the first a link to skills/modbus-decode (the same Worker: its bundle is cached).
  const skillsDir = mkdtempSync(join(ROOT, "skills-dev-dispatch-"));
  symlinkSync(join(ROOT, "skills", "modbus-decode"), join(skillsDir, "modbus-decode"));
  mkdirSync(join(ROOT, ".skillmesh"), { recursive: true });
  const noPackages = mkdtempSync(join(ROOT, ".skillmesh", "dev-dispatch-packages-"));
  afterAll(() => {
    rmSync(skillsDir, { recursive: true, force: true });
    rmSync(noPackages, { recursive: true, force: true });
  });

  it("serves every skill from the local dispatch namespace, and a new skill folder without restarting the gateway", async () => {
    const { url, output } = await startDev(["--dispatch", "--skills-dir", skillsDir, "--agent-skills-dir", noPackages]);
    expect(output()).toMatch(/modbus\.decode@1\.0\.0\s+stable 100%\s+dispatched: skill-modbus-decode/);
    const decoded = await wireOf(url).rpc("modbus.decode", { frame: "11 03 00 6B 00 03 76 87" });
    expect(decoded.json.result).toMatchObject({ slave: 17 });
    // What only the running gateway holds (the memory store): a key made now.
    expect((await admin(url, "POST", "/keys", { name: "made-before", skills: ["*"] }, DEV_TOKEN)).status).toBe(201);

    cpSync(join(ROOT, "skills", "text-summarize-v1"), join(skillsDir, "text-summarize-v1"), { recursive: true });
    await eventually(
      () => Promise.resolve(output()),
      (text) => text.includes("uploaded as skill-text-summarize-v1"),
      60_000,
      200,
    );
    const summary = await wireOf(url).rpc("text.summarize", { text: "One. Two. Three.", sentences: 1 });
    expect(summary.json.result).toBeDefined();
    expect(summary.headers.get("x-skill-version")).toBe("text.summarize@1.0.0");
    // The gateway kept running: the key is still there, and nothing was reloaded.
    expect((await admin(url, "GET", "/keys", undefined, DEV_TOKEN)).json.keys.map((k: { name: string }) => k.name)).toContain("made-before");
    expect(output()).not.toContain("reloading");
    await stopDev();
  }, 120_000);
});
