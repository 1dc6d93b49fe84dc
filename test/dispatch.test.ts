/**
 * Skills in a dispatch namespace, through the gateway in workerd: the local namespace of
 * `npm run dev` (src/federation/dispatch/local.ts, the runtime's Worker Loader over the mesh's script store)
 * behind the same call path as the `SKILL_NAMESPACE` binding on Cloudflare. A skill uploaded while
 * the mesh runs is callable without a restart, two dispatched versions split by group and roll
 * back, and a skill's requests reach only the hosts its manifest declares.
 */
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, bundleWorker } from "../scripts/mesh/bundle.js";
import { type Mesh, startMesh, workerOptionsOf } from "../scripts/mesh/index.js";
import { type Peer, startPeer } from "./support/hostile.js";
import { ADMIN_TOKEN, admin, eventually, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let mesh: Mesh;
let peer: Peer;

beforeAll(async () => {
  mesh = await startMesh({ skills: [], dispatched: [fixture("echo-v1")], adminToken: ADMIN_TOKEN });
  peer = await startPeer((_request, response) => response.end("hello from the peer"));
});
afterAll(async () => {
  await mesh?.dispose();
  await peer?.close();
});

const call = (method: string, params: unknown = {}, headers: Record<string, string> = {}) => wireOf(mesh.gatewayUrl).rpc(method, params, { headers });

const deploymentOf = async (id: string) => (await admin(mesh.gatewayUrl, "GET", "/deployments")).json.deployments.find((d: { id: string }) => d.id === id);

describe("a dispatched skill", () => {
  it("is registered by its script name and called through /rpc and /mcp", async () => {
    expect((await deploymentOf("test.echo@1.0.0")).endpoint).toEqual({ dispatch: "skill-echo-v1" });

    const answer = await call("test.echo");
    expect(answer.json.result).toEqual({ version: "1.0.0" });
    expect(answer.headers.get("x-skill-version")).toBe("test.echo@1.0.0");

    const mcp = await post(
      `${mesh.gatewayUrl}/mcp`,
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "test.echo", arguments: {} } },
      { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
    );
    expect(mcp.json.result.structuredContent).toEqual({ version: "1.0.0" });
  });

  it("uploaded while the mesh runs, is callable at once: no gateway restart, a sticky canary by group, a rollback", async () => {
    const before = (await admin(mesh.gatewayUrl, "GET", "/deployments")).json.deployments.map((d: { id: string }) => d.id);
    await mesh.dispatch(fixture("echo-v2"));
    // The in-memory store kept what it had: the gateway was not restarted.
    const after = (await admin(mesh.gatewayUrl, "GET", "/deployments")).json.deployments.map((d: { id: string }) => d.id);
    expect(after).toEqual([...before, "test.echo@2.0.0"].sort());

    expect((await admin(mesh.gatewayUrl, "POST", "/skills/test.echo/canary", { version: "2.0.0", groups: { beta: 100, "*": 50 } })).status).toBe(200);
    const versionOf = async (headers: Record<string, string>) => (await call("test.echo", {}, headers)).json.result.version as string;
    const seen = new Set<string>();
    for (let user = 0; user < 20; user++) {
      expect(await versionOf({ "x-user-group": "beta", "x-user-id": `u${user}` })).toBe("2.0.0");
      // Everyone else: half the users on each version, each user on the same one every time.
      const first = await versionOf({ "x-user-id": `u${user}` });
      expect(await versionOf({ "x-user-id": `u${user}` })).toBe(first);
      seen.add(first);
    }
    expect([...seen].sort()).toEqual(["1.0.0", "2.0.0"]);
    expect((await admin(mesh.gatewayUrl, "POST", "/skills/test.echo/rollback", {})).status).toBe(200);
    expect((await call("test.echo", {}, { "x-user-group": "beta" })).json.result.version).toBe("1.0.0");
  });

  it("runs as an async job on the gateway's Workflow like any skill", async () => {
    const accepted = await call("test.echo", {}, { prefer: "respond-async" });
    expect(accepted.headers.get("preference-applied")).toBe("respond-async");
    const { jobId } = accepted.json.result as { jobId: string };
    const done = await eventually(
      () => call("jobs.get", { jobId }),
      (answer) => answer.json.result?.status === "completed",
      10_000,
    );
    expect(done.json.result).toMatchObject({ status: "completed", result: { version: expect.any(String) }, deployment: expect.stringMatching(/^test\.echo@/) });
  });

  it("removed from the namespace, fails as unavailable (-32001), and cannot be registered", async () => {
    await mesh.dispatch(fixture("greet"));
    expect((await call("greet", { name: "Ada" })).json.result).toBeDefined();
    mesh.scripts.delete("skill-greet");
    const answer = await eventually(
      () => call("greet", { name: "Ada" }),
      (a) => a.json.error?.code === -32001,
      5_000,
    );
    expect(answer.json.error.code).toBe(-32001);
    expect(answer.json.error.message).toContain("not in the dispatch namespace");
    const refused = await admin(mesh.gatewayUrl, "POST", "/deployments", { endpoint: { dispatch: "skill-nowhere" } });
    expect(refused.status).toBe(502);
    expect((await admin(mesh.gatewayUrl, "POST", "/deployments", { endpoint: { dispatch: "Not A Script" } })).status).toBe(400);
  });
});

