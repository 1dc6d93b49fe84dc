import { describe, expect, it } from "vitest";
import { memoryStore } from "../../store/memory.js";
import { accessOfSignature, delegatedAccess } from "./access.js";
import { type Delegation, Delegations, isDelegationToken } from "./delegation.js";

const delegation: Delegation = {
  caller: "k_0123456789ab",
  grants: JSON.stringify([["text.*", "html.*"], [], ["beta"], null]),
  pipeline: "web.digest@1.0.0",
  steps: [["html.extract", "text.summarize"]],
  limits: { identifier: "k_0123456789ab", rate: { limit: 2, windowMs: 60_000 } },
  context: { userId: "alice", group: "beta" },
  expiresAt: 10_000,
};

describe("delegation tokens", () => {
  it("stand for what they were issued for, until the call ends", async () => {
    const delegations = new Delegations(memoryStore());
    const { token, end } = await delegations.issue(delegation, 1_000);
    expect(isDelegationToken(token)).toBe(true);
    expect(token).toMatch(/^smd\.[0-9a-f]{64}$/);
    expect(await delegations.find(token, 2_000)).toEqual(delegation);
    await end();
    expect(await delegations.find(token, 2_000)).toBeUndefined();
  });

  it("end at the call's deadline, and no token names another call's", async () => {
    const delegations = new Delegations(memoryStore());
    const a = await delegations.issue(delegation, 1_000);
    const b = await delegations.issue({ ...delegation, caller: "k_ffffffffffff" }, 1_000);
    expect(a.token).not.toBe(b.token);
    expect((await delegations.find(b.token, 2_000))?.caller).toBe("k_ffffffffffff");
    expect(await delegations.find(a.token, 10_001)).toBeUndefined();
  });

  it("a made-up or malformed token stands for nobody", async () => {
    const delegations = new Delegations(memoryStore());
    await delegations.issue(delegation, 1_000);
    for (const token of [`smd.${"0".repeat(64)}`, "smd.eyJjIjoiayJ9.bWFj", "smd.", "sm_notadelegation"])
      expect(await delegations.find(token, 2_000), token).toBeUndefined();
  });

  it("the access of a step: the caller's grants, narrowed to the skills every pipeline on the way declares, never admin", () => {
    const base = accessOfSignature(delegation.grants);
    const step = delegatedAccess(base, delegation.steps);
    expect(step.allowsSkill("html.extract", [])).toBe(true);
    expect(step.allowsSkill("text.summarize", [])).toBe(true);
    // Granted to the caller, but not a step of this pipeline.
    expect(base.allowsSkill("text.translate", [])).toBe(true);
    expect(step.allowsSkill("text.translate", [])).toBe(false);
    // A step of the pipeline, but not granted to the caller.
    expect(delegatedAccess(base, [["modbus.decode"]]).allowsSkill("modbus.decode", [])).toBe(false);
    // Nested: a skill must be on every pipeline's list.
    expect(delegatedAccess(base, [["html.extract", "text.summarize"], ["text.summarize"]]).allowsSkill("html.extract", [])).toBe(false);
    expect(step.admin).toBe("none");
    expect(step.allowsGroup("beta")).toBe(true);
    expect(step.allowsGroup("staff")).toBe(false);
  });
});
