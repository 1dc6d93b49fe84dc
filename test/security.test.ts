/**
 * The security review's findings, each as a regression test in workerd: what a caller, a browser
 * page or an admin's registration must never be able to do to the gateway. The breaker, timeout
 * and idempotency findings are in security-store.test.ts. Two gateways: `prod` is configured as
 * deployed (no private or plain-http skill URLs) on Redis; `dev` as `npm run dev` runs it, with a
 * skill that does not trust the caller-context header.
 */
import { type Server, createServer } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { ROOT, skillDirs } from "../scripts/mesh/bundle.js";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { registrationEndpointOf } from "../scripts/mesh/deploy-plan.js";
import { ADMIN_TOKEN, admin, eventually, fixture, post, rawRequest } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let prod: Mesh;
let dev: Mesh;
const logs: string[] = [];

beforeAll(async () => {
  prod = await startMesh({
    skills: [...skillDirs(), fixture("subtract"), fixture("whoami")],
    adminToken: ADMIN_TOKEN,
    upstash: { url: inject("redisRestUrl"), token: inject("redisRestToken") },
    gatewayVars: { SKILLMESH_STORE_PREFIX: `security-${process.pid}:`, SKILLMESH_ALLOW_PRIVATE_ENDPOINTS: "false" },
    onLog: ({ level, message }) => logs.push(`${level} ${message}`),
  });
  dev = await startMesh({ skills: [fixture("whoami"), fixture("subtract")], adminToken: ADMIN_TOKEN, skillVars: { SKILLMESH_TRUST_CONTEXT: "false" } });
});
afterAll(async () => {
  await prod?.dispose();
  await dev?.dispose();
});

const rpc = (mesh: Mesh, method: string, params?: unknown, headers: Record<string, string> = {}) => wireOf(mesh.gatewayUrl).rpc(method, params, { headers });
const skillOf = (mesh: Mesh, name: string, version?: string) =>
  mesh.skills.find((s) => s.manifest.name === name && (!version || s.manifest.version === version))!;
/** A registration of `subtract`'s Worker under another manifest (a binding: no URL is fetched). */
const registerAs = (manifest: Record<string, unknown>) =>
  admin(prod.gatewayUrl, "POST", "/deployments", {
    endpoint: { binding: skillOf(prod, "subtract").binding },
    manifest: { ...skillOf(prod, "subtract").manifest, ...manifest },
  });

