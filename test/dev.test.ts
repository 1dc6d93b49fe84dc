/**
 * `npm run dev` as a user runs it: it prints the gateway URL, the README's first curl example
 * answers there, and Ctrl-C (SIGINT) stops everything. Once on the memory store, once with --redis.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../scripts/mesh/bundle.js";
import { eventually, post } from "./support/fixtures.js";

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
});

/** Starts `npm run dev -- <args>` in its own process group; resolves with the URL it prints. */
async function startDev(args: string[]): Promise<{ url: string; output: () => string }> {
  let output = "";
  child = spawn("npm", ["run", "dev", "--", "--port", "0", ...args], { cwd: ROOT, detached: true, env: { ...process.env, SKILLMESH_ADMIN_TOKEN: "dev-test-token-2026" } });
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm run dev printed no URL:\n${output}`)), 90_000);
    const poll = setInterval(() => {
      const match = output.match(/Skillmesh gateway: (http:\/\/\S+)/);
      if (match && output.includes("Ctrl-C")) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(match[1]!);
      }
      if (child!.exitCode !== null) {
        clearInterval(poll);
        clearTimeout(timer);
        reject(new Error(`npm run dev exited with ${child!.exitCode}:\n${output}`));
      }
    }, 50);
  });
  return { url, output: () => output };
}

/** Ctrl-C as a terminal sends it: SIGINT to the whole process group. */
async function stopDev(): Promise<void> {
  const exited = new Promise<void>((resolve) => child!.once("exit", () => resolve()));
  process.kill(-child!.pid!, "SIGINT");
  await exited;
}

describe("npm run dev", () => {
  it.each([["memory", []], ["redis", ["--redis"]]] as const)("serves the README example on the %s store and stops on Ctrl-C", async (store, args) => {
    const { url, output } = await startDev([...args]);
    expect(output()).toContain(`store: ${store === "redis" ? "upstash" : "memory"}`);
    expect(output()).toMatch(/text\.summarize@2\.0\.0\s+canary 0%/);
    const answer = await post(`${url}/rpc`, { jsonrpc: "2.0", method: "modbus.decode", params: { frame: "11 03 00 6B 00 03 76 87" }, id: 1 });
    expect(answer.json.result).toMatchObject({ slave: 17, function: "Read Holding Registers", crc: { valid: true } });
    const tools = await post(`${url}/mcp`, { jsonrpc: "2.0", method: "tools/list", id: 2 }, { "mcp-protocol-version": "2025-11-25" });
    expect(tools.json.result.tools.map((t: { name: string }) => t.name)).toEqual(["html.extract", "modbus.decode", "skills.call", "text.summarize"]);
    await stopDev();
    const listening = () => fetch(`${url}/healthz`).then(() => "up", () => "down");
    expect(await eventually(listening, (state) => state === "down", 5_000, 100)).toBe("down"); // nothing left listening
  }, 120_000);
});
