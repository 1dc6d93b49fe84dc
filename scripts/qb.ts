import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { ROOT, skillDirs } from "./mesh/bundle.js";
import { KeyCreatedSchema } from "../src/admin-api/index.js";
import { adminCall, registerSkill, startMesh } from "./mesh/index.js";
import { MCP_HEADERS, SUBTRACT_DIR, TRIVIAL, TRIVIAL_MCP } from "./bench/trivial.js";
import { wrkSides } from "./bench/wrk.js";
const adminToken = randomBytes(16).toString("hex");
const bareDir = join(ROOT, "scripts/bench/bare-hop");
const inspectDir = join(ROOT, "scripts/bench/inspect-hop");
const mesh = await startMesh({ skills: [...skillDirs(), SUBTRACT_DIR, bareDir, inspectDir], adminToken, register: false, gatewayVars: { SKILLMESH_AUTH: "required" } });
for (const skill of mesh.skills) if (![bareDir, inspectDir].includes(skill.dir)) await registerSkill(mesh.gatewayUrl, adminToken, { binding: skill.binding });
const urlOf = (dir: string) => mesh.skills.find((s) => s.dir === dir)!.url;
const key = `Bearer ${KeyCreatedSchema.parse(await adminCall(mesh.gatewayUrl, adminToken, "POST", "/keys", { name: "bench", skills: ["*"], groups: ["bench"] })).key}`;
const sides = [
  { name: "direct", url: urlOf(SUBTRACT_DIR), body: TRIVIAL, headers: () => ({}) },
  { name: "bare", url: urlOf(bareDir), body: TRIVIAL, headers: () => ({}) },
  { name: "inspect", url: urlOf(inspectDir), body: TRIVIAL, headers: () => ({}) },
  { name: "gateway", url: `${mesh.gatewayUrl}/rpc`, body: TRIVIAL, headers: () => ({ authorization: key }) },
  { name: "mcp2025", url: `${mesh.gatewayUrl}/mcp`, body: TRIVIAL_MCP, headers: () => ({ ...MCP_HEADERS, authorization: key }) },
];
await wrkSides(sides, { seconds: 1, segments: 1, connections: 16 });
const rps = await wrkSides(sides, { seconds: 2, segments: Number(process.argv[2] ?? 5), connections: 16 });
for (const [n, v] of rps) console.log(n.padEnd(10), Math.round(v), (v / rps.get("bare")!).toFixed(3));
await mesh.dispose(); process.exit();
