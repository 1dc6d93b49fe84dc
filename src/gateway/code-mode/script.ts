/**
 * An agent's script as the sandbox runs it: normalized to one async arrow function (code fences,
 * bare statements and a last expression are what models write: `@cloudflare/codemode`'s
 * `normalizeCode`), checked to be exactly that one function, and metered: every loop iteration and
 * every function call spends one step of a budget, and a script past it throws at its next step
 * (and at every one after it, so no `catch` can carry it on). That is the endless loop's limit where
 * the runtime enforces no CPU limit (`npm run dev`'s workerd); on Cloudflare the isolate's `cpuMs`
 * stops it too.
 */
import { normalizeCode } from "@cloudflare/codemode";
import { type Node, parse } from "acorn";
import { simple } from "acorn-walk";
import { randomHex } from "../../lib/hash/index.js";

/** The most bytes of a script (UTF-8). */
export const MAX_SCRIPT_BYTES = 64 * 1024;

/** A script that is not one function the sandbox can run. */
export class ScriptRefused extends Error {}

/** A script ready for the sandbox's `script.js` module. */
export interface MeteredScript {
  /** The module: `export const makeScript = (namespaceOf, tools) => <the metered function>` and `export const overBudget = () => boolean`. */
  module: string;
  /** The function as the agent's code normalized to (before metering), for its audit entry's digest. */
  normalized: string;
}

type Positioned = Node & { start: number; end: number; body?: Positioned; expression?: boolean };

const LOOPS = ["WhileStatement", "DoWhileStatement", "ForStatement", "ForInStatement", "ForOfStatement"] as const;
const FUNCTIONS = ["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"] as const;

/**
 * The script's module: its namespaces bound as constants (`modbus`, `text`…, each a proxy that calls
 * the gateway), `tools` for every namespace by name, and its function with a step spent at each
 * loop iteration and function entry.
 * @example meteredScript("async () => modbus.decode({ frame: '01 03' })", ["modbus"], 1_000_000).module
 */
export function meteredScript(code: string, namespaces: readonly string[], steps: number): MeteredScript {
  if (new TextEncoder().encode(code).length > MAX_SCRIPT_BYTES) throw new ScriptRefused(`The script is larger than ${MAX_SCRIPT_BYTES} bytes`);
  const normalized = normalizeCode(code);
  let program: Positioned & { body: Positioned[] };
  try {
    program = parse(normalized, { ecmaVersion: "latest", sourceType: "module" }) as unknown as Positioned & { body: Positioned[] };
  } catch (error) {
    throw new ScriptRefused(`The script does not parse: ${(error as Error).message}`);
  }
  // Exactly one arrow function, nothing around it: no statement of the script runs as the module loads.
  const only = program.body.length === 1 ? program.body[0] : undefined;
  const arrow = only?.type === "ExpressionStatement" ? (only as unknown as { expression: Positioned }).expression : undefined;
  if (!arrow || arrow.type !== "ArrowFunctionExpression" || normalized.slice(arrow.end).trim().replace(/^;/, "").trim() !== "")
    throw new ScriptRefused("The script is not one function: write an async arrow function, `async () => { … }`");
  // Names the script cannot know in advance, so it cannot shadow the meter.
  const step = `step_${randomHex(8)}`;
  const spent = `spent_${randomHex(8)}`;
  const inserts: Array<[number, string]> = [];
  /** A step first in a body: a block's first statement; else the body wrapped (a loop's statement in a block, an arrow's expression after the step). */
  const meter = (body: Positioned, [open, close]: readonly [string, string]) => {
    if (body.type === "BlockStatement") inserts.push([body.start + 1, `${step}();`]);
    else inserts.push([body.start, `${open}${step}()${open === "{" ? ";" : ","}`], [body.end, close]);
  };
  const visitors: Record<string, (node: Node) => void> = {};
  for (const loop of LOOPS) visitors[loop] = (node) => meter((node as Positioned).body!, ["{", "}"]);
  for (const fn of FUNCTIONS) visitors[fn] = (node) => meter((node as Positioned).body!, ["(", ")"]);
  simple(arrow as unknown as Node, visitors);
  let metered = normalized.slice(arrow.start, arrow.end);
  for (const [at, text] of inserts.sort((a, b) => b[0] - a[0])) {
    const offset = at - arrow.start;
    metered = metered.slice(0, offset) + text + metered.slice(offset);
  }
  const bindings = namespaces.map((name) => `const ${name} = namespaceOf(${JSON.stringify(name)});`).join(" ");
  const module = [
    `let ${spent} = 0;`,
    `const ${step} = () => { if (++${spent} > ${steps}) throw new RangeError("The script ran past its ${steps} steps (loop iterations and function calls): is there an endless loop?"); };`,
    `export const overBudget = () => ${spent} > ${steps};`,
    `export const makeScript = (namespaceOf, tools) => { ${bindings} return (${metered}); };`,
  ].join("\n");
  return { module, normalized };
}

/** A name the script may use as a constant: an identifier that is no keyword or name of the sandbox's own. */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in " +
    "instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package " +
    "private protected public await async arguments eval undefined NaN Infinity globalThis console tools namespaceOf Object Array JSON " +
    "Promise Math String Number Boolean Symbol Error RangeError TypeError Map Set Date RegExp"
  ).split(" "),
);

/**
 * The namespace of a tool (`modbus` of `modbus.decode`), and whether the script may use it as a
 * constant; every namespace is also `tools.<namespace>` (`tools["my-crm"]`).
 * @example bindableNamespace("modbus") // true
 */
export const bindableNamespace = (name: string): boolean => IDENTIFIER.test(name) && !RESERVED.has(name);
