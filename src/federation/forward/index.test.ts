import { describe, expect, it } from "vitest";
import { NAMESPACE_BINDING } from "../dispatch/index.js";
import { failureClassOf } from "../../policies/failures/index.js";
import { SKILL_RPC_METHOD } from "../../protocols/hop/rpc.js";
import { ErrorCode, RpcError } from "../../protocols/jsonrpc/index.js";
import type { Deployment } from "../../registry/deployments/model.js";
import { forwardCall } from "./index.js";

const manifest = {
  name: "test.spin",
  version: "1.0.0",
  description: "",
  tags: [],
  idempotent: false,
  degraded: false,
  timeoutMs: 1_000,
  limits: { cpuMs: 50, subRequests: 2 },
  inputSchema: {},
  outputSchema: {},
};
const deployment: Deployment = {
  id: "test.spin@1.0.0",
  name: "test.spin",
  version: "1.0.0",
  tags: [],
  manifest,
  endpoint: { dispatch: "skill-spin" },
  role: "stable",
  registrationId: "r1",
  registeredAt: 0,
};

/** A dispatch namespace whose one script the runtime stops with `message`, over RPC and over HTTP alike. */
const stoppedBy = (message: string) => ({
  [NAMESPACE_BINDING]: {
    get: () => ({
      [SKILL_RPC_METHOD]: () => Promise.reject(new Error(message)),
      fetch: () => Promise.reject(new Error(message)),
    }),
  },
});

const call = { method: "test.spin", params: {}, context: { caller: "anonymous" } };

describe("a dispatched skill stopped at its limits", () => {
  it("answers -32603 naming its CPU limit: counted by its breaker, not retried", async () => {
    const error = (await forwardCall(deployment, call, stoppedBy("Worker exceeded CPU time limit.")).catch((e: unknown) => e)) as RpcError;
    expect(error).toBeInstanceOf(RpcError);
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).toBe("test.spin exceeded its CPU limit (50 ms a call)");
    expect(failureClassOf(error.code)).toMatchObject({ breaker: true, retry: "never" });
  });

  it("answers the same over HTTP (a call with a signal), and for its subrequest limit", async () => {
    const error = (await forwardCall(deployment, { ...call, signal: new AbortController().signal }, stoppedBy("Too many subrequests.")).catch(
      (e: unknown) => e,
    )) as RpcError;
    expect(error.message).toBe("test.spin made more subrequests than its limit (2 a call)");
  });

  it("answers -32001 for any other failure of the dispatch", async () => {
    const error = (await forwardCall(deployment, call, stoppedBy("Network connection lost.")).catch((e: unknown) => e)) as RpcError;
    expect(error.code).toBe(ErrorCode.SkillUnavailable);
  });
});
