/**
 * The gateway as an OAuth 2.1 resource server, end to end with real parts: `oauth2-mock-server`
 * as the authorization server (real keys, JWKS, discovery, client_credentials) and the official
 * MCP v2 client with `ClientCredentialsProvider`, which finds the authorization server from the
 * gateway's 401 (Protected Resource Metadata), gets a token for the gateway's resource URL and
 * calls a tool. Tokens for another audience, expired, from another issuer or granting nothing
 * are refused.
 */
import { createServer } from "node:net";
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { OAuth2Server } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

let issuer: OAuth2Server;
/** A second issuer the gateway trusts: its subjects are other callers than the first one's. */
let twin: OAuth2Server;
let stranger: OAuth2Server;
let mesh: Mesh;
let resource: string;
/** What clients sent to the token endpoint. */
const tokenRequests: Array<Record<string, string>> = [];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startIssuer(): Promise<OAuth2Server> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(0, "127.0.0.1");
  server.issuer.url = `http://127.0.0.1:${server.address().port}`;
  // A real authorization server puts the requested resource (RFC 8707) in `aud` and the client in `sub`.
  server.service.on("beforeTokenSigning", (token, req) => {
    const body = (req as unknown as { body: Record<string, string> }).body;
    tokenRequests.push(body);
    const basic = req.headers.authorization?.match(/^Basic (.+)$/)?.[1];
    token.payload.aud = body.resource;
    token.payload.sub = basic ? Buffer.from(basic, "base64").toString().split(":")[0] : body.client_id;
  });
  return server;
}

beforeAll(async () => {
  issuer = await startIssuer();
  twin = await startIssuer();
  stranger = await startIssuer();
  // The resource URL names the gateway's port, so the port is picked first; another test file's
  // workerd may take it before this one binds it: then pick another.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    try {
      mesh = await startMesh({
        skills: [fixture("subtract"), fixture("sum"), fixture("whoami")],
        adminToken: ADMIN_TOKEN,
        port,
        gatewayVars: {
          SKILLMESH_AUTH: "required",
          SKILLMESH_OAUTH_ISSUERS: `${issuer.issuer.url!},${twin.issuer.url!}`,
          SKILLMESH_RESOURCE_URL: resource,
          SKILLMESH_OAUTH_QUOTA: "25/day",
        },
      });
      break;
    } catch (error) {
      if (attempt >= 3 || !/ERR_ADDRESS_IN_USE|Address already in use/.test(String((error as { code?: string }).code ?? error))) throw error;
    }
  }
});
afterAll(async () => {
  await mesh?.dispose();
  await issuer?.stop();
  await twin?.stop();
  await stranger?.stop();
});

const token = (server: OAuth2Server, claims: Record<string, unknown>, expiresIn = 3600) =>
  server.issuer.buildToken({
    expiresIn,
    scopesOrTransform: (_header, payload) => Object.assign(payload, { aud: resource, sub: "agent-9", scope: "skill:*", ...claims }),
  });
const listTools = (bearer?: string) => wireOf(new URL(resource).origin).mcp2025("tools/list", {}, { key: bearer, path: new URL(resource).pathname });

describe("discovery", () => {
  it("publishes Protected Resource Metadata and points to it from the 401", async () => {
    const unauthenticated = await listTools();
    expect(unauthenticated.status).toBe(401);
    const challenge = unauthenticated.headers.get("www-authenticate")!;
    const metadataUrl = `http://127.0.0.1:${new URL(resource).port}/.well-known/oauth-protected-resource/mcp`;
    expect(challenge).toContain(`resource_metadata="${metadataUrl}"`);
    expect(challenge).toContain('scope="skill:*"');
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource, authorization_servers: [issuer.issuer.url, twin.issuer.url], bearer_methods_supported: ["header"] });
    expect((await fetch(`http://127.0.0.1:${new URL(resource).port}/.well-known/oauth-protected-resource`)).status).toBe(200);
  });
});

describe("the official MCP v2 client with client credentials", () => {
  it("discovers the authorization server, gets a token for this resource and calls a tool within its scope", async () => {
    const authProvider = new ClientCredentialsProvider({ clientId: "agent-7", clientSecret: "secret-7", expectedIssuer: issuer.issuer.url! });
    const client = new Client({ name: "oauth-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider }));
    try {
      // It asked for this resource and the scope the 401 named.
      expect(tokenRequests.at(-1)).toMatchObject({ grant_type: "client_credentials", resource, scope: "skill:*" });
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name).sort()).toEqual(["skills.call", "subtract", "sum", "test.whoami"]);
      const result = await client.callTool({ name: "subtract", arguments: { minuend: 42, subtrahend: 23 } });
      expect(result.structuredContent).toEqual({ result: 19 });
      expect(authProvider.tokens()?.access_token).toMatch(/^eyJ/);
    } finally {
      await client.close();
    }
  });
});

