/**
 * The benchmarks' trivial call — `subtract` (a - b), a fixture skill: what a hop costs when the
 * skill costs next to nothing — and a mesh that serves it through the gateway, auth on as deployed.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { KeyCreatedSchema } from "../../src/admin/api/index.js";
import { ROOT } from "../mesh/bundle.js";
import { type Mesh, type MeshOptions, adminCall, registerSkill, startMesh } from "../mesh/index.js";
import type { Side } from "./load.js";

/** The trivial skill's folder. */
export const SUBTRACT_DIR = join(ROOT, "test/fixtures/skills/subtract");
/** The bare pass-through Worker bound to the trivial skill: the floor of any hop. */
export const BARE_HOP_DIR = join(ROOT, "scripts/bench/bare-hop");
/** The trivial call, and its body as sent. */
export const TRIVIAL_CALL = { jsonrpc: "2.0", method: "subtract", params: [42, 23], id: 1 };
export const TRIVIAL = JSON.stringify(TRIVIAL_CALL);
/** The same call as an MCP `tools/call` (2025-11-25), its arguments by name. */
export const TRIVIAL_MCP = JSON.stringify({
  jsonrpc: "2.0",
  method: "tools/call",
  params: { name: "subtract", arguments: { minuend: 42, subtrahend: 23 } },
  id: 1,
});
/** The headers an MCP client of that revision sends with it. */
export const MCP_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };
/** The same tool call in the 2026-07-28 revision: its version in `_meta`, mirrored by headers. */
export const TRIVIAL_MCP_2026 = JSON.stringify({
  jsonrpc: "2.0",
  method: "tools/call",
  params: {
    name: "subtract",
    arguments: { minuend: 42, subtrahend: 23 },
    _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} },
  },
  id: 1,
});
export const MCP_2026_HEADERS = {
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "subtract",
};

/** A skill that declares MCP resources (the units fixture): `--route read` reads its table. */
export const UNITS_DIR = join(ROOT, "test/fixtures/skills/units");
/** A read of a skill's resource, and of an Agent Skills package's file, as MCP 2025-11-25 sends them. */
const READ_RESOURCE = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "units://table" } });
const READ_FILE = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "skill://bench-notes/SKILL.md" } });
const BENCH_NOTES =
  '---\nname: bench-notes\ndescription: A package the benchmark reads.\nmetadata:\n  version: "1.0.0"\n---\nCall subtract with two numbers; the answer is their difference.\n';

/** The trivial MCP upstream (no SDK: the floor of an upstream), federated as `trivial`. */
export const TRIVIAL_UPSTREAM_DIR = join(ROOT, "scripts/bench/trivial-upstream");
/**
 * The upstream's subtract on /rpc, as the skill `skill` (the name it is federated under, then `.subtract`).
 * @example federatedRpc("trivial.subtract")
 */
export const federatedRpc = (skill: string) => JSON.stringify({ jsonrpc: "2.0", method: skill, params: { minuend: 42, subtrahend: 23 }, id: 1 });

/**
 * Which route a trivial side calls: `/rpc` with the JSON-RPC call, `/mcp` with the tool call
 * (2025-11-25, or 2026-07-28), `fed`: `/rpc` with the same call of the federated tool
 * trivial.subtract (the trivial upstream's); or, for the reads, `/mcp` with a `resources/read` of a
 * skill's resource (`read`: units://table, from the skill's Worker) or of an Agent Skills
 * package's file (`file`: skill://bench-notes/SKILL.md, from the bucket).
 */
export type TrivialRoute = "rpc" | "mcp" | "mcp-2026" | "fed" | "read" | "file";
export const TRIVIAL_ROUTES: readonly TrivialRoute[] = ["rpc", "mcp", "mcp-2026", "fed", "read", "file"];

/** What a trivial mesh is started with: the mesh's own options, the route, and whether the bare hop runs beside it. */
type TrivialMeshOptions = Pick<MeshOptions, "gateway" | "inspectorPort" | "unminified" | "upstash"> & {
  route?: TrivialRoute;
  bareHop?: boolean;
  /** The trivial skill in the local dispatch namespace (registered by script name), not bound to the gateway. */
  dispatched?: boolean;
  /** Virtual servers to define, by name (`PUT /admin/servers/<name>`). */
  servers?: Record<string, unknown>;
  /** Upstreams to register (`POST /admin/upstreams`), each as the admin API takes it. */
  upstreams?: unknown[];
};
/** A started trivial mesh and the side that calls the skill through its gateway. */
type TrivialMesh = { mesh: Mesh; side: Side };

/**
 * A mesh of a gateway (the working tree's, or `options.gateway`) and the trivial skill, with a key
 * that may call it, and the side that makes the trivial call through that gateway (on `/rpc`, or
 * on `/mcp` with `route: "mcp"`). With `bareHop`, the bare pass-through Worker runs in the same
 * workerd, unregistered, and `bare` is the side that calls the skill through it.
 * @example const { mesh, side } = await startTrivialMesh("gateway", { unminified: true })
 */
