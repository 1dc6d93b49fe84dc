/**
 * `rpc.discover` end to end: the gateway's OpenRPC document of every skill passes the OpenRPC
 * meta-schema (`@open-rpc/schema-utils-js`), and the OpenRPC project's own client
 * (`@open-rpc/client-js`) calls skills through `/rpc` by name and by position.
 */
import { join } from "node:path";
import { Client, HTTPTransport, JSONRPCError, RequestManager } from "@open-rpc/client-js";
import { validateOpenRPCDocument } from "@open-rpc/schema-utils-js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROOT, skillDirs } from "../scripts/mesh/bundle.js";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, fixture } from "./support/fixtures.js";

let mesh: Mesh;
let client: Client;

beforeAll(async () => {
  mesh = await startMesh({
    skills: [...skillDirs(join(ROOT, "skills")), fixture("subtract"), fixture("sum"), fixture("json_schema_2020_12_tool")],
    adminToken: ADMIN_TOKEN,
  });
  client = new Client(new RequestManager([new HTTPTransport(`${mesh.gatewayUrl}/rpc`)]));
});
afterAll(() => mesh?.dispose());

it("returns an OpenRPC 1.2.6 document of every skill that passes the meta-schema", async () => {
  const document = await client.request({ method: "rpc.discover", params: [] });
  expect(validateOpenRPCDocument(document)).toBe(true);
  // The validator is not vacuous: a method without params fails it.
  expect(validateOpenRPCDocument({ ...document, methods: [{ name: "x" }] })).not.toBe(true);
  expect(document.openrpc).toBe("1.2.6");
  const names = document.methods.map((m: { name: string }) => m.name);
  // One method per skill name the mesh serves (skills/ holds whatever skills the project has).
  expect(names).toEqual([...new Set(mesh.skills.map((s) => s.manifest.name))].sort());
  expect(names).toEqual(expect.arrayContaining(["json_schema_2020_12_tool", "subtract", "sum"]));
  const subtract = document.methods.find((m: { name: string }) => m.name === "subtract");
  expect(subtract).toMatchObject({
    paramStructure: "either",
    params: [
      { name: "minuend", required: true, schema: { type: "number" } },
      { name: "subtrahend", required: true, schema: { type: "number" } },
    ],
    result: { schema: { type: "number" } },
  });
  const sum = document.methods.find((m: { name: string }) => m.name === "sum");
  expect(sum).toMatchObject({ paramStructure: "by-position", params: [{ name: "values", schema: { type: "number" } }] });
  // A $ref in a param still resolves: the input schema's $defs travel with it.
  const withRefs = document.methods.find((m: { name: string }) => m.name === "json_schema_2020_12_tool");
  expect(withRefs.params[1]).toMatchObject({ name: "address", schema: { $ref: "#/$defs/address", $defs: { address: { type: "object" } } } });
});

it("is called by the OpenRPC client by name and by position", async () => {
  expect(await client.request({ method: "subtract", params: { minuend: 42, subtrahend: 23 } })).toBe(19);
  expect(await client.request({ method: "subtract", params: [23, 42] })).toBe(-19);
  expect(await client.request({ method: "sum", params: [1, 2, 3.5] })).toBe(6.5);
  const error = await client.request({ method: "subtract", params: { minuend: "x" } }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(JSONRPCError);
  expect((error as JSONRPCError).code).toBe(-32602);
});
