/**
 * The one content path: every piece of content that crosses the gateway, in either direction and
 * on every channel, passes here, whatever the door and the operation kind.
 *
 * | direction | pieces | where a finding is recorded |
 * |---|---|---|
 * | from the caller | a tool's arguments (an A2A message's parts among them), answers to input requests, a prompt's or a completion's arguments, a task's input responses | `arguments` |
 * | back to the caller, while the call runs | progress messages, log messages, an A2A agent's stream events (its artifacts' text scanned across chunks) | `progress`, `log`, `stream` |
 * | back to the caller, at the end | the answer (a tool result, a read, a prompt, a completion, a task, an app, a skill file) or the error (its message and data: an `isError` result, a failed task) | `answer`, `error` |
 *
 * On its way each piece meets, in order: its size limit (a log's data is cut, at most
 * `MAX_LOG_MESSAGES` are relayed), the pin check (a read of something pinned by digest: served only
 * with the pinned bytes), and the secrets guardrail (src/policies/guardrails: `redact` or `refuse`). What
 * was found, wherever, is one report on the outcome, for the call's audit entry and
 * `skillmesh_guardrail_actions_total`.
 *
 * By construction: what a door relays to its caller while a call runs is a `Sink`, which takes only
 * `Cleared` pieces, and only this module makes them; the relays a skill, an upstream or an agent
 * reports into (`ContentRelays`) come only from `ContentPath.relays`. An outcome is answered only
 * once `passed` says it went through `answer` (src/gateway/chain/invoke.ts).
 */
import type { StreamResponse } from "../../protocols/a2a/index.js";
import { type GuardedPart, type GuardrailReport, type SecretFinding, type SecretsMode, TextStreamGuard, scanSecrets } from "../guardrails/index.js";
import { ErrorCode, RpcError } from "../../protocols/jsonrpc/index.js";
import { MAX_LOG_MESSAGES, boundedLog } from "../../protocols/logging/index.js";
import type { Outcome } from "../outcome/index.js";
import type { Progress } from "../../protocols/progress/index.js";
import { AgentEventGuard } from "./events.js";

declare const PASSED: unique symbol;
/** A piece of content that passed the content path: the only thing a sink takes. */
export type Cleared<T> = T & { readonly [PASSED]: true };
/** Where a door sends one kind of piece to its caller. */
export type Sink<T> = (piece: Cleared<T>) => void;

/** Where the caller gets what a call relays while it runs (each set by the door that wants it). */
export interface ContentSinks {
  /** Progress reports (the skill is then asked to stream). */
  readonly onProgress?: Sink<Progress>;
  /** Log messages (an MCP caller that asked for them: a federated MCP tool only). */
  readonly onLog?: Sink<unknown>;
  /** An A2A agent's own stream events, as they come (the A2A door, for a streaming caller). */
  readonly onAgentEvent?: Sink<StreamResponse>;
}

/** What a skill, an upstream or an agent reports into while a call runs, as it sends it. */
export interface ContentRelays {
  readonly onProgress?: (progress: Progress) => void;
  readonly onLog?: (message: unknown) => void;
  readonly onAgentEvent?: (event: StreamResponse) => void;
}

/** Checks a read against what was pinned for it; answers why it may not be served, or undefined. */
export type PinCheck = (result: unknown) => Promise<string | undefined>;

/** The most findings one report keeps. */
const MAX_FINDINGS = 32;

/** Outcomes that went through `answer` (or are the gateway's own words). */
const passedOutcomes = new WeakSet<object>();

/**
 * One call's content path: created once the call's target is known (its mode is the strictest of
 * what the target's owner and the door say), used for everything the call sends and receives.
 * @example const path = new ContentPath("redact"); const sent = await path.sent(params); … await path.answer(outcome)
 */
export class ContentPath {
  readonly #mode: SecretsMode;
  readonly #findings: Array<SecretFinding & { where: GuardedPart }> = [];
  /** Something was found under `refuse`: nothing more is relayed, and the call is refused. */
  #refused = false;
  /** The relays' pieces, in the order they came. */
  #queue: Promise<void> = Promise.resolve();
  /** What each relay does once the call has its outcome (an agent's stream releases what it holds). */
  readonly #ended: Array<() => Promise<void>> = [];
  /** The call answered: what an upstream relays after that is dropped. */
  #closed = false;
  /** Relays were made: the answer waits for what they pass. */
  #relaying = false;
  #logs = 0;

  constructor(mode: SecretsMode) {
    this.#mode = mode;
  }