export async function startTrivialMesh(name: string, options: TrivialMeshOptions & { bareHop: true }): Promise<TrivialMesh & { bare: Side }>;
export async function startTrivialMesh(name: string, options?: TrivialMeshOptions): Promise<TrivialMesh>;
export async function startTrivialMesh(name: string, options: TrivialMeshOptions = {}): Promise<TrivialMesh & { bare?: Side }> {
  const adminToken = randomBytes(16).toString("hex");
  const { route, bareHop, dispatched, servers = {}, upstreams = [], ...meshOptions } = options;
  const skills = [
    ...(dispatched ? [] : [SUBTRACT_DIR]),
    ...(bareHop ? [BARE_HOP_DIR] : []),
    ...(route === "fed" ? [TRIVIAL_UPSTREAM_DIR] : []),
    ...(route === "read" ? [UNITS_DIR] : []),
  ];
  const mesh = await startMesh({
    ...meshOptions,
    skills,
    ...(dispatched ? { dispatched: [SUBTRACT_DIR] } : {}),
    adminToken,
    register: false,
    gatewayVars: { SKILLMESH_AUTH: "required" },
  });
  try {
    const workerOf = (dir: string) => mesh.skills.find((skill) => skill.dir === dir)!;
    await registerSkill(mesh.gatewayUrl, adminToken, dispatched ? { dispatch: mesh.dispatched[0]!.script } : { binding: workerOf(SUBTRACT_DIR).binding });
    const { key } = KeyCreatedSchema.parse(await adminCall(mesh.gatewayUrl, adminToken, "POST", "/keys", { name: "bench", skills: ["*"] }));
    const authorization = `Bearer ${key}`;
    if (route === "fed")
      await adminCall(mesh.gatewayUrl, adminToken, "POST", "/upstreams", { kind: "mcp", name: "trivial", url: `${workerOf(TRIVIAL_UPSTREAM_DIR).url}/` });
    if (route === "read") await registerSkill(mesh.gatewayUrl, adminToken, { binding: workerOf(UNITS_DIR).binding });
    for (const [server, definition] of Object.entries(servers)) await adminCall(mesh.gatewayUrl, adminToken, "PUT", `/servers/${server}`, definition);
    for (const upstream of upstreams) await adminCall(mesh.gatewayUrl, adminToken, "POST", "/upstreams", upstream);
    if (route === "file")
      await adminCall(mesh.gatewayUrl, adminToken, "POST", "/agent-skills", { name: "bench-notes", files: [{ path: "SKILL.md", content: BENCH_NOTES }] });
    const side: Side =
      route === "read" || route === "file" ?
        { name, url: `${mesh.gatewayUrl}/mcp`, body: route === "read" ? READ_RESOURCE : READ_FILE, headers: () => ({ ...MCP_HEADERS, authorization }) }
      : route === "fed" ?
        {
          name,
          url: `${mesh.gatewayUrl}/rpc`,
          body: federatedRpc("trivial.subtract"),
          headers: () => ({ authorization }),
        }
      : route === "mcp" ? { name, url: `${mesh.gatewayUrl}/mcp`, body: TRIVIAL_MCP, headers: () => ({ ...MCP_HEADERS, authorization }) }
      : route === "mcp-2026" ? { name, url: `${mesh.gatewayUrl}/mcp`, body: TRIVIAL_MCP_2026, headers: () => ({ ...MCP_2026_HEADERS, authorization }) }
      : { name, url: `${mesh.gatewayUrl}/rpc`, body: TRIVIAL, headers: () => ({ authorization }) };
    await expectTrivialAnswer(side);
    if (!bareHop) return { mesh, side };
    const bare: Side = { name: "trivial-bare", url: workerOf(BARE_HOP_DIR).url, body: TRIVIAL, headers: () => ({}) };
    await expectTrivialAnswer(bare);
    return { mesh, side, bare };
  } catch (error) {
    await mesh.dispose();
    throw error;
  }
}

/**
 * Makes the side's call once and throws unless it is answered 19 (42 - 23): wrk counts any 200,
 * and an error answer (an MCP `isError` result is a 200) would be measured as if it were the call.
 */
async function expectTrivialAnswer(side: Side): Promise<void> {
  const response = await fetch(side.url, { method: "POST", headers: { "content-type": "application/json", ...side.headers() }, body: side.body });
  const answer = (await response.json()) as { result?: unknown };
  const read = (answer.result as { contents?: Array<{ text?: unknown }> } | undefined)?.contents?.[0]?.text;
  if (typeof read === "string" && read.length > 0) return; // a resource read answered its contents
  const result = answer.result as { structuredContent?: unknown; isError?: unknown } | number | undefined;
  const value =
    typeof result === "object" && result !== null && !result.isError ? (result.structuredContent as { result?: unknown } | undefined)?.result : result;
  if (value !== 19) throw new Error(`the trivial call through ${side.url} did not answer 19: ${JSON.stringify(answer).slice(0, 300)}`);
}
