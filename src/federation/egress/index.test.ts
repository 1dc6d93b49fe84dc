import { describe, expect, it } from "vitest";
import { type EgressRefusal, answerEgress, hostDeclared } from "./index.js";
import { SkillManifestSchema } from "../../skill/manifest.js";

describe("hostDeclared", () => {
  it("matches a host exactly, in any case and with a trailing dot", () => {
    expect(hostDeclared("api.example.com", ["api.example.com"])).toBe(true);
    expect(hostDeclared("API.Example.com.", ["api.example.com"])).toBe(true);
    expect(hostDeclared("api.example.com.evil.net", ["api.example.com"])).toBe(false);
    expect(hostDeclared("example.com", ["api.example.com"])).toBe(false);
  });

  it("matches subdomains under *., not the domain itself nor a look-alike", () => {
    expect(hostDeclared("en.wikipedia.org", ["*.wikipedia.org"])).toBe(true);
    expect(hostDeclared("a.b.wikipedia.org", ["*.wikipedia.org"])).toBe(true);
    expect(hostDeclared("wikipedia.org", ["*.wikipedia.org"])).toBe(false);
    expect(hostDeclared("evilwikipedia.org", ["*.wikipedia.org"])).toBe(false);
  });

  it("matches anything under *, nothing when none is declared", () => {
    expect(hostDeclared("anything.example", ["*"])).toBe(true);
    expect(hostDeclared("anything.example", [])).toBe(false);
  });
});

describe("answerEgress", () => {
  const params = { deployment: "test.fetcher@1.0.0", hosts: ["api.example.com"] };
  const run = async (url: string, given: unknown = params) => {
    const refused: EgressRefusal[] = [];
    const sent: string[] = [];
    const response = await answerEgress(
      new Request(url, { method: "POST", body: "data" }),
      given,
      (r) => refused.push(r),
      (request) => (sent.push(request.url), Promise.resolve(new Response("upstream"))),
    );
    return { response, refused, sent };
  };

  it("sends a request to a declared host on, as it is", async () => {
    const { response, refused, sent } = await run("https://api.example.com/v1?q=1");
    expect(await response.text()).toBe("upstream");
    expect(sent).toEqual(["https://api.example.com/v1?q=1"]);
    expect(refused).toEqual([]);
  });

  it("refuses any other host with 403 and reports the host alone, never the path or query", async () => {
    const { response, refused, sent } = await run("https://collector.evil.net/steal?secret=1");
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      "collector.evil.net is not among the hosts test.fetcher@1.0.0 declares",
    );
    expect(sent).toEqual([]);
    expect(refused).toEqual([{ deployment: "test.fetcher@1.0.0", method: "POST", host: "collector.evil.net" }]);
  });

  it("refuses everything without the gateway's parameters", async () => {
    for (const given of [null, {}, { deployment: "x", hosts: "*" }]) {
      const { response, sent, refused } = await run("https://api.example.com/", given);
      expect(response.status).toBe(403);
      expect(sent).toEqual([]);
      expect(refused[0]!.deployment).toBe("(unknown)");
    }
  });
});

describe("a manifest's egress and limits", () => {
  const manifest = (extra: Record<string, unknown>) =>
    SkillManifestSchema.safeParse({
      name: "x",
      version: "1.0.0",
      description: "",
      tags: [],
      idempotent: false,
      degraded: false,
      timeoutMs: 1000,
      inputSchema: {},
      outputSchema: {},
      ...extra,
    }).success;

  it("takes host names in lower case, *.domain and *", () => {
    expect(manifest({ egress: ["api.example.com", "*.wikipedia.org", "*", "127.0.0.1"] })).toBe(true);
    for (const bad of ["API.example.com", "https://api.example.com", "api.example.com/path", "*.", "**.x.com", "a.*.com", "", "ex ample.com"])
      expect(manifest({ egress: [bad] }), bad).toBe(false);
  });

  it("takes CPU and subrequest limits, nothing else", () => {
    expect(manifest({ limits: { cpuMs: 50, subRequests: 10 } })).toBe(true);
    expect(manifest({ limits: { cpuMs: 0 } })).toBe(false);
    expect(manifest({ limits: { memoryMb: 10 } })).toBe(false);
  });
});
