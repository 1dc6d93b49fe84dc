/**
 * The benchmarks' trivial call — `subtract` (a - b), a fixture skill: what a hop costs when the
 * skill costs next to nothing — and a mesh that serves it through the gateway, auth on as deployed.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { KeyCreatedSchema } from "../../src/admin-api/index.js";
import { ROOT } from "../mesh/bundle.js";
import { type Mesh, type MeshOptions, adminCall, registerSkill, startMesh } from "../mesh/index.js";
import type { Side } from "./load.js";

/** The trivial skill's folder. */
export const SUBTRACT_DIR = join(ROOT, "test/fixtures/skills/subtract");
/** The trivial call, and its body as sent. */
export const TRIVIAL_CALL = { jsonrpc: "2.0", method: "subtract", params: [42, 23], id: 1 };
export const TRIVIAL = JSON.stringify(TRIVIAL_CALL);
/** The same call as an MCP `tools/call` (2025-11-25), its arguments by name. */
export const TRIVIAL_MCP = JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { name: "subtract", arguments: { minuend: 42, subtrahend: 23 } }, id: 1 });
/** The headers an MCP client of that revision sends with it. */
export const MCP_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };

/** Which route a trivial side calls: `/rpc` with the JSON-RPC call, or `/mcp` with the tool call. */
export type TrivialRoute = "rpc" | "mcp";

/**
 * A mesh of a gateway (the working tree's, or `options.gateway`) and the trivial skill, with a key
 * that may call it, and the side that makes the trivial call through that gateway (on `/rpc`, or
 * on `/mcp` with `route: "mcp"`).
 * @example const { mesh, side } = await startTrivialMesh("gateway", { unminified: true })
 */
export async function startTrivialMesh(
  name: string,
  options: Pick<MeshOptions, "gateway" | "inspectorPort" | "unminified" | "upstash"> & { route?: TrivialRoute } = {},
): Promise<{ mesh: Mesh; side: Side }> {
  const adminToken = randomBytes(16).toString("hex");
  const mesh = await startMesh({ ...options, skills: [SUBTRACT_DIR], adminToken, register: false, gatewayVars: { SKILLMESH_AUTH: "required" } });
  try {
    await registerSkill(mesh.gatewayUrl, adminToken, { binding: mesh.skills[0]!.binding });
    const { key } = KeyCreatedSchema.parse(await adminCall(mesh.gatewayUrl, adminToken, "POST", "/keys", { name: "bench", skills: ["*"] }));
    const authorization = `Bearer ${key}`;
    const side: Side =
      options.route === "mcp"
        ? { name, url: `${mesh.gatewayUrl}/mcp`, body: TRIVIAL_MCP, headers: () => ({ ...MCP_HEADERS, authorization }) }
        : { name, url: `${mesh.gatewayUrl}/rpc`, body: TRIVIAL, headers: () => ({ authorization }) };
    await expectTrivialAnswer(side);
    return { mesh, side };
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
  const result = answer.result as { structuredContent?: unknown; isError?: unknown } | number | undefined;
  const value = typeof result === "object" && result !== null && !result.isError ? (result.structuredContent as { result?: unknown } | undefined)?.result : result;
  if (value !== 19) throw new Error(`the trivial call through ${side.url} did not answer 19: ${JSON.stringify(answer).slice(0, 300)}`);
}
