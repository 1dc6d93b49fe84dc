/**
 * Upstream identity by token exchange (RFC 8693): the gateway, an OAuth resource server trusting
 * `oauth2-mock-server` as its callers' issuer, exchanges each caller's access token at a token
 * endpoint made with `@jmondi/oauth2-server` (an OAuth 2 server library whose token-exchange grant
 * implements RFC 8693; the test decides, as its `processTokenExchange`, whose token it accepts: a
 * signature check against the caller issuer's JWKS) for a token the upstream — the v2-SDK fixture
 * server, whose `whoami` tells which credential reached it — receives instead. Each caller gets
 * its own, kept until it expires; a caller with nothing to exchange is told why.
 */
import { serve } from "@hono/node-server";
import { AuthorizationServer, DateInterval, JwtService, type OAuthClient, OAuthException, type OAuthScope, type OAuthToken } from "@jmondi/oauth2-server";
import { handleVanillaError, requestFromVanilla, responseToVanilla } from "@jmondi/oauth2-server/vanilla";
import { Hono } from "hono";
import { createRemoteJWKSet, decodeJwt, jwtVerify } from "jose";
import { OAuth2Server } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";
import { type RunningProcess, startV2Server } from "./support/processes.js";

const RESOURCE = "https://mesh.test/mcp";
const UPSTREAM_AUDIENCE = "https://fixture.test";
const CLIENT = { id: "skillmesh-gateway", secret: "exchange-client-secret" };

let issuer: OAuth2Server;
let exchange: ReturnType<typeof serve>;
let exchangeUrl: string;
let upstream: RunningProcess;
let mesh: Mesh;
/** What the token endpoint was asked: each exchange's form. */
const exchanges: Array<Record<string, string>> = [];

/** The token endpoint: @jmondi/oauth2-server with the token-exchange grant, over Hono on Node. */
async function startExchange(): Promise<void> {
  const client: OAuthClient = {
    id: CLIENT.id,
    name: "Skillmesh gateway",
    secret: CLIENT.secret,
    redirectUris: [],
    allowedGrants: ["urn:ietf:params:oauth:grant-type:token-exchange"],
    scopes: [{ name: "fixture:call" }],
  };
  const server = new AuthorizationServer(
    {
      getByIdentifier: async (id) => {
        if (id !== client.id) throw new Error("unknown client");
        return client;
      },
      isClientValid: async (grant, known, secret) => known.id === client.id && secret === client.secret && known.allowedGrants.includes(grant),
    },
    {
      issueToken: async (owner, scopes, user): Promise<OAuthToken> => ({
        accessToken: "",
        accessTokenExpiresAt: new DateInterval("1h").getEndDate(),
        client: owner,
        user: user ?? null,
        scopes,
      }),
      issueRefreshToken: async (token) => token,
      persist: async () => {},
      revoke: async () => {},
      isRefreshTokenRevoked: async () => true,
      getByRefreshToken: async () => {
        throw new Error("no refresh tokens");
      },
    },
    {
      getAllByIdentifiers: async (names): Promise<OAuthScope[]> => names.map((name) => ({ name })),
      finalize: async (scopes) => scopes,
    },
    new JwtService("exchanged-token-signing-key"),
    { issuer: "https://exchange.test", requiresS256: true },
  );
  const jwks = createRemoteJWKSet(new URL(`${issuer.issuer.url!}/jwks`));
  server.enableGrantType({
    grant: "urn:ietf:params:oauth:grant-type:token-exchange",
    // The caller's token must be the caller issuer's, for the gateway: then it stands for its subject.
    processTokenExchange: async ({ subjectToken, audience }) => {
      const { payload } = await jwtVerify(subjectToken, jwks, { issuer: issuer.issuer.url!, audience: RESOURCE }).catch(() => ({ payload: undefined }));
      if (!payload?.sub || payload.sub === "blocked-agent") throw OAuthException.invalidGrant("this subject may not act at the upstream");
      return { id: payload.sub, audience };
    },
  });
  const app = new Hono().post("/token", async (c) => {
    const form = Object.fromEntries(new URLSearchParams(await c.req.raw.clone().text()));
    exchanges.push(form);
    try {
      return responseToVanilla(await server.respondToAccessTokenRequest(await requestFromVanilla(c.req.raw)));
    } catch (error) {
      return responseToVanilla(handleVanillaError(error));
    }
  });
  await new Promise<void>((resolve) => {
    exchange = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
      exchangeUrl = `http://127.0.0.1:${info.port}/token`;
      resolve();
    });
  });
}

