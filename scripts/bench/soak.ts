/**
 * `npm run bench -- --soak [--rounds N] [--seconds N] [--redis]`: does the gateway isolate keep its
 * memory over many calls? One mesh (the gateway on the memory store, or with --redis the upstash
 * driver against a local redis-server; the trivial skill; auth on); each
 * round sends every kind of call a gateway serves — the trivial call (under wrk when installed),
 * MCP tools/call in both revisions and with a progress token, tools/list, an event-stream call,
 * a batch, and calls that fail (bad params, unknown method, malformed JSON) — and then reads the
 * isolate's JS heap after a full garbage collection. A leak shows as a heap that grows round
 * after round; a flat heap is what a gateway serving for days needs (Workers allow 128 MB).
 */
import { startLocalUpstash } from "../redis-rest/serve.js";
import { inspectGateway } from "./inspector.js";
import { type Side, empty, load } from "./load.js";
import { startTrivialMesh } from "./trivial.js";
import { hasWrk, wrkSides } from "./wrk.js";

const INSPECTOR_PORT = 9263;
const CONCURRENCY = 16;

/** Every kind of call the soak sends besides the trivial one, each with whether it must succeed. */
function callKinds(gatewayUrl: string, trivial: Side): Array<{ side: Side; succeeds: boolean }> {
  const auth = trivial.headers();
  const args = { minuend: 5, subtrahend: 3 };
  const mcp = (name: string, version: string, body: unknown, extra: Record<string, string> = {}): Side => ({
    name,
    url: `${gatewayUrl}/mcp`,
    body: JSON.stringify(body),
    headers: () => ({ accept: "application/json, text/event-stream", "mcp-protocol-version": version, ...auth, ...extra }),
  });
  const rpc = (name: string, body: unknown, extra: Record<string, string> = {}): Side => ({
    name,
    url: `${gatewayUrl}/rpc`,
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: () => ({ ...auth, ...extra }),
  });
  const toolCall = (params: Record<string, unknown> = {}) => ({
    jsonrpc: "2.0",
    method: "tools/call",
    params: { name: "subtract", arguments: args, ...params },
    id: 1,
  });
  const succeeding = [
    mcp("mcp 2025-11-25", "2025-11-25", toolCall()),
    mcp("mcp with progress", "2025-11-25", toolCall({ _meta: { progressToken: 7 } })),
    mcp(
      "mcp 2026-07-28",
      "2026-07-28",
      toolCall({ _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } }),
      { "mcp-method": "tools/call", "mcp-name": "subtract" },
    ),
    mcp("tools/list", "2025-11-25", { jsonrpc: "2.0", method: "tools/list", id: 1 }),
    rpc("event stream", trivial.body, { accept: "text/event-stream" }),
    rpc(
      "batch of 3",
      [1, 2, 3].map((id) => ({ jsonrpc: "2.0", method: "subtract", params: args, id })),
    ),
  ];
  const failing = [
    rpc("bad params", { jsonrpc: "2.0", method: "subtract", params: { minuend: "x" }, id: 1 }),
    rpc("unknown method", { jsonrpc: "2.0", method: "no.such.skill", id: 1 }),
    rpc("malformed JSON", "{not json"),
  ];
  return [...succeeding.map((side) => ({ side, succeeds: true })), ...failing.map((side) => ({ side, succeeds: false }))];
}

/** Runs the soak: `rounds` rounds after a warm-up one, `seconds` of the trivial call in each. */
export async function runSoak(rounds: number, seconds: number, redis: boolean): Promise<void> {
  const withWrk = await hasWrk();
  const store = redis ? "upstash → redis-server" : "memory";
  console.log(`Starting the mesh (store: ${store}; the trivial skill; auth on) …`);
  const local = redis ? await startLocalUpstash(undefined, { ownProcess: true }) : undefined;
  const { mesh, side } = await startTrivialMesh("trivial", { inspectorPort: INSPECTOR_PORT, upstash: local }).catch(async (error: unknown) => {
    await local?.stop();
    throw error;
  });
  try {
    const inspector = await inspectGateway(INSPECTOR_PORT, mesh.gatewayUrl);
    if (!inspector) throw new Error("could not reach the gateway isolate's inspector");
    const kinds = callKinds(mesh.gatewayUrl, side);
    let calls = 0;
    const round = async () => {
      if (withWrk) calls += seconds * (await wrkSides([side], { seconds, segments: 1, connections: CONCURRENCY })).get(side.name)!;
      else {
        const sample = empty();
        await load(side, seconds * 1000, sample, CONCURRENCY);
        calls += sample.requests;
      }
      for (const { side: kind, succeeds } of kinds) {
        const sample = empty();
        await load(kind, 1_500, sample, 8);
        calls += sample.requests;
        if (succeeds && sample.errors) throw new Error(`${kind.name}: ${sample.errors} of ${sample.requests} calls failed`);
      }
    };
    console.log(
      `Soak: ${rounds} rounds of ${seconds} s of the trivial call (${withWrk ? "wrk" : "Node fetch"}, ${CONCURRENCY} connections) and 1.5 s of each of: ${kinds.map((k) => k.side.name).join(", ")}\n`,
    );
    await round();
    const baseline = await inspector.heapMb();
    console.log(`after the warm-up round  ${String(Math.round(calls)).padStart(9)} calls   heap ${baseline.toFixed(2)} MB`);
    let last = baseline;
    for (let r = 1; r <= rounds; r++) {
      await round();
      last = await inspector.heapMb();
      console.log(`after round ${String(r).padEnd(12)} ${String(Math.round(calls)).padStart(9)} calls   heap ${last.toFixed(2)} MB`);
    }
    inspector.close();
    console.log(
      `\nheap growth since the warm-up: ${(last - baseline).toFixed(2)} MB over ${Math.round(calls)} calls (JS heap after a full GC; Workers allow 128 MB)`,
    );
  } finally {
    await mesh.dispose();
    await local?.stop();
  }
}
