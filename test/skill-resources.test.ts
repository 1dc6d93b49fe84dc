/**
 * MCP resources and prompts a skill declares in `defineSkill` (the `units` fixture), through the
 * gateway in workerd: listed to the keys that may call the skill, read and got from the skill's
 * Worker over the signed hop with the caller context, on both MCP eras (the official v1 client on
 * 2025-11-25, the v2 client pinned to 2026-07-28), audited, and hidden from a key that may not
 * call the skill.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Notification, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { generateHopKeys } from "../src/protocols/hop/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";
import { registerSkill } from "../scripts/mesh/index.js";
import { sseData } from "../src/protocols/sse/index.js";

let mesh: Mesh;
let everything: { key: string; id: string };
let onlySubtract: string;
beforeAll(async () => {
  // Signed hops: the skill believes the caller context because the gateway signed it.
  const hopKeys = await generateHopKeys();
  mesh = await startMesh({
    skills: [fixture("units"), fixture("subtract")],
    adminToken: ADMIN_TOKEN,
    gatewayVars: { SKILLMESH_AUTH: "required", SKILLMESH_HOP_KEY: hopKeys.privateKey },
    skillVars: { SKILLMESH_HOP_PUBLIC_KEY: hopKeys.publicKey },
  });
  const created = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "all", skills: ["*"] })).json;
  everything = { key: created.key, id: created.view.id };
  onlySubtract = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "subtract-only", skills: ["subtract"] })).json.key;
}, 120_000);
afterAll(() => mesh?.dispose());

const headers = (key: string) => ({ authorization: `Bearer ${key}` });
async function v1(key: string) {
  const client = new Client({ name: "skill-resources-v1", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${mesh.gatewayUrl}/mcp`), { requestInit: { headers: headers(key) } }));
  return client;
}
async function v2(key: string) {
  const client = new ClientV2({ name: "skill-resources-v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new TransportV2(new URL(`${mesh.gatewayUrl}/mcp`), { requestInit: { headers: headers(key) } }));
  return client;
}

describe("a skill's MCP resources and prompts", () => {
  it("lists and reads resources, templates and prompts with the official v1 client (2025-11-25)", async () => {
    const client = await v1(everything.key);
    expect(client.getServerCapabilities()).toMatchObject({ resources: {}, prompts: {} });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["units://table", "units://logo"]);
    expect(resources[0]).toMatchObject({ name: "units-table", title: "Length units", mimeType: "text/markdown" });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      { uriTemplate: "units://factor/{from}/{to}", name: "units-factor", description: "How many `to` one `from` is", mimeType: "application/json" },
    ]);
    const table = await client.readResource({ uri: "units://table" });
    expect(table.contents).toEqual([{ uri: "units://table", mimeType: "text/markdown", text: expect.stringContaining("| km | 1000 |") }]);
    const logo = await client.readResource({ uri: "units://logo" });
    expect(Buffer.from((logo.contents[0] as { blob: string }).blob, "base64")).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]));
    // A template's read gets the URI's variables, and the caller context over the signed hop.
    const factor = JSON.parse(((await client.readResource({ uri: "units://factor/km/m" })).contents[0] as { text: string }).text);
    expect(factor).toEqual({ from: "km", to: "m", factor: 1000, askedBy: everything.id });
    // The skill's own refusal comes back as the read's error; an unknown URI is "Resource not found".
    await expect(client.readResource({ uri: "units://factor/km/parsec" })).rejects.toThrow(/Unknown unit: parsec/);
    await expect(client.readResource({ uri: "units://nothing" })).rejects.toThrow(/Resource not found/);
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      expect.objectContaining({
        name: "units.convert.convert",
        title: "Convert a length",
        arguments: [
          expect.objectContaining({ name: "value", required: true }),
          expect.objectContaining({ name: "from", required: true }),
          expect.objectContaining({ name: "to" }),
        ],
      }),
    ]);
    const prompt = await client.getPrompt({ name: "units.convert.convert", arguments: { value: "3", from: "mi" } });
    expect(prompt.messages).toEqual([
      { role: "user", content: { type: "text", text: "Convert 3 mi to m with units.convert, and say the result in one sentence." } },
    ]);
    await expect(client.getPrompt({ name: "units.convert.convert", arguments: { from: "mi" } })).rejects.toThrow(/Missing required argument: value/);
    await expect(client.getPrompt({ name: "units.convert.nope", arguments: {} })).rejects.toThrow(/Unknown prompt/);
    await client.close();
  });

  it("serves them in 2026-07-28 with the caching fields, as the v2 client reads them", async () => {
    const client = await v2(everything.key);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(["units://table", "units://logo"]);
    expect(((await client.readResource({ uri: "units://table" })).contents[0] as { text: string }).text).toContain("| mi | 1609.344 |");
    expect((await client.getPrompt({ name: "units.convert.convert", arguments: { value: "1", from: "km", to: "ft" } })).messages[0]!.content).toEqual({
      type: "text",
      text: "Convert 1 km to ft with units.convert, and say the result in one sentence.",
    });
    await client.close();
    const raw = await wireOf(mesh.gatewayUrl).mcp2026(
      "prompts/list",
      {},
      { key: everything.key, meta: { "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" } } },
    );
    expect(raw.json.result).toMatchObject({
      prompts: [expect.objectContaining({ name: "units.convert.convert" })],
      ttlMs: expect.any(Number),
      cacheScope: "private",
      resultType: "complete",
    });
  });

  it("hides a skill's resources and prompts from a key that may not call it", async () => {
    const client = await v1(onlySubtract);
    expect((await client.listResources()).resources).toEqual([]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await client.listPrompts()).prompts).toEqual([]);
    await expect(client.readResource({ uri: "units://table" })).rejects.toThrow(/Resource not found/);
    await expect(client.readResource({ uri: "units://factor/km/m" })).rejects.toThrow(/Resource not found/);
    await expect(client.getPrompt({ name: "units.convert.convert", arguments: { value: "1", from: "km" } })).rejects.toThrow(/Unknown prompt/);
    await client.close();
  });

  it("finds a skill's resources with the compact catalog's search, for the keys that may call the skill", async () => {
    const search = async (key: string) =>
      (
        await wireOf(mesh.gatewayUrl).mcp2025(
          "tools/call",
          { name: "catalog.search", arguments: { query: "length units in metres", kind: "resource" } },
          { key, path: "/mcp?catalog=search" },
        )
      ).json.result.structuredContent.results;
    const hits = await search(everything.key);
    expect(hits[0]).toEqual({ kind: "resource", name: "units-table", summary: "Every unit this skill converts, in metres", uri: "units://table" });
    expect(hits.every((hit: { kind: string }) => hit.kind === "resource")).toBe(true);
    expect(await search(onlySubtract)).toEqual([]);
  });

  it("lists and gets a prompt under a virtual server's alias; its own name is unknown there", async () => {
    expect((await admin(mesh.gatewayUrl, "PUT", "/servers/units", { tools: ["units.*"], aliases: { convert_prompt: "units.convert.convert" } })).status).toBe(
      200,
    );
    try {
      const client = new Client({ name: "skill-resources-alias", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${mesh.gatewayUrl}/mcp/units`), { requestInit: { headers: headers(everything.key) } }));
      const listed = async () => (await client.listPrompts()).prompts.map((p) => p.name);
      // Servers' definitions are read every few seconds.
      expect(await eventually(listed, (names) => names.includes("convert_prompt"), 10_000)).toEqual(["convert_prompt"]);
      const direct = await (await v1(everything.key)).getPrompt({ name: "units.convert.convert", arguments: { value: "3", from: "km", to: "mi" } });
      expect(await client.getPrompt({ name: "convert_prompt", arguments: { value: "3", from: "km", to: "mi" } })).toEqual(direct);
      await expect(client.getPrompt({ name: "units.convert.convert", arguments: { value: "3", from: "km", to: "mi" } })).rejects.toThrow(/Unknown prompt/);
      await client.close();
    } finally {
      await admin(mesh.gatewayUrl, "DELETE", "/servers/units");
    }
  });

  it("audits every read and get, with the deployment that answered", async () => {
    const entries = (await admin(mesh.gatewayUrl, "GET", `/audit?caller=${everything.id}`)).json.entries as Array<{
      method: string;
      resource?: string;
      deployment?: string;
      code: number;
    }>;
    const reads = entries.filter((e) => e.resource).map((e) => [e.method, e.resource, e.deployment, e.code]);
    expect(reads).toContainEqual(["resources/read", "units://table", "units.convert@1.0.0", 0]);
    expect(reads).toContainEqual(["resources/read", "units://factor/km/parsec", "units.convert@1.0.0", -32602]);
    expect(reads).toContainEqual(["prompts/get", "prompt:units.convert.convert", "units.convert@1.0.0", 0]);
  });
});

/** Opens a 2026-07-28 `subscriptions/listen` stream as `key`, asking for `notifications`; its events, parsed, one at a time. */
async function listenAs(key: string, id: string, notifications: Record<string, unknown>, signal: AbortSignal) {
  const response = await fetch(`${mesh.gatewayUrl}/mcp`, {
    method: "POST",
    signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers(key),
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }, notifications },
    }),
  });
  return (async function* () {
    for await (const data of sseData(response.body!)) yield JSON.parse(data) as { method?: string; params?: Record<string, unknown> };
  })();
}

