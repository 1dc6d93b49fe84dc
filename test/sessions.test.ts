/**
 * Dashboard sessions in workerd on real Redis (security review round 2, finding 3): a session is
 * never worth more than the credential that opened it is now. Revoking a key or downgrading it,
 * rotating the admin token, or an operator's "end every session" ends (or lowers) it at once.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture } from "./support/fixtures.js";

const ROTATED_TOKEN = "the-admin-token-after-rotation";
let gateway: Mesh;
/** The same gateway after its admin token was rotated: another isolate on the same store. */
let rotated: Mesh;

beforeAll(async () => {
  const store = {
    upstash: { url: inject("redisRestUrl"), token: inject("redisRestToken") },
    gatewayVars: { SKILLMESH_STORE_PREFIX: `sessions-${process.pid}:` },
  };
  gateway = await startMesh({ skills: [fixture("subtract")], adminToken: ADMIN_TOKEN, ...store });
  rotated = await startMesh({ skills: [fixture("subtract")], adminToken: ROTATED_TOKEN, register: false, ...store });
}, 120_000);
afterAll(async () => {
  await gateway?.dispose();
  await rotated?.dispose();
});

/** Signs in on the dashboard as a browser does (a form POST); returns the session cookie. */
async function signIn(gatewayUrl: string, credential: string): Promise<string> {
  const response = await fetch(`${gatewayUrl}/admin/ui/session`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ key: credential }),
  });
  expect(response.status).toBe(303);
  return response.headers.get("set-cookie")!.split(";")[0]!;
}

/** What the dashboard's script does with a session: read, or change with X-Skillmesh-UI. */
const withSession = async (gatewayUrl: string, cookie: string, method: string, path: string, body?: unknown) =>
  (
    await fetch(`${gatewayUrl}/admin${path}`, {
      method,
      headers: { cookie, "x-skillmesh-ui": "1", "content-type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
  ).status;
const createKey = (gatewayUrl: string, cookie: string, name: string) => withSession(gatewayUrl, cookie, "POST", "/keys", { name, admin: "write" });

describe("a dashboard session follows its credential", () => {
  it("a revoked key's session can change nothing any more", async () => {
    const { key, view } = (await admin(gateway.gatewayUrl, "POST", "/keys", { name: "ops-revoked", admin: "write" })).json;
    const cookie = await signIn(gateway.gatewayUrl, key);
    expect(await createKey(gateway.gatewayUrl, cookie, "made-by-session")).toBe(201);
    expect((await admin(gateway.gatewayUrl, "DELETE", `/keys/${view.id}`)).status).toBe(200);
    // The key snapshot of every isolate catches up within about a second.
    expect(
      await eventually(
        () => createKey(gateway.gatewayUrl, cookie, "after-revocation"),
        (status) => status === 401,
        5_000,
        100,
      ),
    ).toBe(401);
    expect(await withSession(gateway.gatewayUrl, cookie, "GET", "/keys")).toBe(401);
  });

  it("a key downgraded to read: its session reads and changes nothing", async () => {
    const { key, view } = (await admin(gateway.gatewayUrl, "POST", "/keys", { name: "ops-downgraded", admin: "write" })).json;
    const cookie = await signIn(gateway.gatewayUrl, key);
    expect((await admin(gateway.gatewayUrl, "PATCH", `/keys/${view.id}`, { admin: "read" })).status).toBe(200);
    expect(
      await eventually(
        () => createKey(gateway.gatewayUrl, cookie, "after-downgrade"),
        (status) => status === 403,
        5_000,
        100,
      ),
    ).toBe(403);
    expect(await withSession(gateway.gatewayUrl, cookie, "GET", "/keys")).toBe(200);
  });

  it("an admin token's session ends where the token was rotated", async () => {
    const cookie = await signIn(gateway.gatewayUrl, ADMIN_TOKEN);
    expect(await withSession(gateway.gatewayUrl, cookie, "GET", "/keys")).toBe(200);
    expect(await withSession(rotated.gatewayUrl, cookie, "GET", "/keys")).toBe(401);
    expect(await createKey(rotated.gatewayUrl, cookie, "after-rotation")).toBe(401);
  });

  it("an operator can end every session at once", async () => {
    const { key } = (await admin(gateway.gatewayUrl, "POST", "/keys", { name: "ops-ended", admin: "write" })).json;
    const [byToken, byKey] = [await signIn(gateway.gatewayUrl, ADMIN_TOKEN), await signIn(gateway.gatewayUrl, key)];
    expect(await withSession(gateway.gatewayUrl, byKey, "DELETE", "/sessions")).toBe(200);
    for (const cookie of [byToken, byKey]) expect(await withSession(gateway.gatewayUrl, cookie, "GET", "/keys")).toBe(401);
    // The end is audited under who asked for it; a new sign-in works.
    const entries = await eventually(
      async () => (await admin(gateway.gatewayUrl, "GET", "/audit?type=admin&skill=sessions")).json.entries,
      (found) => found.length > 0,
      5_000,
      100,
    );
    expect(entries[0]).toMatchObject({ action: "DELETE /admin/sessions", status: 200, by: expect.stringMatching(/^k_/) });
    expect(await withSession(gateway.gatewayUrl, await signIn(gateway.gatewayUrl, ADMIN_TOKEN), "GET", "/keys")).toBe(200);
  });
});

describe("failed admin credentials are throttled per address and audited; sign-in and sign-out are audited", () => {
  type Entry = { at: number; by: string; action: string; status: number };
  const auditOf = (filter: (entry: Entry) => boolean, count: number) =>
    eventually(
      async () => ((await admin(gateway.gatewayUrl, "GET", "/audit?type=admin&limit=1000")).json.entries as Entry[]).filter(filter),
      (found) => found.length >= count,
      5_000,
      100,
    );

  it("ten wrong admin bearers from one address, then that address is refused 429 (the right token too) while others are not", async () => {
    const from = (address: string, token: string) =>
      fetch(`${gateway.gatewayUrl}/admin/keys`, { headers: { authorization: `Bearer ${token}`, "cf-connecting-ip": address } });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await from("203.0.113.7", `wrong-token-${i}`)).status);
    expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
    const throttled = await from("203.0.113.7", ADMIN_TOKEN);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await from("203.0.113.8", ADMIN_TOKEN)).status).toBe(200);
    // Every failure is in the audit log under the address's id, never the credential.
    const failures = await auditOf((e) => e.action === "GET /admin/keys" && e.status === 401, 10);
    expect(new Set(failures.map((e) => e.by)).size).toBe(1);
    expect(failures[0]!.by).toMatch(/^a_[0-9a-f]{16}$/);
    expect(JSON.stringify(failures)).not.toContain("wrong-token");
  });

  it("the dashboard's sign-in: failures counted and audited, a success and a sign-out audited under the credential", async () => {
    const signInFrom = (address: string, credential: string) =>
      fetch(`${gateway.gatewayUrl}/admin/ui/session`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": address },
        body: new URLSearchParams({ key: credential }),
      });
    for (let i = 0; i < 3; i++) expect((await signInFrom("198.51.100.9", `guess-${i}`)).status).toBe(401);
    const failed = await auditOf((e) => e.action === "POST /admin/ui/session" && e.status === 401, 3);
    expect(failed[0]!.by).toMatch(/^a_/);
    const since = Date.now();
    const signedIn = await signInFrom("198.51.100.10", ADMIN_TOKEN);
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    await fetch(`${gateway.gatewayUrl}/admin/ui/logout`, { method: "POST", redirect: "manual", headers: { cookie } });
    expect(await auditOf((e) => e.at >= since && e.action === "POST /admin/ui/session" && e.status === 303 && e.by === "admin-token", 1)).toHaveLength(1);
    expect(await auditOf((e) => e.at >= since && e.action === "POST /admin/ui/logout" && e.by === "admin-token", 1)).toHaveLength(1);
    // Ten failures from one address end its sign-ins too, for the rest of the minute.
    for (let i = 3; i < 10; i++) await signInFrom("198.51.100.9", `guess-${i}`);
    expect((await signInFrom("198.51.100.9", ADMIN_TOKEN)).status).toBe(429);
  });
});

