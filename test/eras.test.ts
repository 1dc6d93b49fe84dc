/**
 * Every protocol era to every era: the official clients of both eras — the v1 SDK client
 * (2025-11-25, `initialize` and a session) and the v2 client pinned to 2026-07-28 (stateless) —
 * through the gateway to upstreams of both eras — server-everything (2025, sessions of its own)
 * and a v2-SDK server (2026-07-28, stateless). The most reported gateway bug of 2026 is a caller
 * of one era meeting an upstream of the other; here each of the four pairs lists, calls and reads
 * what it should. Then the faults a long-lived connection meets: the 2025 upstream forgets its
 * session mid-use (it restarts), and one upstream dies while the caller's other upstream keeps
 * serving, and comes back.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin } from "./support/fixtures.js";
import { type RunningProcess, startServerEverything, startV2Server } from "./support/processes.js";

let mesh: Mesh;
let everything: RunningProcess;
let stateless: RunningProcess;

beforeAll(async () => {
  [mesh, everything, stateless] = await Promise.all([startMesh({ skills: [], adminToken: ADMIN_TOKEN }), startServerEverything(), startV2Server("1")]);
  for (const upstream of [
    // Everything it serves: include/exclude would select its resources too.
    { kind: "mcp", name: "everything", url: `${everything.url}/mcp` },
    { kind: "mcp", name: "stateless", url: stateless.url, include: ["echo"] },
  ]) {
    const added = await admin(mesh.gatewayUrl, "POST", "/upstreams", upstream);
    expect(added.status, JSON.stringify(added.json)).toBe(201);
  }
}, 120_000);
afterAll(() => Promise.all([mesh?.dispose(), everything?.stop(), stateless?.stop()]));

/** What a test needs of a connected client, whichever SDK made it. */
interface Caller {
  era: string;
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(call: { name: string; arguments: Record<string, unknown> }): Promise<{ content?: unknown; isError?: boolean }>;
  listResources(): Promise<{ resources: Array<{ uri: string }> }>;
  readResource(read: { uri: string }): Promise<{ contents: Array<{ uri: string }> }>;
  close(): Promise<void>;
}

/** A client of `era`, connected to the gateway's `/mcp`. */
async function callerOf(era: "2025-11-25" | "2026-07-28"): Promise<Caller> {
  const url = new URL(`${mesh.gatewayUrl}/mcp`);
  if (era === "2025-11-25") {
    const client = new Client({ name: "eras-v1", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url));
    expect(client.getServerCapabilities()).toBeDefined();
    return Object.assign(client, { era }) as unknown as Caller;
  }
  const client = new ClientV2({ name: "eras-v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new TransportV2(url));
  expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
  return Object.assign(client, { era }) as unknown as Caller;
}

/** The text of a tool result's first content block. */
const textOf = (result: { content?: unknown }) => (result.content as Array<{ text?: string }>)[0]?.text;

const ERAS = ["2025-11-25", "2026-07-28"] as const;

describe.each(ERAS)("a %s caller", (era) => {
  it("calls the 2025 upstream (server-everything, with its own session) and reads its resources", async () => {
    const caller = await callerOf(era);
    try {
      const names = (await caller.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["everything.echo", "everything.get-sum", "stateless.echo"]));
      expect(textOf(await caller.callTool({ name: "everything.echo", arguments: { message: `from ${era}` } }))).toBe(`Echo: from ${era}`);
      expect(textOf(await caller.callTool({ name: "everything.get-sum", arguments: { a: 2, b: 3 } }))).toMatch(/\b5\b/);
      const { resources } = await caller.listResources();
      const document = resources.find((r) => r.uri.startsWith("demo://resource/static/document/"))!;
      expect((await caller.readResource({ uri: document.uri })).contents[0]).toMatchObject({ uri: document.uri });
    } finally {
      await caller.close();
    }
  });

  it("calls the 2026-07-28 upstream (the v2 SDK, stateless)", async () => {
    const caller = await callerOf(era);
    try {
      expect(textOf(await caller.callTool({ name: "stateless.echo", arguments: { message: `from ${era}` } }))).toBe(`v1: from ${era}`);
    } finally {
      await caller.close();
    }
  });
});

describe("faults mid-use", () => {
  it("the 2025 upstream forgets its session (it restarts) while callers of both eras are connected: their next calls open a new one", async () => {
    const callers = await Promise.all(ERAS.map(callerOf));
    try {
      for (const caller of callers) expect(textOf(await caller.callTool({ name: "everything.echo", arguments: { message: "before" } }))).toBe("Echo: before");
      const port = everything.port;
      await everything.stop();
      everything = await startServerEverything(port);
      for (const caller of callers)
        expect(textOf(await caller.callTool({ name: "everything.echo", arguments: { message: `after, ${caller.era}` } }))).toBe(`Echo: after, ${caller.era}`);
    } finally {
      await Promise.all(callers.map((c) => c.close()));
    }
  });

  it("one upstream dies: its tool fails cleanly, the other upstream keeps serving the same connected callers, and it serves again once back", async () => {
    const callers = await Promise.all(ERAS.map(callerOf));
    try {
      const port = stateless.port;
      await stateless.stop();
      for (const caller of callers) {
        const dead = await caller.callTool({ name: "stateless.echo", arguments: { message: "anyone?" } }).catch((error: Error) => error);
        // A tool result with isError, or a JSON-RPC error: either way a clean answer naming the upstream, not a hang.
        const said = dead instanceof Error ? dead.message : (expect(dead.isError).toBe(true), textOf(dead));
        expect(said).toMatch(/stateless|upstream|unavailable/i);
        expect(textOf(await caller.callTool({ name: "everything.echo", arguments: { message: "still here" } }))).toBe("Echo: still here");
        expect((await caller.listTools()).tools.map((t) => t.name)).toContain("everything.echo");
      }
      stateless = await startV2Server("1", port);
      for (const caller of callers) {
        // Its breaker may have opened on the failures: it closes after its open time, on a probe.
        let answer: string | undefined;
        for (let tries = 0; tries < 40 && answer === undefined; tries++) {
          const result = await caller.callTool({ name: "stateless.echo", arguments: { message: "back" } }).catch(() => undefined);
          if (result && !result.isError) answer = textOf(result);
          else await new Promise((r) => setTimeout(r, 250));
        }
        expect(answer).toBe("v1: back");
      }
    } finally {
      await Promise.all(callers.map((c) => c.close()));
    }
  }, 30_000);
});
