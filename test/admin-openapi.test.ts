/**
 * The admin API's OpenAPI 3.1 document: valid by the OpenAPI 3.1 schema (an independent
 * validator), up to date with the zod schemas it is generated from, naming exactly the routes
 * the gateway has, and served by a running gateway at /admin/openapi.json behind the admin
 * credential. Requests and answers of a real gateway are checked against it.
 */
import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRoutes } from "../routes/admin/index.js";
import { OPENAPI_PATH, generatedOpenApi } from "../scripts/reference.js";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, fixture } from "./support/fixtures.js";

const committed = readFileSync(OPENAPI_PATH, "utf8");
const document = JSON.parse(committed) as { openapi: string; paths: Record<string, Record<string, unknown>> };

describe("src/admin/api/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe("3.1.0");
  });

  it("is up to date with the admin API's zod schemas (else: npm run reference)", () => {
    expect(committed).toBe(generatedOpenApi());
  });

  it("names every admin route the gateway serves, and no other", () => {
    const served = adminRoutes.routes
      .filter((route) => route.method !== "ALL")
      .map((route) => `${route.method} ${route.path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}")}`);
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect([...new Set(served)].sort()).toEqual(documented.sort());
  });
});

describe("GET /admin/openapi.json on a running gateway", () => {
  let mesh: Mesh;
  beforeAll(async () => {
    mesh = await startMesh({ skills: [fixture("echo-v1")], adminToken: ADMIN_TOKEN });
  });
  afterAll(() => mesh?.dispose());

  /** The document, compiled once, for validators of its answers. */
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...document, $id: "admin-openapi" });
  /** A validator of the 200 answer the document gives for `method path`. */
  const answerOf = (method: string, path: string) => {
    const pointer = `/paths/${path.replaceAll("~", "~0").replaceAll("/", "~1")}/${method}/responses/200/content/application~1json/schema`;
    return ajv.compile({ $ref: `admin-openapi#${pointer}` });
  };

  it("describes what the gateway really answers: the registry page, one skill, the keys, the audit log", async () => {
    const get = async (path: string) => (await fetch(`${mesh.gatewayUrl}/admin${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json();
    for (const [path, route] of [
      ["/deployments", "/deployments"],
      ["/skills/test.echo", "/skills/{name}"],
      ["/keys", "/keys"],
      ["/audit", "/audit"],
    ] as const) {
      const valid = answerOf("get", route);
      const answer = await get(path);
      expect(valid(answer), `${path}: ${JSON.stringify(valid.errors)}`).toBe(true);
    }
    // And it is not a schema that takes anything: a page without its deployments is refused.
    const page = (await get("/deployments")) as Record<string, unknown>;
    expect(answerOf("get", "/deployments")({ ...page, deployments: undefined })).toBe(false);
  });

  it("serves the document to an admin credential, and nothing without one", async () => {
    const served = await fetch(`${mesh.gatewayUrl}/admin/openapi.json`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual(document);
    expect((await fetch(`${mesh.gatewayUrl}/admin/openapi.json`)).status).toBe(401);
  });
});