  /** True when the secrets guardrail reads this call's content. */
  get scanning(): boolean {
    return this.#mode !== "off";
  }

  /**
   * What the caller sends, on its way to the skill or upstream: as it is, redacted, or (under
   * `refuse`, a secret found) the refusal to answer instead, nothing sent.
   * @example const sent = await path.sent(call.request.params); if ("refusal" in sent) return sent.refusal
   */
  async sent<T>(value: T): Promise<{ value: T } | { refusal: Cleared<Outcome> }> {
    if (!this.scanning || value === undefined) return { value };
    const { findings, redacted } = await scanSecrets(value);
    if (!findings.length) return { value };
    this.#note(findings, "arguments");
    if (this.#mode === "refuse") {
      const reported = this.#report()!;
      const error = new RpcError(
        ErrorCode.InvalidParams,
        `Refused by the secrets guardrail: the arguments hold a credential (${describeFindings(reported.findings, false)}); nothing was sent`,
        { guardrail: "secrets", findings: reported.findings },
      );
      return { refusal: passedOf({ ok: false, error: error.toJSON(), guardrail: reported }) };
    }
    return { value: redacted as T };
  }

  /**
   * A piece the gateway keeps on the caller's behalf before it answers (an upstream task's result,
   * written down in the caller's job): redacted, or (under `refuse`) nothing, the call refused.
   * @example const kept = await path.kept(task.result, "answer"); if (kept.withheld) …
   */
  async kept<T>(value: T, where: GuardedPart): Promise<{ value: T; withheld: boolean }> {
    if (!this.scanning || value === undefined) return { value, withheld: false };
    const { findings, redacted } = await scanSecrets(value);
    const relayed = this.#note(findings, where);
    return { value: (findings.length ? redacted : value) as T, withheld: !relayed };
  }

