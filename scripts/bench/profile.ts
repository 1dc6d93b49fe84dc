/**
 * `npm run bench -- --profile [--seconds N]`: a CPU profile of the gateway isolate while wrk
 * sends it the trivial call (`subtract` with an API key, auth on, as deployed), from an
 * unminified bundle so that functions and modules keep their names. It writes
 * `.skillmesh/profiles/gateway-<time>.cpuprofile` (Chrome DevTools opens it) and prints the
 * isolate's busy time by source module and by runtime function: where a call's CPU goes.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT, bundleWorker } from "../mesh/bundle.js";
import { inspectGateway } from "./inspector.js";
import { type TrivialRoute, startTrivialMesh } from "./trivial.js";
import { hasWrk, wrkSides } from "./wrk.js";

const INSPECTOR_PORT = 9241;

/** The parts of a V8 CPU profile read here. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

/**
 * Busy time by where it was spent: a bundle's source module (from esbuild's `// src/…` section
 * comments), or the runtime's own function for native frames; idle time left out.
 * @example const rows = busyByModule(profile, readFileSync(bundle, "utf8"))
 */
export function busyByModule(profile: CpuProfile, bundle: string): Array<{ where: string; share: number }> {
  const sections: Array<[number, string]> = [];
  bundle.split("\n").forEach((line, i) => {
    const match = /^\/\/ ((?:src|routes|node_modules)\/\S+)/.exec(line);
    // A source file by its path; a package by its first three segments.
    if (match)
      sections.push([
        i,
        match[1]!.startsWith("node_modules/") ?
          match[1]!
            .replace(/^node_modules\/(?:\.pnpm\/)?/, "node_modules: ")
            .split("/")
            .slice(0, 3)
            .join("/")
        : match[1]!,
      ]);
  });
  const moduleAt = (line: number) => {
    let found = "(bundle prelude)";
    for (const [start, name] of sections) {
      if (start > line) break;
      found = name;
    }
    return found;
  };
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const time = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!;
    if (frame.functionName === "(idle)") return;
    const where = frame.url ? moduleAt(frame.lineNumber) : `runtime: ${frame.functionName || "(anonymous)"}`;
    const delta = profile.timeDeltas[i] ?? 0;
    busy += delta;
    time.set(where, (time.get(where) ?? 0) + delta);
  });
  return [...time].map(([where, t]) => ({ where, share: t / busy })).sort((a, b) => b.share - a.share);
}

/** Profiles the gateway isolate for `seconds` of wrk load on `route` (the trivial call on /rpc, or as an MCP tools/call) and prints where its time went. */
export async function runProfile(seconds: number, route: TrivialRoute = "rpc"): Promise<void> {
  if (!(await hasWrk())) throw new Error("--profile needs wrk as the load generator: apt-get install -y wrk");
  console.log("Bundling unminified (cached after the first run) and starting the mesh …");
  const { mesh, side } = await startTrivialMesh("trivial-gateway", { inspectorPort: INSPECTOR_PORT, unminified: true, route });
  try {
    await wrkSides([side], { seconds: 1, segments: 1, connections: 16 }); // warm the isolate and its caches
    const inspector = await inspectGateway(INSPECTOR_PORT, mesh.gatewayUrl);
    if (!inspector) throw new Error("could not reach the gateway isolate's inspector");
    await inspector.send("Profiler.enable");
    await inspector.send("Profiler.setSamplingInterval", { interval: 100 });
    await inspector.send("Profiler.start");
    const rps = (await wrkSides([side], { seconds, segments: 1, connections: 16 })).get(side.name)!;
    const { profile } = (await inspector.send("Profiler.stop")) as { profile: CpuProfile };
    inspector.close();

    const dir = join(ROOT, ".skillmesh/profiles");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `gateway-${new Date().toISOString().replace(/[:.]/g, "-")}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    const bundle = readFileSync((await bundleWorker(ROOT, { unminified: true })).scriptPath, "utf8");
    console.log(`\nThe gateway isolate under wrk -c16 on /${route} for ${seconds} s: ${rps.toFixed(0)} req/s while profiled (sampling slows it).`);
    console.log(`Its busy time (idle left out) by source module, and by runtime function for native frames:`);
    for (const { where, share } of busyByModule(profile, bundle).slice(0, 25)) console.log(`${(100 * share).toFixed(1).padStart(6)}%  ${where}`);
    console.log(`\nThe whole profile: ${relative(ROOT, file)} (Chrome DevTools → Performance → Load profile).`);
  } finally {
    await mesh.dispose();
  }
}
