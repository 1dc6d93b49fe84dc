/**
 * The secrets guardrail (src/policies/guardrails) through the gateway in workerd: secretlint's recommended
 * rules over a call's arguments and answer, as each skill, upstream and virtual server says —
 * off for skills unless they ask, redact for a federated upstream (server-everything, whose
 * `get-env` answers its environment) unless its registration says otherwise, and a virtual server
 * at least as strict as it is defined. What it did is in the call's audit entry and the Prometheus
 * counters, never the credential itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { LEAKED_TOKEN } from "./fixtures/skills/secrets.js";
import { ADMIN_TOKEN, admin, eventually, fixture } from "./support/fixtures.js";
import { type RunningProcess, startServerEverything } from "./support/processes.js";
import { wireOf } from "./support/wire.js";

// Made-up credentials in the shapes secretlint's rules know.
const GITHUB_TOKEN = `ghp_${"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}`;
const SLACK_TOKEN = `xoxb-${"123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"}`;

let mesh: Mesh;
let everything: RunningProcess;

beforeAll(async () => {
  [mesh, everything] = await Promise.all([
    startMesh({ skills: ["secrets-off", "secrets-redact"].map(fixture), adminToken: ADMIN_TOKEN }),
    startServerEverything(undefined, { DEPLOY_TOKEN: SLACK_TOKEN }),
  ]);
  const added = await admin(mesh.gatewayUrl, "POST", "/upstreams", {
    kind: "mcp",
    name: "everything",
    url: `${everything.url}/mcp`,
    include: ["echo", "get-env"],
  });
  expect(added.status, JSON.stringify(added.json)).toBe(201);
  const open = await admin(mesh.gatewayUrl, "POST", "/upstreams", {
    kind: "mcp",
    name: "trusted",
    url: `${everything.url}/mcp`,
    include: ["echo"],
    guardrails: { secrets: "off" },
  });
  expect(open.status, JSON.stringify(open.json)).toBe(201);
  await admin(mesh.gatewayUrl, "PUT", "/servers/guarded", { tools: ["test.secrets"], guardrails: { secrets: "refuse" } });
}, 120_000);
afterAll(() => Promise.all([mesh?.dispose(), everything?.stop()]));

const rpc = (method: string, params: unknown) => wireOf(mesh.gatewayUrl).rpc(method, params);
const mcpCall = (path: string, name: string, args: unknown) => wireOf(mesh.gatewayUrl).mcp2025("tools/call", { name, arguments: args }, { path });

/** The audit entries of calls of `method` since `since` (they land shortly after the call). */
const auditedCalls = (method: string, since: number, count = 1) =>
  eventually(
    async () =>
      ((await admin(mesh.gatewayUrl, "GET", `/audit?type=call&since=${since}&limit=1000`)).json.entries as Array<Record<string, unknown>>).filter(
        (e) => e.method === method,
      ),
    (entries) => entries.length >= count,
    10_000,
  );

describe("skills", () => {
  it("are not scanned unless they ask: a credential in the arguments reaches the skill", async () => {
    const { json } = await rpc("test.secrets", { text: `deploy with ${GITHUB_TOKEN}` });
    expect(json.result).toEqual({ received: `deploy with ${GITHUB_TOKEN}` });
  });

  it("asking for redaction in its manifest, a skill never receives a credential, nor answers one", async () => {
    const since = Date.now();
    const { json } = await rpc("test.secrets-redact", { text: `deploy with ${GITHUB_TOKEN}`, leak: true });
    expect(json.result).toEqual({ received: "deploy with [REDACTED:GITHUB_TOKEN]", config: "token=[REDACTED:GITHUB_TOKEN]" });
    expect(JSON.stringify(json)).not.toContain(LEAKED_TOKEN);
    const [entry] = await auditedCalls("test.secrets-redact", since);
    // What was found where, never the credential.
    expect(entry!.guardrail).toEqual({
      guardrail: "secrets",
      action: "redacted",
      findings: [
        { kind: "GITHUB_TOKEN", where: "arguments", path: "text" },
        { kind: "GITHUB_TOKEN", where: "answer", path: "config" },
      ],
    });
    expect(JSON.stringify(entry)).not.toContain("ghp_");
  });
});

describe("a virtual server defined to refuse", () => {
  it("refuses a call whose arguments hold a credential before anything is sent, naming what and where", async () => {
    const since = Date.now();
    const { json } = await mcpCall("/mcp/guarded", "test.secrets", { text: `here: ${GITHUB_TOKEN}` });
    const text = JSON.stringify(json);
    expect(text).toContain("Refused by the secrets guardrail");
    expect(text).toContain("GITHUB_TOKEN at text");
    expect(text).not.toContain(GITHUB_TOKEN);
    const [entry] = await auditedCalls("test.secrets", since);
    expect(entry).toMatchObject({ code: -32602, guardrail: { action: "refused", findings: [{ kind: "GITHUB_TOKEN", where: "arguments", path: "text" }] } });
    expect(entry!.deployment).toBeUndefined(); // no deployment answered: nothing was sent
  });

  it("withholds an answer holding a credential", async () => {
    const { json } = await mcpCall("/mcp/guarded", "test.secrets", { text: "hello", leak: true });
    const text = JSON.stringify(json);
    expect(text).toContain("withheld by the secrets guardrail");
    expect(text).not.toContain(LEAKED_TOKEN);
  });

  it("is as open as the skill on /mcp", async () => {
    const { json } = await mcpCall("/mcp", "test.secrets", { text: "hello", leak: true });
    expect(JSON.stringify(json)).toContain(LEAKED_TOKEN);
  });
});

describe("federated upstreams", () => {
  it("are redacted by default: the upstream never receives a caller's credential, nor a caller its own", async () => {
    const echo = await rpc("everything.echo", { message: `token ${GITHUB_TOKEN}` });
    expect(echo.json.result.content[0].text).toBe("Echo: token [REDACTED:GITHUB_TOKEN]");
    const env = await rpc("everything.get-env", {});
    const text = JSON.stringify(env.json);
    expect(text).toContain("DEPLOY_TOKEN");
    expect(text).toContain("[REDACTED:SLACK_TOKEN]");
    expect(text).not.toContain(SLACK_TOKEN);
  });

  it("an upstream registered with guardrails off is sent what the caller sends", async () => {
    const echo = await rpc("trusted.echo", { message: `token ${GITHUB_TOKEN}` });
    expect(echo.json.result.content[0].text).toBe(`Echo: token ${GITHUB_TOKEN}`);
  });

  it("what the guardrail did is counted in Prometheus, by skill, action and where", async () => {
    const metrics = await eventually(
      () => fetch(`${mesh.gatewayUrl}/admin/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((r) => r.text()),
      (text) => /skillmesh_guardrail_actions_total\{skill="everything.get-env",guardrail="secrets",action="redacted",where="answer"\} [1-9]/.test(text),
      10_000,
      200,
    );
    expect(metrics).toMatch(/skillmesh_guardrail_actions_total\{skill="test.secrets",guardrail="secrets",action="refused",where="arguments"\} [1-9]/);
  });
});
