/**
 * Pipelines end to end in workerd: web.digest (html.extract → text.summarize, skills/web-digest)
 * called on /rpc and as an MCP tool, its steps going through the gateway as the pipeline's
 * caller — grants, canary routing, audit — with progress step by step. Then the static check
 * of a pipeline against the skills' contracts, as `skillmesh contracts check` runs it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { committedContracts, currentManifests, pipelineProblems } from "../scripts/contracts.js";
import { ROOT, skillDirs } from "../scripts/mesh/bundle.js";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { sseData } from "../src/protocols/sse/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";

const PAGE =
  "<html><head><title>Solar</title></head><body><p>Solar panels turn sunlight into electricity. The weather was nice on Tuesday. Panels are made of silicon cells that free electrons in sunlight. Batteries store solar electricity for the night.</p></body></html>";

/** A job's record once it has finished (polled with jobs.get as its owner). */
const finishedJob = (gatewayUrl: string, key: string, jobId: string) =>
  eventually(
    async () => (await wireOf(gatewayUrl).rpc("jobs.get", { jobId }, { key })).json.result,
    (result) => result?.status === "completed" || result?.status === "failed",
    30_000,
    200,
  );

let mesh: Mesh;
let everything: string;
let pipelineOnly: string;
beforeAll(async () => {
  mesh = await startMesh({ skills: skillDirs(), adminToken: ADMIN_TOKEN, gatewayVars: { SKILLMESH_AUTH: "required" } });
  everything = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "reader", skills: ["web.digest", "html.extract", "text.summarize"], groups: ["beta"] }))
    .json.key;
  pipelineOnly = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "pipeline-only", skills: ["web.digest"] })).json.key;
}, 120_000);
afterAll(() => mesh?.dispose());

const digest = (key: string, params: object, headers: Record<string, string> = {}) => wireOf(mesh.gatewayUrl).rpc("web.digest", params, { key, headers });

