import { describe, expect, it } from "vitest";
import type { StreamResponse } from "../../protocols/a2a/index.js";
import { STREAM_FLUSH_MS } from "./events.js";
import { ContentPath, passed } from "./index.js";

// Made-up credentials in the shapes the rules know (none is live).
const GITHUB = `ghp_${"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}`;
const DB = "postgres://admin:Sup3rS3cret@db.internal:5432/prod";

/** Sinks that keep what reached the caller. */
function sinks() {
  const got = { progress: [] as unknown[], logs: [] as unknown[], events: [] as StreamResponse[] };
  return {
    got,
    sinks: {
      onProgress: (p: unknown) => void got.progress.push(p),
      onLog: (m: unknown) => void got.logs.push(m),
      onAgentEvent: (e: StreamResponse) => void got.events.push(e),
    },
  };
}

const chunk = (text: string, append: boolean, lastChunk = false): StreamResponse => ({
  artifactUpdate: { taskId: "t1", contextId: "c1", artifact: { artifactId: "a1", parts: [{ text }] }, append, lastChunk },
});

describe("ContentPath", () => {
  it("passes everything as it is when the guardrail is off, and answers only what passed", async () => {
    const path = new ContentPath("off");
    const { got, sinks: s } = sinks();
    const relays = path.relays(s)!;
    relays.onProgress!({ progress: 1, message: GITHUB });
    relays.onLog!({ level: "info", data: GITHUB });
    const outcome = { ok: true as const, result: { text: GITHUB } };
    const answered = await path.answer(outcome);
    expect(got.progress).toEqual([{ progress: 1, message: GITHUB }]);
    expect(got.logs).toEqual([{ level: "info", data: GITHUB }]);
    expect(answered).toEqual(outcome);
    expect(passed(answered)).toBe(answered);
  });

  it("answers -32603 for an outcome that did not pass it", () => {
    const outcome = passed({ ok: true, result: "from a side door" });
    expect(outcome).toMatchObject({ ok: false, error: { code: -32603 } });
  });

  it("redacts every channel under redact, and reports what it found where", async () => {
    const path = new ContentPath("redact");
    const sent = await path.sent({ text: `use ${GITHUB}` });
    expect(sent).toEqual({ value: { text: "use [REDACTED:GITHUB_TOKEN]" } });
    const { got, sinks: s } = sinks();
    const relays = path.relays(s)!;
    relays.onProgress!({ progress: 1, message: `progress with ${GITHUB.slice(0, 12)}` });
    relays.onProgress!({ progress: 2, message: `${GITHUB.slice(12)} done` });
    relays.onLog!({ level: "error", logger: "db", data: { conn: DB } });
    const answered = await path.answer({
      ok: false,
      error: { code: -32603, message: "failed", data: { toolResult: { content: [{ type: "text", text: GITHUB }] } } },
    });
    expect(JSON.stringify([got, answered])).not.toContain(GITHUB.slice(12));
    expect(JSON.stringify([got, answered])).not.toContain("Sup3rS3cret");
    expect(got.progress).toHaveLength(2);
    expect(got.logs).toEqual([{ level: "error", logger: "db", data: { conn: "[REDACTED:POSTGRESQLCONNECTION]" } }]);
    expect(answered).toMatchObject({ ok: false, error: { code: -32603, data: { toolResult: { content: [{ text: "[REDACTED:GITHUB_TOKEN]" }] } } } });
    expect(answered.guardrail).toEqual({
      guardrail: "secrets",
      action: "redacted",
      findings: [
        { kind: "GITHUB_TOKEN", path: "text", where: "arguments" },
        { kind: "GITHUB_TOKEN", path: "message", where: "progress" },
        { kind: "POSTGRESQLCONNECTION", path: "data.conn", where: "log" },
        { kind: "GITHUB_TOKEN", path: "data.toolResult.content[0].text", where: "error" },
      ],
    });
  });

  it("under refuse, relays nothing from the first finding on and withholds the answer", async () => {
    const path = new ContentPath("refuse");
    const { got, sinks: s } = sinks();
    const relays = path.relays(s)!;
    relays.onProgress!({ progress: 1, message: "starting" });
    relays.onLog!({ level: "error", data: { token: GITHUB } });
    relays.onProgress!({ progress: 2, message: "clean, but after a finding" });
    const answered = await path.answer({ ok: true, result: { content: [{ type: "text", text: "done" }] }, deployment: "x@1.0.0" });
    expect(got.progress).toEqual([{ progress: 1, message: "starting" }]);
    expect(got.logs).toEqual([]);
    expect(answered).toMatchObject({ ok: false, error: { code: -32603 }, deployment: "x@1.0.0", guardrail: { action: "refused" } });
    expect(JSON.stringify(answered)).not.toContain(GITHUB);
  });

  it("refuses arguments with a credential under refuse: nothing is sent", async () => {
    const sent = await new ContentPath("refuse").sent({ text: GITHUB });
    expect(sent).toMatchObject({ refusal: { ok: false, error: { code: -32602 }, guardrail: { action: "refused" } } });
    expect(JSON.stringify(sent)).not.toContain(GITHUB);
  });

  /** An agent streaming `deploy token: <GITHUB>` in two appended chunks, then completing, through a path of `mode`. */
  async function splitStream(mode: "redact" | "refuse") {
    const path = new ContentPath(mode);
    const { got, sinks: s } = sinks();
    const relays = path.relays(s)!;
    relays.onAgentEvent!(chunk(`deploy token: ${GITHUB.slice(0, 20)}`, false));
    relays.onAgentEvent!(chunk(GITHUB.slice(20), true, true));
    relays.onAgentEvent!({ statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } });
    return { got, answered: await path.answer({ ok: true, result: {} }) };
  }

  it("finds a token an agent streams in two appended chunks: no event carries it, the text assembles redacted", async () => {
    const { got, answered } = await splitStream("redact");
    const texts = got.events.flatMap((e) => ("artifactUpdate" in e ? e.artifactUpdate.artifact.parts.map((p) => p.text) : []));
    expect(texts.join("")).toBe("deploy token: [REDACTED:GITHUB_TOKEN]");
    expect(JSON.stringify(got.events)).not.toContain(GITHUB.slice(0, 20));
    expect(JSON.stringify(got.events)).not.toContain(GITHUB.slice(20));
    // The text came out in one chunk (the first was held: it could start a secret), before the status.
    expect(got.events.map((e) => ("artifactUpdate" in e ? e.artifactUpdate.append : "status"))).toEqual([false, "status"]);
    expect(answered.guardrail?.findings).toEqual([{ kind: "GITHUB_TOKEN", path: "artifact a1", where: "stream" }]);
  });

  it("under refuse, cuts an agent's stream at the chunk that completes a token", async () => {
    const { got, answered } = await splitStream("refuse");
    expect(JSON.stringify(got.events)).not.toContain("ghp_");
    expect(got.events).toHaveLength(0); // the first chunk was held (it could start a secret), then the stream was cut
    expect(answered).toMatchObject({ ok: false, guardrail: { action: "refused" } });
  });

  it("releases what it holds of a stream when the stream ends", async () => {
    const path = new ContentPath("redact");
    const { got, sinks: s } = sinks();
    path.relays(s)!.onAgentEvent!(chunk("hello wor", false));
    await path.answer({ ok: true, result: {} });
    const texts = got.events.flatMap((e) => ("artifactUpdate" in e ? e.artifactUpdate.artifact.parts.map((p) => p.text) : []));
    expect(texts).toEqual(["hello wor"]);
    expect(got.events.map((e) => "artifactUpdate" in e && [e.artifactUpdate.append, e.artifactUpdate.lastChunk])).toEqual([[false, true]]);
  });

  it("releases a trickling stream's text within STREAM_FLUSH_MS, all but a word that may go on", async () => {
    const path = new ContentPath("redact");
    const { got, sinks: s } = sinks();
    const relays = path.relays(s)!;
    relays.onAgentEvent!(chunk("hello wor", false));
    const since = Date.now();
    while (!got.events.length && Date.now() - since < STREAM_FLUSH_MS * 20) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(got.events.flatMap((e) => ("artifactUpdate" in e ? e.artifactUpdate.artifact.parts.map((p) => p.text) : []))).toEqual(["hello "]);
    relays.onAgentEvent!(chunk("ld", true, true));
    await path.answer({ ok: true, result: {} });
    const texts = got.events.flatMap((e) => ("artifactUpdate" in e ? e.artifactUpdate.artifact.parts.map((p) => p.text) : []));
    expect(texts).toEqual(["hello ", "world"]);
    expect(got.events.map((e) => "artifactUpdate" in e && e.artifactUpdate.append)).toEqual([false, true]);
  });

  it("refuses a read whose pin does not hold, before anything of it is scanned", async () => {
    const path = new ContentPath("redact");
    const answered = await path.answer({ ok: true, result: { contents: [] }, deployment: "upstream:x@1.0.0" }, async () => "changed upstream");
    expect(answered).toMatchObject({ ok: false, error: { code: -32001, message: "changed upstream" }, deployment: "upstream:x@1.0.0" });
  });

  it("relays at most MAX_LOG_MESSAGES (and one more, which its sink turns into a notice), each cut to its bound", async () => {
    const path = new ContentPath("off");
    const { got, sinks: s } = sinks();
    const relays = path.relays(s)!;
    for (let i = 0; i < 150; i++) relays.onLog!({ level: "info", data: "x".repeat(5_000) });
    await path.answer({ ok: true, result: {} });
    expect(got.logs).toHaveLength(101);
    expect(JSON.stringify((got.logs[0] as { data: unknown }).data).length).toBeLessThan(4_200);
  });
});
