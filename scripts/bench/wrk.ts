/**
 * The trivial sides again with `wrk` as the load generator, when it is installed: Node's `fetch`
 * saturates before a bare hop does on two cores, so the ratio against the bare hop is only
 * readable with a C client. Sides alternate like the Node ones.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Side } from "./load.js";

const run = promisify(execFile);

/** Whether `wrk` is on the PATH. */
export async function hasWrk(): Promise<boolean> {
  return run("wrk", ["--version"]).then(
    () => true,
    (error: { code?: unknown }) => error.code !== "ENOENT", // wrk --version exits 1 after printing it
  );
}

/** A wrk Lua script that POSTs the side's body with its headers (taken once: wrk repeats one request). */
function scriptOf(side: Side): string {
  const quote = (text: string) => JSON.stringify(text); // a JSON string is a valid Lua string literal here (no \u escapes in our bodies)
  const headers = { "content-type": "application/json", ...side.headers() };
  return [
    `wrk.method = "POST"`,
    `wrk.body = ${quote(side.body)}`,
    ...Object.entries(headers).map(([name, value]) => `wrk.headers[${quote(name)}] = ${quote(value)}`),
  ].join("\n");
}

/**
 * Requests per second of each side under `wrk -t1 -c<connections>`, `segments` alternating runs of
 * `seconds` each, averaged; a side with non-2xx answers throws.
 * @example const rps = await wrkSides(sides, { seconds: 2, segments: 3, connections: 16 })
 */
export async function wrkSides(sides: Side[], options: { seconds: number; segments: number; connections: number }): Promise<Map<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), "skillmesh-wrk-"));
  const totals = new Map(sides.map((side) => [side.name, 0]));
  try {
    const scripts = new Map(sides.map((side) => [side.name, join(dir, `${side.name}.lua`)]));
    for (const side of sides) writeFileSync(scripts.get(side.name)!, scriptOf(side));
    for (let segment = 0; segment < options.segments; segment++) {
      for (const side of segment % 2 ? [...sides].reverse() : sides) {
        const { stdout } = await run("wrk", ["-t1", `-c${options.connections}`, `-d${options.seconds}s`, "-s", scripts.get(side.name)!, side.url]);
        if (/Non-2xx|Socket errors/.test(stdout)) throw new Error(`wrk on ${side.name}: ${stdout}`);
        totals.set(side.name, totals.get(side.name)! + Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? NaN));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return new Map([...totals].map(([name, total]) => [name, total / options.segments]));
}