  /**
   * The relays a skill, upstream or agent reports into, each passing its pieces to the caller's
   * sink through the path (undefined when the caller has no sink: nothing is relayed): log messages
   * bounded and scanned whole; progress texts scanned with what came before on their channel; an
   * agent's events with its artifacts' text held back until a secret split across chunks can be
   * seen whole (src/policies/guardrails/stream.ts, src/policies/content/events.ts). Under `refuse`, the first piece
   * found cuts the relay: it and everything after it are not relayed.
   * @example forwardCall(deployment, { ...request, ...path.relays({ onProgress: progressRelay(sse) }) }, env)
   */
  relays(sinks: ContentSinks): ContentRelays | undefined {
    const { onProgress, onLog, onAgentEvent } = sinks;
    if (!onProgress && !onLog && !onAgentEvent) return undefined;
    this.#relaying = true;
    const relays: { -readonly [K in keyof ContentRelays]: ContentRelays[K] } = {};
    if (onProgress) {
      const guard = new TextStreamGuard();
      relays.onProgress = (progress) =>
        this.#relay(async () => {
          if (!this.scanning || progress.message === undefined) return onProgress(cleared(progress));
          const { released, found } = await guard.push(progress.message, true);
          const findings = found.map((c) => ({ kind: c.kind, path: "message" }));
          if (this.#note(findings, "progress")) onProgress(cleared({ ...progress, message: released }));
        });
    }
    if (onLog)
      relays.onLog = (message) => {
        // At most one past the limit reaches the sink, which says the rest were dropped.
        if (++this.#logs > MAX_LOG_MESSAGES + 1) return;
        this.#relay(async () => {
          const bounded = boundedLog(message);
          if (!this.scanning) return onLog(cleared(bounded));
          const { findings, redacted } = await scanSecrets(bounded);
          if (this.#note(findings, "log")) onLog(cleared(redacted));
        });
      };
    if (onAgentEvent) {
      const events = new AgentEventGuard(
        this.scanning,
        (event) => onAgentEvent(cleared(event)),
        (findings) => this.#note(findings, "stream"),
        (task) => this.#relay(task),
      );
      relays.onAgentEvent = (event) => this.#relay(() => events.push(event));
      this.#ended.push(() => events.end());
    }
    return relays;
  }

  /**
   * The call's outcome as the caller may get it, once everything relayed has passed: a read of
   * something pinned served only with what was pinned (`pin`); the answer or the error scanned;
   * refused when anything of the call was found under `refuse`; the report of what was found,
   * wherever, on the outcome.
   * @example return path.answer(await next(call))
   */
  async answer(outcome: Outcome, pin?: PinCheck): Promise<Cleared<Outcome>> {
    if (this.#relaying) {
      const ends = this.#ended.splice(0);
      this.#relay(async () => {
        for (const end of ends) await end();
      });
    }
    this.#closed = true;
    if (this.#relaying) await this.#queue;
    let answered = outcome;
    if (pin && outcome.ok) {
      const refusal = await pin(outcome.result);
      if (refusal) answered = withWho({ ok: false, error: new RpcError(ErrorCode.SkillUnavailable, refusal).toJSON() }, outcome);
    }
    if (!this.scanning) return passedOf(answered);
    if (answered.ok) {
      const { findings, redacted } = await scanSecrets(answered.result);
      this.#note(findings, "answer");
      if (findings.length) answered = { ...answered, result: redacted };
    } else {
      const { findings, redacted } = await scanSecrets(answered.error);
      this.#note(findings, "error");
      if (findings.length) answered = { ...answered, error: redacted as typeof answered.error };
    }
    const report = this.#report();
    if (!report) return passedOf(answered);
    if (!this.#refused) return passedOf({ ...answered, guardrail: report });
    const error = new RpcError(
      ErrorCode.InternalError,
      `The answer was withheld by the secrets guardrail: the call's content held a credential (${describeFindings(report.findings)})`,
      { guardrail: "secrets", findings: report.findings },
    );
    return passedOf(withWho({ ok: false, error: error.toJSON(), guardrail: report }, outcome));
  }

  /** Runs a relayed piece after those before it (the pieces keep their order; a piece that fails is dropped). */
  #relay(piece: () => Promise<void> | void): void {
    if (this.#closed) return;
    this.#queue = this.#queue.then(piece).catch((error: unknown) => console.error("[gateway] a relayed piece could not pass the content path:", error));
  }

  /**
   * Records what was found in one piece; true when the piece may be relayed (nothing found, or
   * redacted), false when it may not (under `refuse`, or once the call was refused).
   */
  #note(findings: SecretFinding[], where: GuardedPart): boolean {
    if (findings.length) {
      this.#findings.push(...findings.slice(0, MAX_FINDINGS - this.#findings.length).map((f) => ({ ...f, where })));
      if (this.#mode === "refuse") this.#refused = true;
    }
    return !this.#refused;
  }

  /** What the guardrail did to the call, for its audit entry and counters; undefined when it found nothing. */
  #report(): GuardrailReport | undefined {
    if (!this.#findings.length) return undefined;
    return { guardrail: "secrets", action: this.#mode === "refuse" ? "refused" : "redacted", findings: [...this.#findings] };
  }
}

/**
 * An outcome the gateway made itself — a refusal before any content, a built-in's answer — as one
 * that may be answered: nothing of a skill or upstream is in it.
 * @example return resultOf(ownOutcome({ ok: true, result: listing }))
 */
export function ownOutcome(outcome: Outcome): Cleared<Outcome> {
  return passedOf(outcome);
}

/**
 * The outcome, as one that may be answered, when it passed the content path (`answer`, or
 * `ownOutcome`); otherwise a -32603 and an error in the gateway's log: a channel that skipped the
 * path answers nothing.
 * @example return resultOf(passed(await callSkill(call)))
 */
export function passed(outcome: Outcome): Cleared<Outcome> {
  if (passedOutcomes.has(outcome)) return outcome as Cleared<Outcome>;
  console.error("[gateway] an outcome reached its caller without passing the content path: answered as -32603");
  return passedOf({ ok: false, error: new RpcError(ErrorCode.InternalError).toJSON() });
}

function passedOf(outcome: Outcome): Cleared<Outcome> {
  passedOutcomes.add(outcome);
  return outcome as Cleared<Outcome>;
}

/** A piece as one that passed (inside this module only). */
function cleared<T>(piece: T): Cleared<T> {
  return piece as Cleared<T>;
}

/** `outcome` with who answered `from`. */
function withWho(outcome: Outcome, from: Outcome): Outcome {
  return {
    ...outcome,
    ...(from.deployment ? { deployment: from.deployment } : {}),
    ...(from.degraded ? { degraded: true } : {}),
    ...(from.replayed ? { replayed: true } : {}),
  };
}

/** Findings as a caller reads them: `GITHUB_TOKEN at token (arguments), SLACK_TOKEN at message (log)` (`where`: with the channel). */
function describeFindings(findings: Array<SecretFinding & { where: GuardedPart }>, where = true): string {
  const shown = findings.slice(0, 3).map((f) => `${f.kind} at ${f.path.slice(0, 64)}${where ? ` (${f.where})` : ""}`);
  return findings.length > 3 ? `${shown.join(", ")} and ${findings.length - 3} more` : shown.join(", ");
}
