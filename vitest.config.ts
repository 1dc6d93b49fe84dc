import { join } from "node:path";
import { defineConfig } from "vitest/config";
import LongestFirst from "./test/support/sequencer.js";

// Node 22 keeps the code it compiled (wrangler's 12 MB CLI, miniflare, tsx…) for the next process
// that loads the same file: set before the workers start, so they and every process a test
// spawns (npm run dev/deploy, wrangler, npx skillmesh) inherit it. Node 20 ignores it.
process.env.NODE_COMPILE_CACHE ??= join(import.meta.dirname, ".skillmesh/node-compile-cache");

/**
 * Two projects: `unit` (src/, routes/, scripts/: functions alone, no workerd, no redis-server;
 * `npm run test:unit`) and `integration` (test/ and the skills' own tests: meshes in workerd, a
 * real redis-server started once by the global setup). `npm test` runs both.
 */
export default defineConfig({
  test: {
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // Integration tests start workerd (Miniflare) and redis-server: give them room on 2 cores (a
    // fourth worker made the run no shorter: it is bound by the CPU its processes use).
    maxWorkers: 3,
    // The longest files first (test/support/sequencer.ts): none of them starts last.
    sequence: { sequencer: LongestFirst },
    projects: [
      // Files share each worker's modules here too (zod, hono… import once): 31 -> 13 CPU-seconds,
      // and the files pass in any order (checked with --sequence.shuffle.files).
      {
        // `cloudflare:workers` exists in workerd only: a module that names its classes at load (@cloudflare/codemode) gets stand-ins.
        resolve: { alias: { "cloudflare:workers": join(import.meta.dirname, "test/support/cloudflare-workers.ts") } },
        test: {
          name: "unit",
          include: ["{src,routes,scripts}/**/*.test.ts"],
          testTimeout: 30_000,
          isolate: false,
          server: { deps: { inline: ["@cloudflare/codemode"] } },
        },
      },
      {
        test: {
          name: "integration",
          include: ["{skills,test}/**/*.test.ts"],
          globalSetup: ["test/support/global-setup.ts"],
          // Files share each worker's modules: miniflare and wrangler (2.4 s of imports) load once per worker, not once per file.
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