beforeAll(async () => {
  issuer = new OAuth2Server();
  await issuer.issuer.keys.generate("RS256");
  await issuer.start(0, "127.0.0.1");
  issuer.issuer.url = `http://127.0.0.1:${issuer.address().port}`;
  await startExchange();
  // The token endpoint is a security token service apart from the callers' issuer: its operator names it in the gateway's configuration.
  [upstream, mesh] = await Promise.all([
    startV2Server("1"),
    startMesh({
      skills: [],
      adminToken: ADMIN_TOKEN,
      gatewayVars: {
        SKILLMESH_AUTH: "required",
        SKILLMESH_OAUTH_ISSUERS: issuer.issuer.url,
        SKILLMESH_RESOURCE_URL: RESOURCE,
        SKILLMESH_TOKEN_EXCHANGE_URLS: exchangeUrl,
      },
    }),
  ]);
  const added = await admin(mesh.gatewayUrl, "POST", "/upstreams", {
    kind: "mcp",
    name: "fixture",
    url: upstream.url,
    include: ["whoami"],
    auth: {
      type: "token-exchange",
      tokenUrl: exchangeUrl,
      clientId: CLIENT.id,
      clientSecret: CLIENT.secret,
      audience: UPSTREAM_AUDIENCE,
      scope: "fixture:call",
    },
  });
  expect(added.status, JSON.stringify(added.json)).toBe(201);
}, 120_000);
afterAll(async () => {
  await Promise.all([mesh?.dispose(), upstream?.stop(), issuer?.stop(), new Promise((resolve) => (exchange ? exchange.close(resolve) : resolve(undefined)))]);
});

/** A caller's access token from the callers' issuer, for the gateway. */
const callerToken = (sub: string) =>
  issuer.issuer.buildToken({ scopesOrTransform: (_header, payload) => Object.assign(payload, { aud: RESOURCE, sub, scope: "skill:*" }) });

/** What reached the upstream when `bearer` called its whoami through the gateway (the JSON-RPC answer too). */
async function whoamiAs(bearer: string) {
  const { json } = await wireOf(mesh.gatewayUrl).rpc("fixture.whoami", {}, { key: bearer });
  const seen = (json as { result?: { content: Array<{ text: string }> } }).result?.content[0]?.text;
  return { json, seen: seen?.replace(/^Bearer /, "") };
}

describe("a token-exchange upstream", () => {
  it("is called with the caller's token exchanged at the issuer (RFC 8693), never the caller's own", async () => {
    const mine = await callerToken("agent-7");
    const { seen, json } = await whoamiAs(mine);
    expect(seen, JSON.stringify(json)).toBeDefined();
    expect(seen).not.toBe(mine);
    expect(decodeJwt(seen!)).toMatchObject({ sub: "agent-7", iss: "https://exchange.test", aud: UPSTREAM_AUDIENCE });
    expect(exchanges.at(-1)).toMatchObject({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      subject_token: mine,
      subject_token_type: "urn:ietf:params:oauth:token-type:access_token",
      audience: UPSTREAM_AUDIENCE,
      scope: "fixture:call",
    });
  });

  it("keeps a caller's exchanged token until it expires, and gives each caller its own", async () => {
    const mine = await callerToken("agent-8");
    const before = exchanges.length;
    const first = await whoamiAs(mine);
    const again = await whoamiAs(mine);
    expect(again.seen).toBe(first.seen);
    expect(exchanges.length).toBe(before + 1);
    const theirs = await whoamiAs(await callerToken("agent-9"));
    expect(decodeJwt(theirs.seen!).sub).toBe("agent-9");
    expect(exchanges.length).toBe(before + 2);
  });

  it("tells a caller with nothing to exchange (an API key), and one the issuer will not exchange for, why: -32006", async () => {
    const { key } = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "keyed", skills: ["*"] })).json as { key: string };
    const keyed = await whoamiAs(key);
    expect(keyed.json).toMatchObject({ error: { code: -32006, message: expect.stringContaining("acts as its caller") } });
    const blocked = await whoamiAs(await callerToken("blocked-agent"));
    expect(blocked.json).toMatchObject({ error: { code: -32006, message: expect.stringContaining("would not exchange your access token (invalid_grant") } });
  });

  it("is shown to an admin without its client secret", async () => {
    const { json } = await admin(mesh.gatewayUrl, "GET", "/upstreams/fixture");
    const text = JSON.stringify(json);
    expect(text).toContain('"type":"token-exchange"');
    expect(text).not.toContain(CLIENT.secret);
  });
});

describe("a token-exchange tokenUrl (security review 4, finding 5)", () => {
  const register = (name: string, tokenUrl: string) =>
    admin(mesh.gatewayUrl, "POST", "/upstreams", {
      kind: "mcp",
      name,
      url: upstream.url,
      include: ["whoami"],
      auth: { type: "token-exchange", tokenUrl, clientId: CLIENT.id, clientSecret: CLIENT.secret },
    });

  it("passes the URL checks every credential URL passes: no userinfo, no secret in its query", async () => {
    const withUser = new URL(exchangeUrl);
    withUser.username = "u";
    withUser.password = "p";
    expect((await register("tex1", withUser.href)).json.error.message).toMatch(/must not carry credentials/);
    expect((await register("tex2", `${exchangeUrl}?client_secret=LEAKME`)).json.error.message).toMatch(/carries a secret in its query \(client_secret\)/);
  });

  it("is the token endpoint of an issuer the gateway trusts for its callers (its metadata's), or one its operator configured; nothing an admin request alone names", async () => {
    const elsewhere = await register("tex3", "http://127.0.0.1:9/token");
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.json.error.message).toMatch(/token endpoint of an issuer the gateway trusts/);
    const metadata = (await (await fetch(`${issuer.issuer.url}/.well-known/openid-configuration`)).json()) as { token_endpoint: string };
    const own = await register("tex4", metadata.token_endpoint);
    expect(own.status, JSON.stringify(own.json)).toBe(201);
    await admin(mesh.gatewayUrl, "DELETE", "/upstreams/tex4");
  });
});
