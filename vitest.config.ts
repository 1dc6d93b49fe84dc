import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{src,routes,skills,scripts,test}/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // Integration tests start workerd (Miniflare) and redis-server: give them room on 2 cores.
    testTimeout: 30_000,
    hookTimeout: 120_000,
    maxWorkers: 3,
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