describe("web.digest, a pipeline served as a skill", () => {
  it("answers on /rpc: the page's title, word count and summary, from its two steps", async () => {
    const { json, headers } = await digest(everything, { html: PAGE, sentences: 2 });
    expect(json.result).toEqual({
      title: "Solar",
      words: expect.any(Number),
      summary: "Solar panels turn sunlight into electricity. Panels are made of silicon cells that free electrons in sunlight.",
      sentences: ["Solar panels turn sunlight into electricity.", "Panels are made of silicon cells that free electrons in sunlight."],
    });
    expect(headers.get("x-skill-version")).toBe("web.digest@1.0.0");
    // A page without text: the summarize step fails, and its onError default carries on.
    expect((await digest(everything, { html: "<p></p>" })).json.result).toEqual({ title: null, words: 0, summary: "", sentences: [] });
  });

  it("is an MCP tool like any skill", async () => {
    const { json } = await post(
      `${mesh.gatewayUrl}/mcp`,
      { jsonrpc: "2.0", method: "tools/call", params: { name: "web.digest", arguments: { html: PAGE, sentences: 1 } }, id: 2 },
      { authorization: `Bearer ${everything}`, "mcp-protocol-version": "2025-11-25" },
    );
    expect(json.result.structuredContent).toMatchObject({ title: "Solar", sentences: ["Solar panels turn sunlight into electricity."] });
  });

  it("reports step k of n to a caller that streams", async () => {
    const response = await fetch(`${mesh.gatewayUrl}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${everything}` },
      body: JSON.stringify({ jsonrpc: "2.0", method: "web.digest", params: { html: PAGE }, id: 3 }),
    });
    const messages: Array<{ method?: string; params?: { message?: string }; result?: unknown }> = [];
    for await (const data of sseData(response.body!)) messages.push(JSON.parse(data));
    expect(messages.filter((m) => m.method === "notifications/progress").map((m) => m.params!.message)).toEqual([
      "step 1 of 2: extract",
      "step 2 of 2: summarize",
    ]);
    expect(messages.at(-1)!.result).toMatchObject({ title: "Solar" });
  });

  it("runs as an async job, its steps with the grants its caller had at submit", async () => {
    const submitted = await digest(everything, { html: PAGE, sentences: 1 }, { prefer: "respond-async" });
    const { jobId } = submitted.json.result;
    const job = await finishedJob(mesh.gatewayUrl, everything, jobId);
    expect(job).toMatchObject({
      status: "completed",
      deployment: "web.digest@1.0.0",
      result: { title: "Solar", sentences: ["Solar panels turn sunlight into electricity."] },
    });
  });

  it("its steps run as its caller: a skill outside the caller's grants is not reachable through it", async () => {
    const { json } = await digest(pipelineOnly, { html: PAGE });
    expect(json.error).toMatchObject({
      code: -32601,
      message: "step extract (html.extract) failed: Method not found",
      data: { step: "extract", skill: "html.extract" },
    });
    // A forged delegation token is refused like any bad credential.
    const forged = await post(
      `${mesh.gatewayUrl}/rpc`,
      { jsonrpc: "2.0", method: "html.extract", params: { html: PAGE }, id: 1 },
      { authorization: "Bearer smd.eyJjIjoiayIsImciOiIqIiwiZXhwIjo5OTk5OTk5OTk5OTk5LCJhdWQiOiJ4In0.AAAA" },
    );
    expect(forged.status).toBe(401);
  });

  it("through a virtual server its steps run behind that server: what it exposes is reachable, what it does not is not", async () => {
    for (const [name, tools] of [
      ["web", ["web.*", "html.*", "text.*"]],
      ["digest-only", ["web.digest"]],
    ] as const)
      expect((await admin(mesh.gatewayUrl, "PUT", `/servers/${name}`, { tools })).status).toBe(200);
    const call = (server: string) =>
      wireOf(mesh.gatewayUrl).mcp2025(
        "tools/call",
        { name: "web.digest", arguments: { html: PAGE, sentences: 1 } },
        { key: everything, path: `/mcp/${server}` },
      );
    const through = (await call("web")).json.result;
    expect(through.isError, JSON.stringify(through)).toBeUndefined();
    expect(through.structuredContent).toMatchObject({ title: "Solar", summary: "Solar panels turn sunlight into electricity." });
    // The server is the door the caller came in by: its steps are held to it as the call is.
    const narrowed = (await call("digest-only")).json.result;
    expect(narrowed).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/step extract \(html\.extract\) failed: Method not found/) }] });
  });

  it("its steps are routed like direct calls: the caller's canary group reaches text.summarize 2.0.0, and the audit names the caller", async () => {
    expect((await admin(mesh.gatewayUrl, "POST", "/skills/text.summarize/canary", { version: "2.0.0", groups: { beta: 100 } })).status).toBe(200);
    try {
      expect((await digest(everything, { html: PAGE }, { "x-user-group": "beta" })).json.result.title).toBe("Solar");
      const keyId = (await admin(mesh.gatewayUrl, "GET", "/keys")).json.keys.find((k: { name: string }) => k.name === "reader").id;
      const steps = await eventually(
        async () =>
          (await admin(mesh.gatewayUrl, "GET", `/audit?caller=${keyId}&type=call&limit=10`)).json.entries as Array<{
            method: string;
            deployment?: string;
            group?: string;
          }>,
        (entries) => entries.some((e) => e.method === "text.summarize" && e.group === "beta"),
        5_000,
        100,
      );
      expect(steps.find((e) => e.method === "text.summarize" && e.group === "beta")!.deployment).toBe("text.summarize@2.0.0");
      expect(steps.some((e) => e.method === "html.extract")).toBe(true);
    } finally {
      await admin(mesh.gatewayUrl, "POST", "/skills/text.summarize/rollback", {});
    }
  });
});