describe("subscriptions/listen for prompts and resources (2026-07-28)", () => {
  it("tells the client when the prompts or the resources it sees change, and not when nothing it sees does", async () => {
    const controller = new AbortController();
    const events = await listenAs(everything.key, "sub", { promptsListChanged: true, resourcesListChanged: true }, controller.signal);
    try {
      expect((await events.next()).value).toMatchObject({
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: { promptsListChanged: true, resourcesListChanged: true } },
      });
      // A skill without prompts or resources changes neither list: the next event is the package's.
      const subtract = mesh.skills.find((skill) => skill.manifest.name === "subtract")!;
      await registerSkill(mesh.gatewayUrl, ADMIN_TOKEN, { binding: subtract.binding }, { manifest: { ...subtract.manifest, name: "subtract.again" } });
      const notes =
        '---\nname: unit-notes\ndescription: How to convert units.\nallowed-tools: units.convert\nmetadata:\n  version: "1.0.0"\n---\nUse units.convert.\n';
      expect((await admin(mesh.gatewayUrl, "POST", "/agent-skills", { name: "unit-notes", files: [{ path: "SKILL.md", content: notes }] })).status).toBe(201);
      expect((await events.next()).value).toMatchObject({ method: "notifications/resources/list_changed" });
      // A skill that declares a prompt changes the prompts.
      const units = mesh.skills.find((skill) => skill.manifest.name === "units.convert")!;
      await registerSkill(
        mesh.gatewayUrl,
        ADMIN_TOKEN,
        { binding: units.binding },
        { manifest: { ...units.manifest, name: "units.other", resources: [], resourceTemplates: [] } },
      );
      expect((await events.next()).value).toMatchObject({ method: "notifications/prompts/list_changed" });
    } finally {
      controller.abort();
      await admin(mesh.gatewayUrl, "DELETE", "/deployments/subtract.again@1.0.0");
      await admin(mesh.gatewayUrl, "DELETE", "/deployments/units.other@1.0.0");
      await admin(mesh.gatewayUrl, "DELETE", "/agent-skills/unit-notes");
    }
  });
});