describe("SKILLMESH_ALLOWED_ORIGINS=* opens /rpc and /mcp to pages, never the dashboard's sign-in and sign-out", () => {
  let open: Mesh;
  beforeAll(async () => {
    open = await startMesh({ skills: [fixture("subtract")], adminToken: ADMIN_TOKEN, gatewayVars: { SKILLMESH_ALLOWED_ORIGINS: "*" } });
  }, 120_000);
  afterAll(() => open?.dispose());

  const form = (path: string, origin: string, body = "") =>
    fetch(`${open.gatewayUrl}/admin/ui/${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { origin, "content-type": "application/x-www-form-urlencoded" },
      body,
    });

  it("a page elsewhere cannot sign a browser in (login CSRF) or out", async () => {
    const signInElsewhere = await form("session", "https://evil.example", new URLSearchParams({ key: ADMIN_TOKEN }).toString());
    expect(signInElsewhere.status).toBe(403);
    expect(signInElsewhere.headers.get("set-cookie")).toBeNull();
    expect((await form("logout", "https://evil.example")).status).toBe(403);
    expect((await fetch(`${open.gatewayUrl}/admin/keys`, { headers: { origin: "https://evil.example", authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(
      403,
    );
  });

  it("the gateway's own page still signs in, and other pages still call /rpc", async () => {
    expect((await form("session", open.gatewayUrl, new URLSearchParams({ key: ADMIN_TOKEN }).toString())).status).toBe(303);
    const call = await fetch(`${open.gatewayUrl}/rpc`, {
      method: "POST",
      headers: { origin: "https://app.example", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "subtract", params: [3, 1], id: 1 }),
    });
    expect(call.status).toBe(200);
    expect(call.headers.get("access-control-allow-origin")).toBe("https://app.example");
  });
});