describe("refused tokens", () => {
  it("accepts a valid token, and maps its subject to the caller", async () => {
    const ok = await listTools(await token(issuer, {}));
    expect(ok.status).toBe(200);
    expect(ok.json.result.tools.map((t: { name: string }) => t.name).sort()).toEqual(["skills.call", "subtract", "sum", "test.whoami"]);
  });

  it("maps the token's scopes to grants: only the skills they name", async () => {
    const narrow = await listTools(await token(issuer, { scope: "openid skill:subtract tag:nothing" }));
    // skills.call is listed to everyone: it routes only within the caller's grants.
    expect(narrow.json.result.tools.map((t: { name: string }) => t.name)).toEqual(["skills.call", "subtract"]);
  });

  it("refuses a token for another audience, an expired one and one from another issuer: 401 invalid_token", async () => {
    const cases = {
      "wrong audience": await token(issuer, { aud: "https://other.example.com/mcp" }),
      expired: await token(issuer, {}, -3_600),
      "wrong issuer": await token(stranger, {}),
      "not a token": "eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.",
    };
    for (const [what, bearer] of Object.entries(cases)) {
      const answer = await listTools(bearer);
      expect(answer.status, what).toBe(401);
      expect(answer.headers.get("www-authenticate"), what).toContain('error="invalid_token"');
      expect(answer.json.error.code, what).toBe(-32006);
    }
  });

  it("answers 403 insufficient_scope for a token that grants no skill", async () => {
    const answer = await listTools(await token(issuer, { scope: "openid profile" }));
    expect(answer.status).toBe(403);
    expect(answer.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect(answer.headers.get("www-authenticate")).toContain('scope="skill:*"');
  });

  it("gives a skill the token's subject as the caller, never the token", async () => {
    const bearer = await token(issuer, {});
    const answer = await post(
      `http://127.0.0.1:${new URL(resource).port}/rpc`,
      { jsonrpc: "2.0", method: "test.whoami", params: {}, id: 1 },
      { authorization: `Bearer ${bearer}` },
    );
    expect(answer.json.result.caller).toMatch(/^o:agent-9@[0-9a-f]{8}$/);
    expect(answer.text).not.toContain(bearer.split(".")[2]);
  });
});

describe("OAuth callers are callers like any other", () => {
  const rpcOf = (bearer: string, method: string, params: unknown, headers: Record<string, string> = {}) =>
    wireOf(new URL(resource).origin).rpc(method, params, { key: bearer, headers });

  it("the same subject at two trusted issuers is two callers: alice of one never sees the jobs of alice of the other", async () => {
    const [aliceA, aliceB] = [await token(issuer, { sub: "alice" }), await token(twin, { sub: "alice" })];
    const [idA, idB] = [(await rpcOf(aliceA, "test.whoami", {})).json.result.caller, (await rpcOf(aliceB, "test.whoami", {})).json.result.caller];
    expect(idA).not.toBe(idB);
    const submitted = await rpcOf(aliceA, "subtract", [5, 3], { prefer: "respond-async" });
    const { jobId } = submitted.json.result;
    expect(jobId).toMatch(/^j_/);
    expect((await rpcOf(aliceA, "jobs.list", {})).json.result.jobs.map((j: { jobId: string }) => j.jobId)).toContain(jobId);
    expect((await rpcOf(aliceB, "jobs.list", {})).json.result.jobs).toEqual([]);
    expect((await rpcOf(aliceB, "jobs.get", { jobId })).json.error.code).toBe(-32602);
  });

  it("are held to SKILLMESH_OAUTH_QUOTA, each subject on its own", async () => {
    const metered = await token(issuer, { sub: "metered-subject" });
    for (let i = 0; i < 25; i++) expect((await rpcOf(metered, "subtract", [i, 1])).json.result, `call ${i + 1}`).toBe(i - 1);
    const refused = await rpcOf(metered, "subtract", [1, 1]);
    expect(refused.json.error).toMatchObject({ code: -32005, data: { limit: "quota" } });
    expect(refused.headers.get("ratelimit-policy")).toBe('"quota";q=25;w=86400');
    // Another subject has its own quota.
    expect((await rpcOf(await token(issuer, { sub: "another-subject" }), "subtract", [2, 1])).json.result).toBe(1);
  });
});