describe("a dispatched skill's breaker and fallback", () => {
  beforeAll(async () => {
    await mesh.dispatch(fixture("flaky-v1"));
    await mesh.dispatch(fixture("flaky-degraded"));
  });

  it("opens on the skill's failures, and the degraded deployment answers", async () => {
    // "poison" makes the handler throw whatever the mode (-32603: its own fault), one caller after another.
    let answer: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 20 && answer?.headers.get("x-skill-degraded") !== "1"; i++)
      answer = await call("test.flaky", { value: "poison" }, { authorization: `Bearer caller-${i}` });
    expect(answer!.headers.get("x-skill-degraded")).toBe("1");
    const breakers = (await admin(mesh.gatewayUrl, "GET", "/deployments")).json.breakers as Record<string, { state: string }>;
    expect(breakers["test.flaky@1.0.0"]?.state).toBe("open");
  });
});

describe("declared egress", () => {
  beforeAll(() => mesh.dispatch(fixture("fetcher")));

  it("lets a skill reach the host it declares", async () => {
    const answer = await call("test.fetcher", { url: `${peer.url}/` });
    expect(answer.json.result).toEqual({ status: 200, text: "hello from the peer" });
  });

  it("refuses any other host with 403, and audits it as the skill's", async () => {
    const answer = await call("test.fetcher", { url: `${peer.url.replace("127.0.0.1", "localhost")}/secret?token=abc` });
    expect(answer.json.result.status).toBe(403);
    expect(answer.json.result.text).toContain("localhost is not among the hosts test.fetcher@1.0.0 declares");
    const audit = await eventually(
      () => admin(mesh.gatewayUrl, "GET", "/audit?type=egress&skill=test.fetcher"),
      (a) => a.json.entries.length > 0,
    );
    expect(audit.json.entries[0]).toMatchObject({ type: "egress", deployment: "test.fetcher@1.0.0", method: "GET", host: "localhost" });
    // Never the path or the query: they may carry data.
    expect(JSON.stringify(audit.json.entries)).not.toContain("token=abc");
  });

  it("refuses a TCP socket (connect()), even to a declared host: declared egress is fetches only", async () => {
    // Neither runtime hands the refused CONNECT to code of the gateway's (workerd: "Incoming CONNECT
    // on a worker not supported" at the outbound; Cloudflare: no connect() beside an outbound
    // Worker), so it cannot be audited as a refused fetch is: docs/security.md says so.
    const answer = await call("test.fetcher", { url: "", connect: `${new URL(peer.url).host}` });
    expect(answer.json.result.text, JSON.stringify(answer.json)).toMatch(/^refused: .*CONNECT/);
  });

  it("is what the registered manifest says: its hosts and its limits", async () => {
    const fetcher = await deploymentOf("test.fetcher@1.0.0");
    expect(fetcher.manifest.egress).toEqual(["127.0.0.1"]);
    expect(fetcher.manifest.limits).toEqual({ cpuMs: 50, subRequests: 5 });
  });
});

describe("the dispatch namespace's outbound Worker on Cloudflare (workers/egress)", () => {
  // Miniflare cannot run a dispatch namespace here: the outbound Worker is started beside the
  // gateway as Cloudflare runs it, with the egress parameters a dispatch passes in its env.
  let miniflare: Miniflare;
  beforeAll(async () => {
    const [gateway, egress] = await Promise.all([bundleWorker(ROOT), bundleWorker(`${ROOT}/workers/egress`)]);
    miniflare = new Miniflare({
      workers: [
        {
          ...workerOptionsOf(gateway!, "gateway"),
          bindings: { SKILLMESH_ADMIN_TOKEN: ADMIN_TOKEN, SKILLMESH_STORE: "memory", SKILLMESH_AUTH: "off" },
          serviceBindings: {}, // its [[services]] name skills deployed on Cloudflare
        },
        {
          ...workerOptionsOf(egress!, "egress"),
          bindings: { skillmesh_egress: { deployment: "test.fetcher@1.0.0", hosts: ["127.0.0.1"] } },
          serviceBindings: { GATEWAY: { name: "gateway", entrypoint: "EgressAudit" } },
        },
      ],
    } as ConstructorParameters<typeof Miniflare>[0]);
  });
  afterAll(() => miniflare?.dispose());

  it("sends a declared host's request on, refuses another, and the gateway audits the refusal", async () => {
    const outbound = await miniflare.getWorker("egress");
    expect(await (await outbound.fetch(`${peer.url}/`)).text()).toBe("hello from the peer");
    const refused = await outbound.fetch(`${peer.url.replace("127.0.0.1", "localhost")}/x?secret=1`);
    expect(refused.status).toBe(403);
    const gateway = await miniflare.getWorker("gateway");
    const audit = await eventually(
      async () =>
        (await (await gateway.fetch("http://gateway/admin/audit?type=egress", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as any,
      (a) => a.entries?.length > 0,
    );
    expect(audit.entries).toEqual([expect.objectContaining({ type: "egress", deployment: "test.fetcher@1.0.0", method: "GET", host: "localhost" })]);
  });
});
