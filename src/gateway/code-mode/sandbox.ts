/**
 * The sandbox: a fresh isolate per script, made by a Worker Loader (Cloudflare's Dynamic Workers;
 * in `npm run dev`, workerd's own loader). It has no network (`globalOutbound: null`: `fetch` and
 * `connect` throw), no bindings, and one way out: the host stub it is handed, whose one method
 * `call(name, argsJson)` is a tool call the gateway makes as the caller. What comes back is
 * untrusted: checked for its shape and bounds here, in the gateway, whatever the isolate did to
 * its own globals.
 */
import type { MeteredScript } from "./script.js";

/** The binding of the Worker Loader code mode runs scripts with (wrangler.toml `[[worker_loaders]]`). */
export const CODE_LOADER_BINDING = "CODE_LOADER";

/** What a script may use, at most. */
export interface SandboxLimits {
  /** Wall time of the whole run, its tool calls included. */
  wallMs: number;
  /** CPU time of the isolate, where the runtime enforces it (Cloudflare; not workerd locally). */
  cpuMs: number;
  /** Characters of the result, as JSON. */
  resultChars: number;
  /** Console lines kept, and characters of each. */
  logLines: number;
  logLineChars: number;
}

/** How a run ended: the script's result (JSON) and console, or why it failed. */
export type SandboxRun = { ok: true; resultJson: string; logs: string[] } | { ok: false; error: string; logs: string[]; timedOut?: boolean };

/** The host's side of the stub: one tool call as JSON in, its answer as JSON out. */
export type HostCall = (name: string, argsJson: string) => Promise<string>;

/** The isolate's modules besides the script: its intrinsics captured first, the console captured, the namespaces' proxies. */
function harnessOf(limits: SandboxLimits): Record<string, string> {
  // Evaluated before the script's module (imported first): what the harness uses is the runtime's own.
  const intrinsics = `
export const stringify = JSON.stringify, parse = JSON.parse, StringOf = String, ErrorOf = Error, ProxyOf = Proxy;
export const logs = [];
const push = (level, args) => {
  if (logs.length >= ${limits.logLines}) return;
  let line = "";
  try { line = args.map((a) => typeof a === "string" ? a : StringOf(stringify(a) ?? a)).join(" "); } catch { line = "[unprintable]"; }
  logs.push((level === "log" ? "" : "[" + level + "] ") + line.slice(0, ${limits.logLineChars}));
};
for (const level of ["log", "info", "warn", "error", "debug"]) console[level] = (...args) => push(level, args);
`;
  const harness = `
import { WorkerEntrypoint } from "cloudflare:workers";
import { stringify, parse, StringOf, ErrorOf, ProxyOf, logs } from "./intrinsics.js";
import { makeScript, overBudget } from "./script.js";
const toolError = (answer) => {
  const error = new ErrorOf(StringOf(answer.error.message));
  error.code = answer.error.code;
  if (answer.error.data !== undefined) error.data = answer.error.data;
  return error;
};
export class Sandbox extends WorkerEntrypoint {
  async run(host) {
    const callTool = async (name, args) => {
      const answer = parse(await host.call(name, stringify(args === undefined ? {} : args)));
      if (!answer.ok) throw toolError(answer);
      return answer.result;
    };
    // A namespace is callable (the tool of that very name) and has its tools as members (\`modbus.decode\`).
    const namespaceOf = (namespace) => new ProxyOf(function () {}, {
      get: (_, tool) => typeof tool === "string" ? (args) => callTool(namespace + "." + tool, args) : undefined,
      apply: (_, __, [args]) => callTool(namespace, args),
    });
    const tools = new ProxyOf({}, { get: (_, namespace) => typeof namespace === "string" ? namespaceOf(namespace) : undefined });
    try {
      const value = await makeScript(namespaceOf, tools)();
      if (overBudget()) return { ok: false, error: "The script ran past its step budget", logs };
      const resultJson = stringify(value === undefined ? null : value);
      if (typeof resultJson !== "string") return { ok: false, error: "The script's result is not JSON", logs };
      if (resultJson.length > ${limits.resultChars}) return { ok: false, error: "The script's result is larger than ${limits.resultChars} characters of JSON", logs };
      return { ok: true, resultJson, logs };
    } catch (error) {
      let message = "The script threw";
      try { message = StringOf(error && error.message !== undefined ? error.message : error).slice(0, 2000); } catch {}
      return { ok: false, error: message, logs };
    }
  }
}
`;
  return { "harness.js": harness, "intrinsics.js": intrinsics };
}

