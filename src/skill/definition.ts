/** What a skill declares (SkillDefinition) and what its handler is given (SkillContext). */
import type { z } from "zod";
import type { CallerContext } from "../protocols/context/index.js";
import type { Context } from "../protocols/tracing/index.js";
import type { SkillManifest } from "./manifest.js";
import type { GetPromptResult, Prompt, Resource, ResourceTemplate } from "../protocols/mcp/index.js";
import type { LogLevel } from "../protocols/logging/index.js";

/** What a resource's read answers: text (a string), or bytes. */
export type ResourceBody = string | { text: string } | { blob: Uint8Array };
/** What a prompt's get answers: one user message (a string), or the messages. */
export type PromptBody = string | GetPromptResult["messages"];

/** The MCP tool annotations a skill declares; `idempotentHint` is its `idempotent`. */
export type SkillAnnotations = Omit<NonNullable<SkillManifest["annotations"]>, "idempotentHint" | "title">;

/** What a handler gets besides its input: the caller context, the Worker's env and waitUntil. */
export type SkillContext<Env = object> = CallerContext & {
  env: Env;
  /** The JSON-RPC id of the call (undefined for a notification). */
  requestId: string | number | null | undefined;
  /** Keeps work going after the response (Workers `ctx.waitUntil`). */
  waitUntil: (promise: Promise<unknown>) => void;
  /**
   * Reports how far the call has got, to a caller that streams (the gateway asks for it when its
   * own caller wants progress); a no-op otherwise. `done` must grow from one report to the next.
   */
  progress: (done: number, total?: number, message?: string) => void;
  /**
   * Sends the caller a log message (MCP `notifications/message`) when it asked for messages of
   * this level or louder (the gateway asks for them when its own caller set a level); a no-op
   * otherwise. `data` is any JSON (cut at 4,096 characters by the gateway); `logger` names a part
   * of the skill (the caller sees `<skill>/<logger>`).
   * @example ctx.log("warning", { retried: 2 }, "fetch")
   */
  log: (level: LogLevel, data: unknown, logger?: string) => void;
  /** Aborted when the caller gives up: it disconnected or cancelled, or the gateway's timeout passed. */
  signal: AbortSignal;
  /**
   * The OpenTelemetry context of the handler's span: the parent of spans the handler starts
   * (Workers have no context manager, so `context.active()` does not find it).
   */
  trace: Context;
  /** A pipeline's token to call the gateway as its caller (set only for pipelines, src/federation/pipeline/worker.ts). */
  delegation?: string;
  /** A pipeline's call key: its steps' `Idempotency-Key`s derive from it (set only for pipelines). */
  callKey?: string;
};

/** What a handler's `ctx` holds besides the caller context and its two getters. */
export type CallFields<Env> = Pick<SkillContext<Env>, "env" | "requestId" | "waitUntil" | "progress" | "log" | "delegation" | "callKey">;

/**
 * A handler's `ctx`. `trace` and `signal` are getters of the class, made when first read: an
 * object literal with getters took ~2.7 µs to build, more than the rest of a trivial call's
 * context together (so `{ ...ctx }` leaves those two out: pass `ctx` itself along). Fields are
 * assigned one by one: `Object.assign` of a spread literal onto the instance cost ~1.8 µs too.
 * An optional field is set only when it has a value, as the object spread it replaces did
 * (`declare`: no class field definitions, which would make every one an own key).
 */
export class HandlerContext<Env> implements SkillContext<Env> {
  declare userId?: string;
  declare group?: string;
  declare session?: string;
  declare caller: string;
  declare traceparent?: string;
  declare env: Env;
  declare requestId: SkillContext["requestId"];
  declare waitUntil: SkillContext["waitUntil"];
  declare progress: SkillContext["progress"];
  declare log: SkillContext["log"];
  declare delegation?: string;
  declare callKey?: string;
  readonly #traceOf: () => Context;
  readonly #signalOf: () => AbortSignal;

  constructor(context: CallerContext, call: CallFields<Env>, traceOf: () => Context, signalOf: () => AbortSignal) {
    if (context.userId !== undefined) this.userId = context.userId;
    if (context.group !== undefined) this.group = context.group;
    if (context.session !== undefined) this.session = context.session;
    this.caller = context.caller;
    if (context.traceparent !== undefined) this.traceparent = context.traceparent;
    this.env = call.env;
    this.requestId = call.requestId;
    this.waitUntil = call.waitUntil;
    this.progress = call.progress;
    this.log = call.log;
    if (call.delegation !== undefined) this.delegation = call.delegation;
    if (call.callKey !== undefined) this.callKey = call.callKey;
    this.#traceOf = traceOf;
    this.#signalOf = signalOf;
  }

  get trace(): Context {
    return this.#traceOf();
  }

