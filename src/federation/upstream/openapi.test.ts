import { type Server, createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RpcError } from "../../protocols/jsonrpc/index.js";
import { callOperation, jsonSchemaOf, operationUrl, pathRefusal } from "./openapi.js";

describe("where an operation is called", () => {
  it("keeps every request at the base URL's origin and under its path, whatever the path or the arguments say", () => {
    expect(operationUrl("https://api.example/v1/", "/pets/{id}", { id: "a/b?c" }).href).toBe("https://api.example/v1/pets/a%2Fb%3Fc");
    expect(() => operationUrl("https://api.example/v1", "@evil.example/x", {})).toThrow(/outside its API's base URL/);
    expect(() => operationUrl("https://api.example/v1", ":8443/x", {})).toThrow(/outside its API's base URL/);
    expect(() => operationUrl("https://api.example/v1", "/../admin", {})).toThrow(/outside its API's base URL/);
    expect(pathRefusal(".attacker.example/steal")).toMatch(/does not start with \//);
    expect(pathRefusal("//evil.example/x")).toMatch(/could lead out/);
    expect(pathRefusal("/pets/{petId}")).toBeUndefined();
  });

  it("writes out a schema within its budget, whatever a shared component costs", () => {
    const leaf = { type: "string", description: "x".repeat(1_000) };
    let node: Record<string, unknown> = leaf;
    for (let i = 0; i < 30; i++) node = { type: "object", properties: { a: node, b: node } };
    expect(() => jsonSchemaOf(node)).toThrow(/would take more than/);
    expect(jsonSchemaOf({ type: "object", properties: { a: leaf } })).toEqual({ type: "object", properties: { a: leaf } });
  });
});

describe("callOperation", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      const status = Number(new URL(request.url!, "http://x").searchParams.get("status") ?? 200);
      response
        .writeHead(status, { "content-type": "application/json", ...(status === 429 ? { "retry-after": "3" } : {}) })
        .end(JSON.stringify(status === 200 ? { ok: request.url } : { message: `said ${status}` }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const call = (status: number, extra: Partial<Parameters<typeof callOperation>[0]> = {}) =>
    callOperation({
      url,
      operation: { method: "get", path: "/x", parameters: [{ name: "status", in: "query", required: false }] },
      args: { status },
      headers: {},
      signal: AbortSignal.timeout(5_000),
      label: "api.x",
      ...extra,
    });
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      (): [number, string] => [0, ""],
      (error: RpcError): [number, string] => [error.code, error.message],
    );

  it("answers the API's statuses as the gateway's codes, with the API's own message", async () => {
    expect(await call(200)).toEqual({ ok: "/api/x?status=200" });
    expect(await codeOf(call(422))).toEqual([-32602, "Invalid params: api.x answered HTTP 422: said 422"]);
    expect((await codeOf(call(429)))[0]).toBe(-32005);
    expect((await codeOf(call(401)))[0]).toBe(-32006);
    expect((await codeOf(call(503)))[0]).toBe(-32001);
  });

  it("adds a query credential to the URL, and asks the endpoint policy of the final URL", async () => {
    expect(await call(200, { query: { api_key: "k" } })).toEqual({ ok: "/api/x?status=200&api_key=k" });
    const refused = await codeOf(call(200, { urlRefusal: (final) => (final.includes("status=200") ? "no" : undefined) }));
    expect(refused).toEqual([-32001, "api.x may not be called at the URL its definition gives (the gateway's endpoint policy refuses it); retry after 1 s"]);
  });
});
