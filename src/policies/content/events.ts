/**
 * An A2A agent's stream events on their way to an A2A caller through the content path: a task, a
 * message or a status update scanned whole; an artifact's text read as one text across its chunks
 * (`append`) and its adjacent text parts, as a model streams it. The tail of that text that could
 * be the start of a secret is held back (src/policies/guardrails/stream.ts) until the next chunk, the
 * artifact's last chunk, a terminal status, a task or a message, or the stream's end; then it is
 * sent as an `append` chunk of its own. Text is released (and scanned) once `STREAM_BATCH_CHARS`
 * may go, and at the latest `STREAM_FLUSH_MS` after it came: each scan has a fixed cost, so a
 * stream of many small chunks is scanned in batches, never more than a few times a second while
 * it trickles. The text a caller assembles is the agent's, redacted; only where the chunks break differs.
 */
import { type Part, type StreamResponse, TERMINAL_STATES } from "../../protocols/a2a/index.js";
import { type SecretFinding, TextStreamGuard, scanSecrets } from "../guardrails/index.js";

type ArtifactUpdate = Extract<StreamResponse, { artifactUpdate: unknown }>["artifactUpdate"];

/** How many characters of a stream's text are scanned and released at once, at least (but at its end, or on `STREAM_FLUSH_MS`). */
export const STREAM_BATCH_CHARS = 1_024;
/** How long text may wait for its batch before it is scanned and released anyway. */
export const STREAM_FLUSH_MS = 50;

/** One artifact's text as it streams. */
interface ArtifactText {
  guard: TextStreamGuard;
  /** The update that started it: a release of held text is sent as a chunk of the same task and artifact. */
  first: ArtifactUpdate;
  /** The caller was sent this artifact: what follows is appended to it. */
  announced: boolean;
}

/**
 * The events of one stream, scanned in order.
 * @example const events = new AgentEventGuard(true, relay, note); await events.push(event); … await events.end()
 */
export class AgentEventGuard {
  readonly #texts = new Map<string, ArtifactText>();
  #flush: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly scanning: boolean,
    private readonly relay: (event: StreamResponse) => void,
    /** Records what was found in the stream; false when nothing more may be relayed (`refuse`). */
    private readonly note: (findings: SecretFinding[]) => boolean,
    /** Runs a task in the order of the stream's events (the content path's queue). */
    private readonly schedule: (task: () => Promise<void>) => void = (task) => void task(),
  ) {}

  /** Passes one event on: scanned, its held text released first where it ends the artifact's text. */
  async push(event: StreamResponse): Promise<void> {
    if (!this.scanning) return this.relay(event);
    if ("artifactUpdate" in event) return this.#artifact(event.artifactUpdate);
    // A task, a message or a status that ends the task: what is held goes out before it.
    if (!("statusUpdate" in event) || TERMINAL_STATES.has(event.statusUpdate.status.state)) await this.end();
    const { findings, redacted } = await scanSecrets(event);
    if (this.note(findings)) this.relay(redacted as StreamResponse);
  }

  /** Releases everything held (the stream ended). */
  async end(): Promise<void> {
    clearTimeout(this.#flush);
    this.#flush = undefined;
    for (const text of this.#texts.values()) await this.#release(text, true);
    this.#texts.clear();
  }

  /** After an update that left text held: releases what may go `STREAM_FLUSH_MS` later, whatever the batch. */
  #armFlush(): void {
    if (this.#flush || ![...this.#texts.values()].some((text) => text.guard.holding)) return;
    this.#flush = setTimeout(() => {
      this.#flush = undefined;
      this.schedule(async () => {
        for (const text of this.#texts.values()) await this.#release(text, false);
      });
    }, STREAM_FLUSH_MS);
  }

  async #artifact(update: ArtifactUpdate): Promise<void> {
    const id = update.artifact.artifactId;
    const known = this.#texts.get(id);
    // An artifact sent again whole replaces the one before: what was held of that goes first.
    if (known && !update.append) await this.#release(known, true);
    const text = known && update.append ? known : { guard: new TextStreamGuard(), first: update, announced: false };
    this.#texts.set(id, text);
    const parts: Part[] = [];
    const findings: SecretFinding[] = [];
    const incoming = update.artifact.parts;
    for (const [i, part] of incoming.entries()) {
      if (!isText(part)) {
        if (text.guard.holding) parts.push(...(await this.#pushed(text, "", true, findings)));
        const scanned = await scanSecrets(part);
        findings.push(...scanned.findings.map((f) => ({ ...f, path: `artifact ${id}.${f.path}`.slice(0, 256) })));
        parts.push(scanned.redacted as Part);
        continue;
      }
      // The text goes on in the next part when that is text too, or in the next chunk after the last part.
      const next = incoming[i + 1];
      const goesOn = next ? isText(next) : !update.lastChunk;
      parts.push(...(await this.#pushed(text, part.text!, !goesOn, findings, part, STREAM_BATCH_CHARS)));
    }
    if (!this.note(findings)) return;
    if (parts.length) {
      this.relay({ artifactUpdate: { ...update, artifact: { ...update.artifact, parts }, append: text.announced } });
      text.announced = true;
    }
    if (update.lastChunk) this.#texts.delete(id);
    this.#armFlush();
  }

  /** A text part's piece pushed through the artifact's guard: the part with what may be released now, if anything. */
  async #pushed(text: ArtifactText, piece: string, end: boolean, findings: SecretFinding[], part: Part = {}, batch = 0): Promise<Part[]> {
    const { released, found } = await text.guard.push(piece, end, batch);
    const id = text.first.artifact.artifactId;
    findings.push(...found.map((c) => ({ kind: c.kind, path: `artifact ${id}`.slice(0, 256) })));
    return released ? [{ ...part, text: released }] : [];
  }

  /** What is held of an artifact's text that may go (`final`: all of it, as its last chunk), sent as a chunk of its own. */
  async #release(text: ArtifactText, final: boolean): Promise<void> {
    if (!text.guard.holding) return;
    const findings: SecretFinding[] = [];
    const parts = await this.#pushed(text, "", final, findings);
    if (!this.note(findings) || !parts.length) return;
    const { taskId, contextId, artifact } = text.first;
    this.relay({ artifactUpdate: { taskId, contextId, artifact: { ...artifact, parts }, append: text.announced, ...(final ? { lastChunk: true } : {}) } });
    text.announced = true;
  }
}

/** A part that is text alone (not data, a file or bytes). */
function isText(part: Part): boolean {
  return typeof part.text === "string" && part.data === undefined && part.url === undefined && part.raw === undefined;
}