describe("a pipeline checked against its skills' contracts", () => {
  mkdirSync(join(ROOT, ".skillmesh"), { recursive: true });
  const scratch = mkdtempSync(join(ROOT, ".skillmesh", "pipeline-check-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("the shipped pipeline passes; a template through a field html.extract does not have fails, naming pipeline, step and field", () => {
    const shipped = join(ROOT, "skills", "web-digest");
    expect(pipelineProblems([shipped], committedContracts())).toEqual([]);
    const broken = join(scratch, "web-digest");
    mkdirSync(broken);
    writeFileSync(
      join(broken, "pipeline.yaml"),
      readFileSync(join(shipped, "pipeline.yaml"), "utf8").replace("$.steps.extract.output.text", "$.steps.extract.output.body"),
    );
    expect(pipelineProblems([broken], committedContracts())).toEqual([
      "pipeline web.digest, step summarize, input.text: $.steps.extract.output.body: html.extract's output has no field body",
    ]);
  });

  it("a field the called skill does not declare is reported (skill inputs are strict by default)", async () => {
    const language = join(scratch, "pipeline-language");
    mkdirSync(language);
    writeFileSync(
      join(language, "pipeline.yaml"),
      readFileSync(join(fixture("pipeline-language"), "pipeline.yaml"), "utf8").replace(
        "input: { minuend: 10, subtrahend: 3 }",
        "input: { minuend: 10, subtrahend: 3, volume: 11 }",
      ),
    );
    const manifests = await currentManifests(["subtract", "sum"].map(fixture));
    expect(manifests.find((m) => m.name === "subtract")!.inputSchema.additionalProperties).toBe(false);
    // (The fixture calls no.such.skill on purpose, to exercise onError.)
    expect(pipelineProblems([language], manifests).filter((p) => !p.includes("no.such.skill"))).toEqual([
      "pipeline test.language, step maybe, input.volume: subtract's input has no field volume",
    ]);
  }, 60_000);
});

describe("a keyed retry of a pipeline", () => {
  let retry: Mesh;
  let key: string;
  beforeAll(async () => {
    retry = await startMesh({
      skills: ["tally", "flaky-v1", "pipeline-retry"].map(fixture),
      adminToken: ADMIN_TOKEN,
      gatewayVars: { SKILLMESH_AUTH: "required" },
    });
    key = (await admin(retry.gatewayUrl, "POST", "/keys", { name: "retrier", skills: ["*"] })).json.key;
  }, 120_000);
  afterAll(() => retry?.dispose());

  const control = (mode: string, times?: number) =>
    fetch(`${retry.skills.find((s) => s.manifest.name === "test.flaky")!.url}/control`, { method: "POST", body: JSON.stringify({ mode, times }) });
  const run = () => wireOf(retry.gatewayUrl).rpc("test.count-then-flaky", { label: "order-7" }, { key, headers: { "idempotency-key": "order-7" } });
  const tally = async (label: string) => (await wireOf(retry.gatewayUrl).rpc("test.tally", { label, peek: true }, { key })).json.result.count;

  it("does not run again a step that succeeded: each step's key is derived from the call's", async () => {
    await control("503");
    const failed = await run();
    expect(failed.json.error).toMatchObject({ code: -32001, data: { step: "flaky", skill: "test.flaky" } });
    await control("ok");
    const retried = await run();
    // The count step answered from its first run (count 1), not a second execution.
    expect(retried.json.result).toEqual({ count: 1, version: "1.0.0" });
    expect(await tally("order-7")).toBe(1);
  });

  it("as an async job, a failing step is retried by the engine later, the steps before it not run again", async () => {
    // Every attempt fails for a while: the step's 3, times the pipeline call's 3 (it is idempotent).
    await control("503", 9);
    const submitted = await post(
      `${retry.gatewayUrl}/rpc`,
      { jsonrpc: "2.0", method: "test.count-then-flaky", params: { label: "job-1" }, id: 1 },
      { authorization: `Bearer ${key}`, prefer: "respond-async" },
    );
    const { jobId } = submitted.json.result;
    const job = await finishedJob(retry.gatewayUrl, key, jobId);
    // The engine's second run: the count step replayed (1), the flaky step ran again and succeeded.
    expect(job).toMatchObject({ status: "completed", result: { count: 1, version: "1.0.0" } });
    expect(await tally("job-1")).toBe(1);
    const flaky = (await (await fetch(`${retry.skills.find((s) => s.manifest.name === "test.flaky")!.url}/control`)).json()) as { calls: number };
    expect(flaky.calls).toBeGreaterThan(9); // it did fail 9 times before the engine's retry got through
  }, 60_000);
});