  get signal(): AbortSignal {
    return this.#signalOf();
  }
}

/** Everything a skill declares (docs/guides/writing-skills.md, "Write a new skill"). */
export interface SkillDefinition<Input extends z.ZodType, Output extends z.ZodType, Env> {
  name: string;
  version: string;
  /** Shown to models: say what the skill does and when to use it. */
  description: string;
  tags: string[];
  /** An object schema (its key order is the positional order) or an array/tuple schema. */
  input: Input;
  output: Output;
  /** Pure or safe to repeat: the gateway may retry it on its own (MCP's `idempotentHint`). Default false. */
  idempotent?: boolean;
  /** A display name for clients (MCP `title`), e.g. "Decode a Modbus frame". */
  title?: string;
  /**
   * What calling it does to the world, as MCP's tool annotations say it (listed with the tool, pinned
   * in its contract; a change that makes it less safe needs a major version): `readOnlyHint` (it
   * changes nothing), `destructiveHint` (it may delete or overwrite; MCP's default when not read-only),
   * `openWorldHint` (it reaches beyond the gateway's world, e.g. the web; MCP's default). Undeclared
   * hints mean what MCP says they mean. `idempotentHint` is `idempotent`.
   * @example annotations: { readOnlyHint: true, openWorldHint: false }
   */
  annotations?: SkillAnnotations;
  /** True: this deployment is only the fallback of `name`. Default false. */
  degraded?: boolean;
  /** Gateway-side timeout for one call. Default 10 s. */
  timeoutMs?: number;
  /** How long one call may run when it is asked for as an async job; beyond `timeoutMs`. Default `timeoutMs`. */
  maxDurationMs?: number;
  /**
   * Every call runs as an async job: on /rpc with `Prefer: respond-async` (or `jobs.submit`), over
   * MCP as a task (2025-11-25: `taskSupport: "required"`; 2026-07-28: a client that declares the
   * tasks extension). A call that asks for its answer in place is refused. Default false.
   */
  jobOnly?: boolean;
  /** Set by `definePipeline` (src/federation/pipeline/worker.ts): the skills the steps call. */
  pipeline?: { steps: string[] };
  /** What a call costs, e.g. `{ currency: "USD", perCall: 0.002 }` (shown beside the observed numbers). */
  cost?: SkillManifest["cost"];
  /** What the skill promises, e.g. `{ successRate: 0.999, p95Ms: 300 }` (shown beside the observed numbers). */
  reliability?: SkillManifest["reliability"];
  /** Circuit-breaker overrides, e.g. `{ consecutiveFailures: 3, openMs: 10_000 }`. */
  breaker?: SkillManifest["breaker"];
  /**
   * The hosts the skill may `fetch` when it runs in a dispatch namespace, e.g. `["api.example.com",
   * "*.wikipedia.org"]`; anything else is refused (HTTP 403) and audited. None declared, none reached.
   */
  egress?: SkillManifest["egress"];
  /** Per-call limits in a dispatch namespace, e.g. `{ cpuMs: 50, subRequests: 10 }`. */
  limits?: SkillManifest["limits"];
  /** Its MCP App: `{ resourceUri: "ui://…" }`, a resource it declares with the type `text/html;profile=mcp-app`. */
  ui?: SkillManifest["ui"];
  /** Credentials found in its arguments or answers redacted or refused, e.g. `{ secrets: "refuse" }` (src/policies/guardrails). Default off. */
  guardrails?: SkillManifest["guardrails"];
  /** How long the gateway keeps this skill's answers for `Idempotency-Key` replays. Default 1 h. */
  idempotencyTtlSeconds?: number;
  /**
   * Default true: a field the input does not declare (at any depth) is refused with -32602
   * naming it, and the published schema says `additionalProperties: false` (./strict.ts). False:
   * such fields are dropped, as JSON Schema's open default allows.
   */
  strictInput?: boolean;
  handler: (input: z.output<Input>, ctx: SkillContext<Env>) => z.input<Output> | Promise<z.input<Output>>;
  /** MCP resources at fixed URIs, each with its read (the caller context is `ctx`). */
  resources?: Array<Resource & { read: (ctx: SkillContext<Env>) => ResourceBody | Promise<ResourceBody> }>;
  /** MCP resource templates (`modbus://registers/{address}`), read with the URI's variables. */
  resourceTemplates?: Array<ResourceTemplate & { read: (variables: Record<string, string>, ctx: SkillContext<Env>) => ResourceBody | Promise<ResourceBody> }>;
  /** MCP prompts, each with its get (arguments are strings, as MCP's prompts take them). */
  prompts?: Array<Prompt & { get: (args: Record<string, string>, ctx: SkillContext<Env>) => PromptBody | Promise<PromptBody> }>;
}
