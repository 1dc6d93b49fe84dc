/**
 * Reads test/fixtures/jsonrpc-examples.txt (section 7 of the JSON-RPC 2.0 spec, verbatim) into
 * cases: each `-->` body sent, each `<--` body expected (none: nothing is returned).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../scripts/mesh/bundle.js";

export interface Exchange {
  /** Raw body as in the spec (may be invalid JSON on purpose). */
  request: string;
  /** Parsed expected response; undefined = nothing is returned. */
  expected: unknown;
}

export interface ExampleCase {
  title: string;
  exchanges: Exchange[];
}

export function readSpecExamples(): ExampleCase[] {
  const lines = readFileSync(join(ROOT, "test/fixtures/jsonrpc-examples.txt"), "utf8").split("\n");
  const cases: ExampleCase[] = [];
  let current: ExampleCase | undefined;
  let block: { kind: "-->" | "<--"; text: string } | undefined;
  const flush = () => {
    if (!block || !current) return;
    if (block.kind === "-->") current.exchanges.push({ request: block.text.trim(), expected: undefined });
    else {
      const text = block.text.trim();
      const last = current.exchanges[current.exchanges.length - 1]!;
      last.expected = text.startsWith("//") ? undefined : JSON.parse(text);
    }
    block = undefined;
  };
  for (const line of lines) {
    if (line.startsWith("#")) continue;
    const arrow = line.match(/^(-->|<--) ?(.*)$/);
    if (arrow) {
      flush();
      block = { kind: arrow[1] as "-->" | "<--", text: arrow[2]! };
    } else if (/^\S.*:$/.test(line)) {
      flush();
      current = { title: line.slice(0, -1), exchanges: [] };
      cases.push(current);
    } else if (block) {
      block.text += `\n${line}`;
    }
  }
  flush();
  return cases;
}

/** Every method named in a raw body (best effort: invalid JSON names none). */
export function methodsOf(raw: string): string[] {
  try {
    const parsed = JSON.parse(raw);
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m) => (m && typeof m.method === "string" ? [m.method] : []));
  } catch {
    return [];
  }
}