describe("the pipeline language in workerd", () => {
  let language: Mesh;
  beforeAll(async () => {
    language = await startMesh({ skills: ["subtract", "sum", "pipeline-language"].map(fixture), adminToken: ADMIN_TOKEN });
  }, 120_000);
  afterAll(() => language?.dispose());

  const run = async (params: object) => (await wireOf(language.gatewayUrl).rpc("test.language", params)).json;

  it("parallel groups, forEach, when, onError default and fallback, whole and embedded templates", async () => {
    expect((await run({ values: [1, 2, 3], base: 10 })).result).toEqual({
      total: 6, // sum, in parallel with…
      less: 9, // …subtract, read by position ($.step_1)
      each: [-8, -7, -6], // forEach over the values, each minus `less`
      maybe: 7, // when: true
      missing: -1, // onError: default
      rescued: 3, // onError: fallback to subtract with the same input
      text: "total 6 from 3 values", // embedded templates become text
    });
    expect((await run({ values: [4], base: 1, skip: true })).result).toMatchObject({ total: 4, less: 0, each: [4], maybe: null });
  });

  it("forEach never runs more than `concurrency` calls at once", async () => {
    const foreach = await startMesh({ skills: ["inflight", "pipeline-foreach"].map(fixture), adminToken: ADMIN_TOKEN });
    try {
      const call = (method: string, params: object) => post(`${foreach.gatewayUrl}/rpc`, { jsonrpc: "2.0", method, params, id: 1 });
      expect((await call("test.foreach", { items: [1, 2, 3, 4, 5, 6] })).json.result).toBe(6);
      expect((await call("test.inflight", { peek: true })).json.result).toEqual({ most: 2 });
    } finally {
      await foreach.dispose();
    }
  }, 60_000);

  it("bad input is refused before any step runs", async () => {
    expect((await run({ values: "no" })).error).toMatchObject({ code: -32602 });
  });
});

describe("a step's breaker fallback inside a pipeline", () => {
  let fallback: Mesh;
  beforeAll(async () => {
    fallback = await startMesh({ skills: ["tally", "flaky-v1", "flaky-degraded", "pipeline-retry"].map(fixture), adminToken: ADMIN_TOKEN });
  }, 120_000);
  afterAll(() => fallback?.dispose());

  it("a step whose skill's breaker is open is answered by the degraded deployment, as a direct call would be", async () => {
    const stable = fallback.skills.find((s) => s.manifest.name === "test.flaky" && s.manifest.version === "1.0.0")!;
    await fetch(`${stable.url}/control`, { method: "POST", body: JSON.stringify({ mode: "throw" }) });
    // Several callers' failures open the breaker (one caller alone never does).
    const direct = (i: number) =>
      post(`${fallback.gatewayUrl}/rpc`, { jsonrpc: "2.0", method: "test.flaky", params: { value: "v" }, id: 1 }, { authorization: `Bearer caller-${i}` });
    // (Isolates see a breaker's state within a second: poll until the degraded deployment answers.)
    let i = 0;
    const answer = await eventually(
      () => direct(i++),
      (r) => r.headers.get("x-skill-degraded") === "1",
      10_000,
      50,
    );
    expect(answer.headers.get("x-skill-degraded")).toBe("1");
    const { json } = await post(
      `${fallback.gatewayUrl}/rpc`,
      { jsonrpc: "2.0", method: "test.count-then-flaky", params: { label: "fallback" }, id: 1 },
      { authorization: "Bearer caller-pipeline" },
    );
    expect(json.result).toEqual({ count: 1, version: "0.9.0-lead" });
  });
});
