import { describe, expect, it } from "vitest";
import { endpointRefusal } from "../forward/endpoint-policy.js";
import { RegistryRepository } from "../../registry/deployments/repository.js";
import { memoryStore } from "../../store/memory.js";
import { mcpManifestOf, selects, skillNameOf } from "./definitions.js";
import { Upstreams } from "./index.js";
import { UpstreamError } from "./kind.js";
import { NoUpstreamKey, seal, unseal } from "./secrets.js";

const KEY = "a-gateway-key-of-at-least-32-characters";

function upstreams(upstreamKey?: string) {
  const store = memoryStore();
  return new Upstreams(store, new RegistryRepository(store), { upstreamKey, urlRefusal: (url, what) => endpointRefusal(url, { allowPrivate: false }, what) });
}

describe("registering an upstream", () => {
  it("refuses URLs outside the endpoint policy before calling anything", async () => {
    for (const url of ["https://169.254.169.254/mcp", "http://api.example.com/mcp", "https://user:pw@api.example.com/mcp", "https://localhost/mcp"]) {
      const refused = await upstreams(KEY)
        .sync.register({ kind: "mcp", name: "x", url, version: "1.0.0", tags: [], auth: { type: "none" } })
        .catch((e) => e);
      expect(refused, url).toBeInstanceOf(UpstreamError);
      expect(refused.status).toBe(400);
    }
    const token = await upstreams(KEY)
      .sync.register({
        kind: "mcp",
        name: "x",
        url: "https://api.example.com/mcp",
        version: "1.0.0",
        tags: [],
        auth: { type: "client_credentials", tokenUrl: "https://10.0.0.1/token", clientId: "c", clientSecret: "s" },
      })
      .catch((e) => e);
    expect(token.message).toContain("a token URL");
  });

  it("refuses a secret it could not seal (no SKILLMESH_UPSTREAM_KEY)", async () => {
    const refused = await upstreams()
      .sync.register({ kind: "mcp", name: "x", url: "https://api.example.com/mcp", version: "1.0.0", tags: [], auth: { type: "bearer", token: "t" } })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(NoUpstreamKey);
  });
});

describe("sealed secrets", () => {
  it("open only with the same key and for what they were sealed for", async () => {
    const sealed = await seal(KEY, "upstream:a", "s3cret");
    expect(JSON.stringify(sealed)).not.toContain("s3cret");
    expect(await unseal(KEY, "upstream:a", sealed)).toBe("s3cret");
    await expect(unseal(KEY, "upstream:b", sealed)).rejects.toMatchObject({ code: -32001 });
    await expect(unseal(`${KEY}-other`, "upstream:a", sealed)).rejects.toMatchObject({ code: -32001 });
  });
});

describe("definitions", () => {
  const source = { upstream: "everything", version: "1.0.0", tags: ["demo"] };
  it("names tools <upstream>.<tool> and refuses names a skill cannot have", () => {
    expect(skillNameOf("everything", "get-sum")).toEqual({ name: "everything.get-sum" });
    expect(skillNameOf("everything", "x".repeat(60))).toHaveProperty("refused");
    expect(skillNameOf("everything", "with space")).toHaveProperty("refused");
  });
  it("makes a read-only or idempotent tool idempotent, and tags it with its upstream", () => {
    const made = mcpManifestOf(source, { name: "echo", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } });
    expect("manifest" in made && made.manifest).toMatchObject({
      name: "everything.echo",
      idempotent: true,
      tags: ["upstream:everything", "demo"],
      answers: "tool-result",
    });
    const unsafe = mcpManifestOf(source, { name: "write", inputSchema: { type: "object" }, annotations: { readOnlyHint: false } });
    expect("manifest" in unsafe && unsafe.manifest.idempotent).toBe(false);
  });
  it("keeps the upstream's own tag when the operator gives the most tags a manifest takes (code review 4, the 32-tag drop)", () => {
    const tags = Array.from({ length: 32 }, (_, i) => `t${i}`);
    const made = mcpManifestOf({ ...source, tags }, { name: "echo", inputSchema: { type: "object" } });
    expect("manifest" in made && made.manifest.tags).toHaveLength(32);
    expect("manifest" in made && made.manifest.tags[0]).toBe("upstream:everything");
  });
  it("selects by include and exclude globs", () => {
    expect(selects({ include: ["get-*"], exclude: ["get-env"] }, "get-sum")).toBe(true);
    expect(selects({ include: ["get-*"], exclude: ["get-env"] }, "get-env")).toBe(false);
    expect(selects({}, "anything")).toBe(true);
  });
});
