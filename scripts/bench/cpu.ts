/**
 * CPU time of the processes that serve a benchmark's calls, read from outside them (Linux /proc):
 * what a Worker is billed and limited by, and on this machine steadier than throughput.
 */
import { readFileSync, readdirSync } from "node:fs";

/** The pids of the workerd processes running now (each mesh runs its Workers in one). */
export function workerdPids(): Set<number> {
  return new Set(
    readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd";
        } catch {
          return false;
        }
      })
      .map(Number),
  );
}

/**
 * What `start` starts, with the workerd processes it started (a mesh runs its Workers in one), told
 * apart from those running before it.
 * @example const { started: mesh, pids } = await withWorkerdPids(() => startMesh(options))
 */
export async function withWorkerdPids<T>(start: () => Promise<T>): Promise<{ started: T; pids: number[] }> {
  const running = workerdPids();
  const started = await start();
  return { started, pids: [...workerdPids()].filter((pid) => !running.has(pid)) };
}

/** The CPU time a process has used, user and system, in milliseconds (Linux: /proc/<pid>/stat, in clock ticks of 10 ms). */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The CPU milliseconds several processes have used together (a gateway's workerd and an SDK server
 * it calls, say).
 * @example const before = cpuMsOfAll([workerd, sdk])
 */
export const cpuMsOfAll = (pids: readonly number[]): number => pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0);