describe("a 2025 session's own stream (GET /mcp): list changes and subscribed resources' updates", () => {
  const notes = (version: string) =>
    `---\nname: watched-notes\ndescription: Notes someone watches.\nmetadata:\n  version: "${version}"\n---\nRead me (${version}).\n`;
  const uri = "skill://watched-notes/SKILL.md";

  it("tells the v1 client (2025-11-25) when what serves a resource it subscribed to changes, and when its tools change", async () => {
    expect(
      (await admin(mesh.gatewayUrl, "POST", "/agent-skills", { name: "watched-notes", files: [{ path: "SKILL.md", content: notes("1.0.0") }] })).status,
    ).toBe(201);
    const client = await v1(everything.key);
    const told: Notification[] = [];
    /** Waits (polling) until the client was told `method` `times` times. */
    const heard = (method: string, times = 1) =>
      eventually(
        async () => told,
        (seen) => seen.filter((n) => n.method === method).length >= times,
        10_000,
        100,
      );
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void told.push(n));
    client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => void told.push(n));
    try {
      expect(client.getServerCapabilities()).toMatchObject({
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
      });
      await client.subscribeResource({ uri });
      // A new version of the package, then promoted: the resource is served from 2.0.0 now.
      expect(
        (await admin(mesh.gatewayUrl, "POST", "/agent-skills", { name: "watched-notes", files: [{ path: "SKILL.md", content: notes("2.0.0") }] })).status,
      ).toBe(201);
      expect((await admin(mesh.gatewayUrl, "POST", "/agent-skills/watched-notes/promote", { version: "2.0.0" })).status).toBe(200);
      await heard("notifications/resources/updated");
      expect(told.find((n) => n.method === "notifications/resources/updated")!.params).toEqual({ uri });
      expect((await client.readResource({ uri })).contents[0]).toMatchObject({ text: expect.stringContaining("Read me (2.0.0)") });

      // Told once: the session's next stream (a reconnect) says nothing of it before a later change (a new tool).
      const controller = new AbortController();
      const again = await fetch(`${mesh.gatewayUrl}/mcp`, {
        signal: controller.signal,
        headers: {
          accept: "text/event-stream",
          ...headers(everything.key),
          "mcp-protocol-version": "2025-11-25",
          "mcp-session-id": client.transport!.sessionId!,
        },
      });
      const events = sseData(again.body!);
      const subtract = mesh.skills.find((skill) => skill.manifest.name === "subtract")!;
      await registerSkill(mesh.gatewayUrl, ADMIN_TOKEN, { binding: subtract.binding }, { manifest: { ...subtract.manifest, name: "subtract.watched" } });
      try {
        expect(JSON.parse((await events.next()).value!)).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      } finally {
        controller.abort();
      }

      // Unsubscribed: another promotion says nothing.
      await client.unsubscribeResource({ uri });
      expect((await admin(mesh.gatewayUrl, "POST", "/agent-skills/watched-notes/promote", { version: "1.0.0" })).status).toBe(200);
      await heard("notifications/tools/list_changed");
      await registerSkill(mesh.gatewayUrl, ADMIN_TOKEN, { binding: subtract.binding }, { manifest: { ...subtract.manifest, name: "subtract.watched2" } });
      await heard("notifications/tools/list_changed", 2);
      expect(told.filter((n) => n.method === "notifications/resources/updated")).toHaveLength(1);

      // The session's streams and its unsubscribe are operations of the one chain: audited as a read is.
      const audited = await eventually(
        async () =>
          (await admin(mesh.gatewayUrl, "GET", `/audit?caller=${everything.id}&type=call&limit=200`)).json.entries as Array<{
            method: string;
            resource?: string;
            code: number;
          }>,
        (entries) => entries.some((e) => e.method === "resources/unsubscribe") && entries.some((e) => e.method === "GET /mcp"),
        10_000,
        100,
      );
      expect(audited.find((e) => e.method === "resources/unsubscribe")).toMatchObject({ resource: uri, code: 0 });
      expect(audited.find((e) => e.method === "GET /mcp")).toMatchObject({ code: 0 });
    } finally {
      await client.close();
      await admin(mesh.gatewayUrl, "DELETE", "/deployments/subtract.watched@1.0.0");
      await admin(mesh.gatewayUrl, "DELETE", "/deployments/subtract.watched2@1.0.0");
      await admin(mesh.gatewayUrl, "DELETE", "/agent-skills/watched-notes");
    }
  });

  it("subscribes only to what the caller may read (-32002, audited), and opens a stream only for a 2025 session", async () => {
    const client = await v1(onlySubtract);
    try {
      await expect(client.subscribeResource({ uri: "units://table" })).rejects.toMatchObject({ code: -32002 });
    } finally {
      await client.close();
    }
    const entries = (await admin(mesh.gatewayUrl, "GET", "/audit?type=call&limit=50")).json.entries as Array<{
      method: string;
      resource?: string;
      code: number;
    }>;
    expect(entries.find((e) => e.method === "resources/subscribe" && e.resource === "units://table")).toMatchObject({ code: -32002 });
    const get = (extra: Record<string, string>) =>
      fetch(`${mesh.gatewayUrl}/mcp`, { headers: { accept: "text/event-stream", ...headers(everything.key), ...extra } });
    expect((await get({ "mcp-protocol-version": "2025-11-25" })).status).toBe(400); // no session
    expect((await get({ "mcp-protocol-version": "2026-07-28" })).status).toBe(405);
  });
});