/** An HTTP server on loopback for the duration of a test; `hits` counts requests per path. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; hits: string[]; close: () => Promise<void> }> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    handler!(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("1. a handler failure caused by the input is the caller's (-32602)", () => {
  it("html.extract answers -32602 for markup its parser cannot take, and still extracts normal pages", async () => {
    const { json } = await rpc(prod, "html.extract", { html: '<svg><a href="x"/></svg>' });
    expect(json.error?.code ?? 0).not.toBe(-32603);
    const page = await rpc(prod, "html.extract", { html: '<title>T</title><p>Hello <a href="/a">there</a></p><svg><a href="x"/></svg>' });
    expect(page.json.result ?? page.json.error).toMatchObject({ title: "T" });
  });
});

describe("3. skills trust the caller-context header only when configured to", () => {
  it("a skill that does not trust its caller sees an empty context on a forged direct call", async () => {
    const forged = base64url({ userId: "admin", group: "staff", caller: "c_0123456789abcdef" });
    const { json } = await post(
      skillOf(dev, "test.whoami").url,
      { jsonrpc: "2.0", method: "test.whoami", id: 1 },
      {
        "x-skillmesh-context": forged,
        "x-user-id": "admin",
        "x-user-group": "staff",
      },
    );
    expect(json.result).toMatchObject({ userId: null, group: null, session: null, caller: "anonymous" });
  });

  it("a skill that trusts its caller gets the context through the gateway", async () => {
    const { json } = await rpc(prod, "test.whoami", {}, { "x-user-id": "alice", "x-user-group": "beta", authorization: "Bearer sk_a" });
    expect(json.result).toMatchObject({ userId: "alice", group: "beta", caller: expect.stringMatching(/^c_/) });
  });

  it("every shipped skill that trusts the header is unreachable from the internet and bound to the gateway", () => {
    const gateway = unstable_readConfig({ config: join(ROOT, "wrangler.toml") });
    const bound = new Set((gateway.services ?? []).map((s: { service: string }) => s.service));
    for (const dir of skillDirs()) {
      const config = unstable_readConfig({ config: join(dir, "wrangler.toml") });
      expect(config.vars?.SKILLMESH_TRUST_CONTEXT, dir).toBe("true");
      expect(config.workers_dev, dir).toBe(false);
      expect(config.preview_urls, dir).toBe(false);
      expect(bound.has(config.name!), `${dir}: the gateway's wrangler.toml has a [[services]] entry`).toBe(true);
    }
  });

  it("the deploy never registers a skill that trusts the header by URL", () => {
    const bindings = new Map([["skill-a", "SKILL_A"]]);
    expect(registrationEndpointOf({ name: "skill-a", trustsContext: true }, bindings, "https://a.example.workers.dev")).toEqual({ binding: "SKILL_A" });
    expect(() => registrationEndpointOf({ name: "skill-b", trustsContext: true }, bindings, "https://b.example.workers.dev")).toThrow(/service binding/);
    expect(registrationEndpointOf({ name: "skill-c", trustsContext: false }, bindings, "https://c.example.workers.dev")).toEqual({
      url: "https://c.example.workers.dev",
    });
  });
});

describe("5. text.summarize splits sentences in linear time", () => {
  // 100 KB each: quadratic splitting took about 9 s of CPU on the first, 18 s on the second.
  const inputs = ["Dr. ".repeat(25_000), `${".".repeat(100_000)}x`];

  it("the stable, the canary and the degraded deployment each answer well within their timeouts", async () => {
    expect((await admin(prod.gatewayUrl, "POST", "/skills/text.summarize/canary", { version: "2.0.0", groups: { beta: 100 } })).status).toBe(200);
    const lead = skillOf(prod, "text.summarize", "1.0.0-lead");
    for (const text of inputs) {
      const stable = await rpc(prod, "text.summarize", { text });
      expect(stable.json.result?.method).toBe("word-frequency");
      const canary = await rpc(prod, "text.summarize", { text }, { "x-user-group": "beta" });
      expect(canary.json.result?.method).toBe("textrank");
      // The degraded deployment is only reached through an open breaker: call it directly, within its own 2 s timeout.
      const direct = await fetch(lead.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", method: "text.summarize", params: { text }, id: 1 }),
        signal: AbortSignal.timeout(lead.manifest.timeoutMs),
      });
      expect(((await direct.json()) as any).result.method).toBe("lead");
    }
    await admin(prod.gatewayUrl, "POST", "/skills/text.summarize/rollback", {});
  });
});

describe("7. manifests have bounded schemas", () => {
  it("a schema nested 5,000 deep is refused at registration, and the registry keeps taking writes", async () => {
    const subtract = skillOf(prod, "subtract");
    const manifest = JSON.stringify({ ...subtract.manifest, name: "deep.schema", inputSchema: "DEEP" });
    const deep = `${'{"not":'.repeat(5_000)}{"type":"string"}${"}".repeat(5_000)}`; // 5,000 levels, built as text
    const body = `{"endpoint":{"binding":"${subtract.binding}"},"manifest":${manifest.replace('"DEEP"', deep)}}`;
    const refused = await post(`${prod.gatewayUrl}/admin/deployments`, body, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.json)).toMatch(/deep/);
    const after = await registerAs({ name: "after.deep" });
    expect(after.status).toBe(201);
    expect((await admin(prod.gatewayUrl, "DELETE", "/deployments/after.deep@1.0.0")).status).toBe(200);
  });
});

describe("8 and 11. names that are not plain data are refused; built-ins are not object properties", () => {
  it("refuses skill names that collide with object properties or built-in methods", async () => {
    for (const name of ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "skills.list", "skills.discover", "rpc.discover", "rpc.other"]) {
      const answer = await registerAs({ name });
      expect(answer.status, name).toBe(400);
    }
  });

  it("refuses group names that collide with object properties, and routing stays intact", async () => {
    expect((await registerAs({ version: "2.0.0" })).status).toBe(201);
    for (const group of ["__proto__", "constructor"]) {
      const answer = await post(`${prod.gatewayUrl}/admin/skills/subtract/canary`, `{"version":"2.0.0","groups":{"${group}":100}}`, {
        authorization: `Bearer ${ADMIN_TOKEN}`,
      });
      expect(answer.status, group).toBe(400);
    }
    for (const group of ["__proto__", "constructor", "toString", "beta"]) {
      expect((await rpc(prod, "subtract", [5, 3], { "x-user-group": group })).json.result, group).toBe(2);
    }
    expect((await fetch(`${prod.gatewayUrl}/healthz`)).status).toBe(200);
    expect((await admin(prod.gatewayUrl, "DELETE", "/deployments/subtract@2.0.0")).status).toBe(200);
  });

  it("inherited property names are unknown methods (-32601)", async () => {
    for (const method of ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf"]) {
      const { json } = await rpc(prod, method, { a: 1 });
      expect(json, method).toEqual({ jsonrpc: "2.0", error: { code: -32601, message: "Method not found" }, id: 1 });
    }
  });

  it("deleting an inherited property name is a 404 that writes nothing", async () => {
    const before = (await admin(prod.gatewayUrl, "GET", "/deployments")).json.revision;
    for (const id of ["toString", "constructor@1.0.0", "__proto__"]) {
      expect((await admin(prod.gatewayUrl, "DELETE", `/deployments/${id}`)).status, id).toBe(404);
    }
    expect((await admin(prod.gatewayUrl, "GET", "/deployments")).json.revision).toBe(before);
  });
});

describe("9. manifests have a size cap", () => {
  it("refuses a manifest over the cap, whether sent or fetched, and lists nothing of it", async () => {
    const huge = { type: "object", description: "x".repeat(600_000) };
    expect((await registerAs({ name: "huge.sent", inputSchema: huge })).status).toBe(400);

    const manifest = { ...skillOf(dev, "subtract").manifest, name: "huge.fetched", inputSchema: { type: "object", description: "x".repeat(5_000_000) } };
    const server = await serve((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(manifest)));
    try {
      const answer = await admin(dev.gatewayUrl, "POST", "/deployments", { endpoint: { url: server.url } });
      expect(answer.status).toBe(502);
    } finally {
      await server.close();
    }
    const list = await rpc(dev, "skills.list");
    expect(list.json.result.map((s: any) => s.name)).not.toContain("huge.fetched");
  });
});

describe("10. registration cannot be turned against private networks", () => {
  it("a deployed gateway refuses plain http, private, loopback, link-local and credentialed URLs before fetching", async () => {
    const urls = [
      "http://example.com/",
      "https://2130706433/",
      "https://0x7f.1/",
      "https://169.254.169.254/latest/",
      "https://10.1.2.3/",
      "https://[::1]/",
      "https://[::ffff:127.0.0.1]/",
      "https://localhost/",
      "https://api.localhost/",
      "https://metadata/",
      "https://user:pass@example.com/",
    ];
    for (const url of urls) {
      const answer = await admin(prod.gatewayUrl, "POST", "/deployments", { endpoint: { url } });
      expect(answer.status, url).toBe(400);
    }
  });

  it("the manifest fetch does not follow redirects", async () => {
    const target = await serve((_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(skillOf(dev, "subtract").manifest)),
    );
    const redirect = await serve((_req, res) => res.writeHead(307, { location: `${target.url}manifest` }).end());
    try {
      const answer = await admin(dev.gatewayUrl, "POST", "/deployments", { endpoint: { url: redirect.url } });
      expect(answer.status).toBe(502);
      expect(target.hits).toEqual([]);
    } finally {
      await Promise.all([target.close(), redirect.close()]);
    }
  });

  it("a forwarded call does not follow redirects: the body and context never reach the other host", async () => {
    const target = await serve((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","result":19,"id":1}'));
    const redirect = await serve((_req, res) => res.writeHead(307, { location: target.url }).end());
    try {
      const manifest = { ...skillOf(dev, "subtract").manifest, name: "redirected" };
      expect((await admin(dev.gatewayUrl, "POST", "/deployments", { endpoint: { url: redirect.url }, manifest })).status).toBe(201);
      const { json } = await rpc(dev, "redirected", [42, 23]);
      expect(json.error?.code).toBe(-32001);
      expect(target.hits).toEqual([]);
    } finally {
      await Promise.all([target.close(), redirect.close()]);
      await admin(dev.gatewayUrl, "DELETE", "/deployments/redirected@1.0.0");
    }
  });

  it("the error does not tell a closed port from an open one", async () => {
    const open = await serve((_req, res) => res.writeHead(404).end("nothing here"));
    const closed = await serve(() => {});
    await closed.close();
    try {
      const a = await admin(dev.gatewayUrl, "POST", "/deployments", { endpoint: { url: open.url } });
      const b = await admin(dev.gatewayUrl, "POST", "/deployments", { endpoint: { url: closed.url } });
      expect([a.status, b.status]).toEqual([502, 502]);
      expect(a.json.error.message.replace(open.url, "URL")).toBe(b.json.error.message.replace(closed.url, "URL"));
    } finally {
      await open.close();
    }
  });
});

describe("12. browser pages: Origin on every route, Host on a loopback gateway", () => {
  it("refuses a foreign Origin on /rpc, /healthz and /admin, and allows loopback pages and no Origin", async () => {
    const evil = { origin: "http://evil.example" };
    const call = await rpc(prod, "subtract", [5, 3], evil);
    expect(call.status).toBe(403);
    expect(call.json.error.code).toBe(-32600);
    expect((await fetch(`${prod.gatewayUrl}/healthz`, { headers: evil })).status).toBe(403);
    expect((await fetch(`${prod.gatewayUrl}/admin/deployments`, { headers: { ...evil, authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(403);
    expect((await rpc(prod, "subtract", [5, 3], { origin: "http://localhost:5173" })).json.result).toBe(2);
    expect((await rpc(prod, "subtract", [5, 3])).json.result).toBe(2);
  });

  it("a loopback gateway refuses a Host that is not loopback (DNS rebinding)", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", method: "subtract", params: [5, 3], id: 1 });
    const port = new URL(prod.gatewayUrl).port;
    const send = (host: string) => rawRequest(`${prod.gatewayUrl}/rpc`, { method: "POST", headers: { host, "content-type": "application/json" }, body });
    const rebound = await send(`evil.example:${port}`);
    expect(rebound.status).toBe(403);
    expect(rebound.json.error.code).toBe(-32600);
    expect((await rawRequest(`${prod.gatewayUrl}/healthz`, { headers: { host: "evil.example" } })).status).toBe(403);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) expect((await send(host)).json.result, host).toBe(2);
  });
});

describe("14. what an anonymous caller sees, and what the logs get", () => {
  it("/healthz tells anonymous callers only whether the gateway is up; the admin token shows the details", async () => {
    const anonymous = (await (await fetch(`${prod.gatewayUrl}/healthz`)).json()) as any;
    expect(anonymous).toEqual({ status: "ok" });
    const detailed = (await (await fetch(`${prod.gatewayUrl}/healthz`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as any;
    expect(detailed).toMatchObject({ status: "ok", store: { driver: "upstash", ok: true }, registry: { revision: expect.any(Number) } });
  });

  it("listings show skills, not their versions, roles or rollout", async () => {
    const listings = [
      (await rpc(prod, "skills.list")).json,
      (await rpc(prod, "skills.discover", { capability: "text*" })).json,
      (await rpc(prod, "rpc.discover")).json,
      (await post(`${prod.gatewayUrl}/mcp`, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-protocol-version": "2025-11-25" })).json,
    ];
    for (const listing of listings) {
      const text = JSON.stringify(listing);
      expect(text).toContain("text.summarize");
      expect(text).not.toMatch(/1\.0\.0-lead|2\.0\.0|"canary"|"degraded"|"stable"/);
    }
  });

  it("an upload the client aborts leaves no stack trace in the logs", async () => {
    const { port } = new URL(prod.gatewayUrl);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(
          `POST /rpc HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"jsonrpc":"2.0","method":"subtract","params":[`,
        );
        setTimeout(() => (socket.destroy(), resolve()), 100);
      });
      socket.on("error", reject);
    });
    expect((await rpc(prod, "subtract", [5, 3])).json.result).toBe(2);
    const noisy = await eventually(
      async () => logs.filter((line) => /unhandled|Network connection lost|\n\s+at /.test(line)),
      (found) => found.length > 0,
      1_500,
    );
    expect(noisy).toEqual([]);
  });
});

describe("6. tag globs match in linear time", () => {
  it("a pathological glob against a long tag answers at once", async () => {
    expect((await registerAs({ name: "glob.target", tags: ["a".repeat(64)] })).status).toBe(201);
    const { json } = await rpc(prod, "skills.discover", { capability: `${"*a".repeat(10)}*Z` });
    expect(json.result).toEqual([]);
    const match = await rpc(prod, "skills.discover", { capability: `${"*a".repeat(10)}*` });
    expect(match.json.result.map((s: any) => s.name)).toEqual(["glob.target"]);
  }, 20_000);
});
