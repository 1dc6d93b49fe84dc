/**
 * What a running `npm run dev` tells the other commands of its project: its gateway's URL and
 * whether it asks for keys, in `.skillmesh/dev.json` (written when it is up, removed when it
 * stops; a file whose process is gone is ignored). `skillmesh new` prints its "Next:" curl for it.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";

const DevStateSchema = z.object({ url: z.string().url(), auth: z.boolean(), pid: z.number().int().positive() });
export type DevState = z.infer<typeof DevStateSchema>;

/** Where a project's running mesh says where it is. */
export const devStateFile = (root: string) => join(root, ".skillmesh", "dev.json");

/**
 * Records the running mesh; the returned function removes the record (only if it is still this process's).
 * @example const forget = writeDevState(ROOT, { url, auth: false, pid: process.pid })
 */
export function writeDevState(root: string, state: DevState): () => void {
  const file = devStateFile(root);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(state)}\n`);
  return () => {
    if (readDevState(root)?.pid === state.pid) rmSync(file, { force: true });
  };
}

/**
 * The project's running mesh, if one is running.
 * @example readDevState(root)?.url // "http://127.0.0.1:8790"
 */
export function readDevState(root: string): DevState | undefined {
  let state: DevState;
  try {
    state = DevStateSchema.parse(JSON.parse(readFileSync(devStateFile(root), "utf8")));
  } catch {
    return undefined; // none, or not ours
  }
  try {
    process.kill(state.pid, 0); // is it still running?
    return state;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM" ? state : undefined;
  }
}