/** The host stub's class, made once (its base class is the runtime's). */
let hostClass: Promise<new (call: HostCall) => object> | undefined;

function hostClassOf(): Promise<new (call: HostCall) => object> {
  return (hostClass ??= import("cloudflare:workers").then(({ RpcTarget }) => {
    /** The one method the isolate may call: anything else on the stub is not there. */
    class ScriptHost extends RpcTarget {
      readonly #call: HostCall;
      constructor(call: HostCall) {
        super();
        this.#call = call;
      }
      call(name: unknown, argsJson: unknown): Promise<string> {
        if (typeof name !== "string" || typeof argsJson !== "string") return Promise.resolve(JSON.stringify(HOST_REFUSAL));
        return this.#call(name, argsJson);
      }
    }
    return ScriptHost;
  }));
}

const HOST_REFUSAL = { ok: false, error: { code: -32602, message: "A tool call takes a name and an arguments object" } };

/**
 * Runs a metered script in a fresh isolate: its tool calls answered by `host`, stopped at
 * `limits.wallMs` (the isolate is then abandoned: nothing it does later reaches the caller).
 * @example await runInSandbox(env.CODE_LOADER, meteredScript(code, ["modbus"], STEPS), host, limits)
 */
export async function runInSandbox(
  loader: WorkerLoader,
  script: MeteredScript,
  host: HostCall,
  limits: SandboxLimits,
  signal?: AbortSignal,
): Promise<SandboxRun> {
  const Host = await hostClassOf();
  const worker = loader.load({
    compatibilityDate: "2026-04-01",
    mainModule: "harness.js",
    modules: { ...harnessOf(limits), "script.js": script.module },
    globalOutbound: null,
    env: {},
    // No subrequest limit: the isolate has no network; its calls back to the host stub are what the script is for (bounded by the gateway).
    limits: { cpuMs: limits.cpuMs },
  });
  const sandbox = worker.getEntrypoint("Sandbox") as unknown as { run(host: object): Promise<unknown> };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<SandboxRun>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, error: `The script ran longer than ${limits.wallMs} ms`, logs: [], timedOut: true }), limits.wallMs);
    // Cancelled (a job's cancel, a closed stream): the run is abandoned as at its wall time.
    onAbort = () => resolve({ ok: false, error: "The script was cancelled", logs: [] });
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const answer = await Promise.race([sandbox.run(new Host(host)).then((raw) => checkedRun(raw, limits)), stopped]);
    return answer;
  } catch (error) {
    // The isolate itself failed (its memory, its CPU limit on Cloudflare, a module that would not load).
    return { ok: false, error: `The sandbox stopped the script: ${String((error as Error)?.message ?? error).slice(0, 500)}`, logs: [] };
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    (sandbox as unknown as Partial<Disposable>)[Symbol.dispose]?.();
  }
}

/** What the isolate answered, as the gateway takes it: a run of the right shape and within bounds, or a failure saying so. */
function checkedRun(raw: unknown, limits: SandboxLimits): SandboxRun {
  const answer = (raw ?? {}) as { ok?: unknown; resultJson?: unknown; error?: unknown; logs?: unknown };
  const logs =
    Array.isArray(answer.logs) ?
      answer.logs
        .slice(0, limits.logLines)
        .filter((line): line is string => typeof line === "string")
        .map((line) => line.slice(0, limits.logLineChars))
    : [];
  if (answer.ok === true && typeof answer.resultJson === "string") {
    if (answer.resultJson.length > limits.resultChars)
      return { ok: false, error: `The script's result is larger than ${limits.resultChars} characters of JSON`, logs };
    return { ok: true, resultJson: answer.resultJson, logs };
  }
  if (answer.ok === false && typeof answer.error === "string") return { ok: false, error: answer.error.slice(0, 2000), logs };
  return { ok: false, error: "The sandbox answered something that is not a run", logs };
}
