#!/usr/bin/env node
/**
 * What `npm test` needs beyond npm (its `pretest`): a real redis-server (the Redis driver's
 * tests), Chromium (the dashboard's, in a real browser) and promtool (the metrics scrape linted by
 * Prometheus' own tool). Each missing one is installed when this runs as root on Debian or Ubuntu,
 * as CI does (`apt-get install`); otherwise it stops at once, naming the one command to run.
 * Plain Node, no dependency: it runs before anything else of the tests.
 */
import { spawnSync } from "node:child_process";

/** Each command the tests run, and the Debian package that brings it. */
const TOOLS = [
  { command: "redis-server", pkg: "redis-server" },
  { command: "chromium", pkg: "chromium" },
  { command: "promtool", pkg: "prometheus" },
];

const has = (command) => spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;

const missing = TOOLS.filter((tool) => !has(tool.command));
if (missing.length) {
  const packages = missing.map((tool) => tool.pkg);
  const isRoot = process.getuid?.() === 0;
  if (isRoot && has("apt-get")) {
    console.log(`npm test: installing ${packages.join(", ")} (apt-get, as root) …`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const update = spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
    // prometheus without its recommends: promtool is all the tests use.
    const install =
      update.status === 0 ? spawnSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...packages], { stdio: "inherit", env }) : update;
    const still = missing.filter((tool) => !has(tool.command));
    if (install.status !== 0 || still.length) {
      console.error(`npm test: could not install ${still.map((tool) => tool.pkg).join(", ") || packages.join(", ")}; apt-get said why above.`);
      process.exit(1);
    }
  } else {
    const command =
      has("apt-get") ?
        `sudo apt-get install -y ${packages.join(" ")}`
      : `install ${missing.map((tool) => tool.command).join(", ")} (Debian packages: ${packages.join(" ")})`;
    console.error(`npm test needs ${missing.map((tool) => tool.command).join(", ")}, which this machine lacks. Run:\n\n  ${command}\n\nthen npm test again.`);
    process.exit(1);
  }
}