describe("resourceSubscriptions on subscriptions/listen (2026-07-28)", () => {
  it("acknowledges the resources the caller may read and tells of an update to one, tagged with the stream's id", async () => {
    const notes = (version: string) =>
      `---\nname: listened-notes\ndescription: Notes a stream watches.\nmetadata:\n  version: "${version}"\n---\nv${version}\n`;
    const add = (version: string) =>
      admin(mesh.gatewayUrl, "POST", "/agent-skills", { name: "listened-notes", files: [{ path: "SKILL.md", content: notes(version) }] });
    expect((await add("1.0.0")).status).toBe(201);
    const uri = "skill://listened-notes/SKILL.md";
    const controller = new AbortController();
    try {
      // units://nothing is no resource of the caller's: left out of the acknowledgment.
      const events = await listenAs(everything.key, "watch", { resourceSubscriptions: [uri, "units://nothing"] }, controller.signal);
      const next = async () => (await events.next()).value;
      expect(await next()).toEqual({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: { "io.modelcontextprotocol/subscriptionId": "watch" }, notifications: { resourceSubscriptions: [uri] } },
      });
      expect((await add("2.0.0")).status).toBe(201);
      expect((await admin(mesh.gatewayUrl, "POST", "/agent-skills/listened-notes/promote", { version: "2.0.0" })).status).toBe(200);
      expect(await next()).toEqual({
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { _meta: { "io.modelcontextprotocol/subscriptionId": "watch" }, uri },
      });
    } finally {
      controller.abort();
      await admin(mesh.gatewayUrl, "DELETE", "/agent-skills/listened-notes");
    }
  });
});
