import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../protocols/jsonrpc/index.js";
import type { CallerCatalog } from "./caller-catalog.js";
import type { Operation, OperationKind, Target } from "./operation.js";
import { OPERATIONS, notFoundOf, rowOf } from "./operations.js";

/** One operation of every kind, as its door makes it. */
const ONE_OF_EACH: { [K in OperationKind]: Extract<Operation, { kind: K }> } = {
  resource: { kind: "resource", method: "resources/read", uri: "units://table" },
  archive: { kind: "archive", method: "GET /.well-known/agent-skills/triage.tar.gz", package: "triage" },
  prompt: { kind: "prompt", method: "prompts/get", name: "triage", arguments: { frame: "01 03" } },
  completion: { kind: "completion", method: "completion/complete", ref: { type: "ref/prompt", name: "triage" }, argument: { name: "frame", value: "01" } },
  search: { kind: "search", method: "catalog.search", query: { query: "modbus", limit: 5 } },
  index: { kind: "index", method: "GET /.well-known/agent-skills/index.json" },
  task: { kind: "task", method: "tasks/get", jobId: "j_1" },
  "agent-task": { kind: "agent-task", method: "GetTask", agent: "writer", taskId: "t_1" },
  subscribe: { kind: "subscribe", method: "resources/subscribe", uri: "units://table" },
  session: { kind: "session", method: "logging/setLevel" },
  discovery: { kind: "discovery", method: "GET /mcp/tools/server-card", document: "server-card", server: "tools", origin: "https://gw.example" },
  credential: { kind: "credential", method: "PUT /upstreams/crm/credential", verb: "PUT", upstream: "crm", token: "secret-token" },
  "agent-card": { kind: "agent-card", method: "GET /a2a/writer/.well-known/agent-card.json", agent: "writer", origin: "https://gw.example" },
  execute: { kind: "execute", method: "code.execute", code: "async () => 1", ran: { id: "x_1", calls: 0 } },
};

/** A caller's catalog that knows one thing of each sort, on no runtime but the parts a row reads. */
function stubCatalog(known: { resource?: Target; prompt?: Target; discoverable?: boolean; anonymous?: boolean }): CallerCatalog {
  return {
    resourceTarget: async () => known.resource,
    promptTarget: async () => known.prompt,
    templateTarget: async () => undefined,
    runtime: { servers: { get: async () => ({ definition: { discoverable: known.discoverable } }) } },
    scope: { context: { caller: known.anonymous ? "anonymous" : "k_1" } },
  } as unknown as CallerCatalog;
}

describe("the operation rows", () => {
  it("has a row for every kind, each naming what its audit entry records and never the caller's secrets", () => {
    const audited = Object.fromEntries(
      Object.values(ONE_OF_EACH).map((op) => [op.kind, { resource: rowOf(op).resource(op), params: rowOf(op).audited?.(op) }]),
    );
    expect(Object.keys(OPERATIONS).sort()).toEqual(Object.keys(ONE_OF_EACH).sort());
    expect(audited).toEqual({
      resource: { resource: "units://table", params: undefined },
      archive: { resource: "skill://triage/.tar.gz", params: undefined },
      prompt: { resource: "prompt:triage", params: { name: "triage", arguments: { frame: "01 03" } } },
      completion: { resource: "prompt:triage", params: { argument: { name: "frame", value: "01" } } },
      search: { resource: undefined, params: { query: "modbus", limit: 5 } },
      index: { resource: undefined, params: undefined },
      task: { resource: "task:j_1", params: undefined },
      "agent-task": { resource: "task:writer/t_1", params: undefined },
      subscribe: { resource: "units://table", params: undefined },
      session: { resource: undefined, params: undefined },
      discovery: { resource: "server-card:tools", params: undefined },
      // The token is the caller's: never in the audit entry.
      credential: { resource: "upstream:crm/credential", params: undefined },
      "agent-card": { resource: "a2a:writer/agent-card", params: undefined },
      // A script is fingerprinted; its text is kept in its execution record.
      execute: { resource: undefined, params: { code: "async () => 1" } },
    });
  });

  it("words each kind's not-found as its protocol does, or as the door asked", () => {
    expect(notFoundOf(ONE_OF_EACH.prompt).toJSON()).toEqual({ code: ErrorCode.InvalidParams, message: "Unknown prompt: triage; prompts/list lists them" });
    expect(notFoundOf(ONE_OF_EACH.resource).toJSON()).toEqual({ code: ErrorCode.InvalidParams, message: "Resource not found", data: { uri: "units://table" } });
    expect(notFoundOf(ONE_OF_EACH["agent-task"]).message).toBe("Task not found: t_1");
    expect(notFoundOf(ONE_OF_EACH.credential).message).toBe("No upstream crm you may call takes a credential of its callers");
    // The 2026-07-28 era words a missing resource its own way; the data still names the URI.
    const own = notFoundOf({ ...ONE_OF_EACH.resource, notFound: { code: -32602, message: "Resource not found: units://table" } });
    expect(own.toJSON()).toEqual({ code: -32602, message: "Resource not found: units://table", data: { uri: "units://table" } });
  });

  it("resolves over the caller's catalog: what it cannot see is nothing", async () => {
    const skillResource: Target = { owner: "skill", skill: "units.convert" };
    const seeing = stubCatalog({ resource: skillResource, discoverable: true });
    const blind = stubCatalog({ discoverable: false, anonymous: true });
    expect(await rowOf(ONE_OF_EACH.resource).resolve(ONE_OF_EACH.resource, seeing)).toEqual(skillResource);
    expect(await rowOf(ONE_OF_EACH.subscribe).resolve(ONE_OF_EACH.subscribe, seeing)).toEqual(skillResource);
    expect(await rowOf(ONE_OF_EACH.resource).resolve(ONE_OF_EACH.resource, blind)).toBeUndefined();
    expect(await rowOf(ONE_OF_EACH.prompt).resolve(ONE_OF_EACH.prompt, blind)).toBeUndefined();
    // A virtual server's card is there only while the server is defined discoverable.
    expect(await rowOf(ONE_OF_EACH.discovery).resolve(ONE_OF_EACH.discovery, seeing)).toEqual({ owner: "gateway", name: "server-card" });
    expect(await rowOf(ONE_OF_EACH.discovery).resolve(ONE_OF_EACH.discovery, blind)).toBeUndefined();
    // An anonymous caller keeps no credential.
    expect(await rowOf(ONE_OF_EACH.credential).resolve(ONE_OF_EACH.credential, blind)).toBeUndefined();
    // The gateway's own: never not found.
    expect(await rowOf(ONE_OF_EACH.search).resolve(ONE_OF_EACH.search, blind)).toEqual({ owner: "gateway", name: "catalog.search" });
  });
});
