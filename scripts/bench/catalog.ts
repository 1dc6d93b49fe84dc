/**
 * `npm run bench -- --catalog 10000`: what an agent meets at scale, two measures.
 *
 * The compact catalog (`/mcp?catalog=search`) on a mesh of the shipped skills plus N tools of
 * scripts/bench/catalog-corpus.ts: the tokens (o200k_base) of its three tool definitions against
 * those of every page of the full `tools/list`; recall@1 and @5 of the corpus's 50 queries; a
 * search's latency (the first, which builds the index, and then the p50); the gateway's JS heap
 * before and after the index is built.
 *
 * Agent Skills at scale: two meshes side by side, one with 10 packages and one with N, each
 * package with a SKILL.md of ~5,000 tokens; `skills/list` (a page of 10 on both) and `resources/read` of
 * one SKILL.md, measured in alternating segments, and their cost ratio at N against 10 (the aim:
 * within 1.2×); and `catalog.search` among the N packages (each named and described after a corpus
 * tool): the first search (which builds the caller's package index), then the p50 and recall@5 of
 * the corpus's queries (the aim: ≤ 10 ms), and the p50 of the worst case, a word every package has.
 */
import { randomBytes } from "node:crypto";
import { agentSkillDirs, registerAgentSkill } from "../mesh/agent-skills.js";
import { skillDirs } from "../mesh/bundle.js";
import { type Mesh, adminCall, startMesh } from "../mesh/index.js";
import { registerSynthetic } from "../mesh/synthetic.js";
import { CORPUS_SIZE, QUERIES, corpusManifest } from "./catalog-corpus.js";
import { inspectGateway } from "./inspector.js";
import { SUBTRACT_DIR } from "./trivial.js";
import { tokensOf } from "./tokens.js";

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };
const INSPECTOR_PORT = 9241;
/** The `skills/list` page of the packages measure: the size of the small side. */
const PAGE = 10;

async function mcp(url: string, method: string, params: unknown): Promise<any> {
  const response = await fetch(url, { method: "POST", headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (!body.result) throw new Error(`${method}: ${body.error?.message ?? response.status}`);
  return body.result;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timedMs(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** The compact catalog at `size` tools. */
async function compactCatalog(size: number): Promise<void> {
  const adminToken = randomBytes(16).toString("hex");
  console.log(`Starting the shipped skills and registering ${size} corpus tools …`);
  const mesh = await startMesh({ skills: skillDirs(), adminToken, inspectorPort: INSPECTOR_PORT });
  try {
    const binding = mesh.skills.find((s) => s.manifest.name === "modbus.decode")!.binding;
    await registerSynthetic(mesh.gatewayUrl, adminToken, binding, 0, Math.min(size, CORPUS_SIZE), 8, corpusManifest);
    for (const dir of agentSkillDirs()) await registerAgentSkill(mesh.gatewayUrl, adminToken, dir);
    const inspector = await inspectGateway(INSPECTOR_PORT, mesh.gatewayUrl);
    const compactUrl = `${mesh.gatewayUrl}/mcp?catalog=search`;
    const compact = (await mcp(compactUrl, "tools/list", {})).tools;
    let fullTokens = 0;
    let fullTools = 0;
    for (let cursor: string | undefined, page = 0; page === 0 || cursor; page++) {
      const listed = await mcp(`${mesh.gatewayUrl}/mcp`, "tools/list", cursor ? { cursor } : {});
      fullTokens += tokensOf(JSON.stringify(listed.tools));
      fullTools += listed.tools.length;
      cursor = listed.nextCursor;
    }
    const heapBefore = await inspector?.heapMb();
    const search = (query: string, limit = 5) => mcp(compactUrl, "tools/call", { name: "catalog.search", arguments: { query, limit } });
    const firstMs = await timedMs(() => search("decode a modbus frame"));
    const heapAfter = await inspector?.heapMb();
    let first = 0;
    let inFive = 0;
    const latencies: number[] = [];
    for (const { query, want } of QUERIES) {
      let hits: Array<{ name: string }> = [];
      latencies.push(await timedMs(async () => (hits = (await search(query)).structuredContent.results)));
      const rank = hits.findIndex((h) => h.name === want);
      if (rank === 0) first++;
      if (rank >= 0) inFive++;
    }
    const searchHit = (await search("decode a modbus frame")).structuredContent;
    console.log(`
compact catalog at ${fullTools} tools (${size} corpus + the shipped skills + skills.call)
  tools/list tokens (o200k_base)     compact ${tokensOf(JSON.stringify(compact))} (${compact.length} tools)   full ${fullTokens} (every page)
  one search answer tokens (limit 5) ${tokensOf(JSON.stringify(searchHit))}
  recall on ${QUERIES.length} queries               @1 ${first}/${QUERIES.length}   @5 ${inFive}/${QUERIES.length}
  search ms                          first ${firstMs.toFixed(0)} (builds the index)   p50 ${median(latencies).toFixed(1)}   max ${Math.max(...latencies).toFixed(1)}
  gateway JS heap after GC MB        ${heapBefore?.toFixed(1) ?? "?"} before the index, ${heapAfter?.toFixed(1) ?? "?"} after`);
    inspector?.close();
  } finally {
    await mesh.dispose();
  }
}

/** A SKILL.md of about `tokens` tokens of instructions. */
function largeSkillMd(name: string, description: string, tokens: number): string {
  const paragraph =
    "When a frame fails its CRC, check the wiring, the baud rate and the parity before anything else; several in a row mean the line settings differ between the master and the slaves. ";
  const header = `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\nallowed-tools: subtract\nmetadata:\n  version: "1.0.0"\n---\n# ${name}\n\n`;
  let body = "";
  while (tokensOf(header + body) < tokens) body += paragraph.repeat(20);
  return header + body;
}

/** Package `i` of the scale measure: named after corpus tool `i`, and described as it is. */
const packageNameOf = (i: number) => `${corpusManifest(i).name.replaceAll(".", "-")}${i < CORPUS_SIZE ? "" : `-${i}`}`;
const CORPUS_NAMES = Array.from({ length: CORPUS_SIZE }, (_, i) => corpusManifest(i).name);

/** skills/list and resources/read at 10 packages and at `size`. */
export async function packagesAtScale(size: number): Promise<void> {
  const adminToken = randomBytes(16).toString("hex");
  const skillMd = (i: number) => largeSkillMd(packageNameOf(i), corpusManifest(i).description, 5_000);
  console.log(`\nAgent Skills at scale: two meshes, 10 and ${size} packages (SKILL.md of ${tokensOf(skillMd(0))} tokens) …`);
  const meshes: Mesh[] = [];
  try {
    for (const count of [10, size]) {
      // Pages of 10 on both: each answer lists as many packages, so only how many there are differs.
      const mesh = await startMesh({ skills: [SUBTRACT_DIR], adminToken, gatewayVars: { SKILLMESH_MCP_PAGE_SIZE: String(PAGE) } });
      meshes.push(mesh);
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < count) {
            const i = next++;
            await adminCall(mesh.gatewayUrl, adminToken, "POST", "/agent-skills", {
              name: packageNameOf(i),
              files: [{ path: "SKILL.md", content: skillMd(i) }],
            });
          }
        }),
      );
    }
    const list = (mesh: Mesh) => mcp(`${mesh.gatewayUrl}/mcp`, "skills/list", {});
    const read = (mesh: Mesh) => mcp(`${mesh.gatewayUrl}/mcp`, "resources/read", { uri: `skill://${packageNameOf(7)}/SKILL.md` });
    const rows: Array<[string, (mesh: Mesh) => Promise<unknown>]> = [
      [`skills/list (a page of ${PAGE})`, list],
      ["resources/read of one SKILL.md", read],
    ];
    console.log(`                                      10 packages  ${size} packages`);
    for (const [label, fn] of rows) {
      const perSide: number[][] = [[], []];
      // Alternating 1 s segments, 8 in flight; the ratio is the median of the pairs' ratios.
      const ratios: number[] = [];
      for (let segment = 0; segment < 8; segment++) {
        const rates = [];
        for (const [i, mesh] of meshes.entries()) {
          let done = 0;
          const until = performance.now() + 1_000;
          await Promise.all(
            Array.from({ length: 8 }, async () => {
              while (performance.now() < until) {
                await fn(mesh);
                done++;
              }
            }),
          );
          perSide[i]!.push(done);
          rates.push(done);
        }
        ratios.push(rates[0]! / rates[1]!);
      }
      const sorted = [...ratios].sort((a, b) => a - b);
      console.log(
        `  ${label.padEnd(36)} ${`${median(perSide[0]!)}/s`.padStart(11)}  ${`${median(perSide[1]!)}/s`.padStart(13)}  cost ratio ${median(ratios).toFixed(2)}x (aim <= 1.2x; quartiles ${sorted[2]!.toFixed(2)}–${sorted[5]!.toFixed(2)})`,
      );
    }
    // A search among every package: the first builds the caller's index (kept per package revision
    // and grants); then the corpus's queries for its tools, asked of the packages named after them.
    const search = async (query: string): Promise<Array<{ name: string }>> =>
      (await mcp(`${meshes[1]!.gatewayUrl}/mcp?catalog=search`, "tools/call", { name: "catalog.search", arguments: { query, kind: "skill", limit: 5 } }))
        .structuredContent.results;
    const firstMs = await timedMs(() => search("decode a modbus frame"));
    const asked = QUERIES.flatMap(({ query, want }) => {
      const i = CORPUS_NAMES.indexOf(want);
      return i >= 0 && i < size ? [{ query, want: packageNameOf(i) }] : [];
    });
    const latencies: number[] = [];
    let found = 0;
    for (const { query, want } of asked) {
      let hits: Array<{ name: string }> = [];
      latencies.push(await timedMs(async () => (hits = await search(query))));
      if (hits.some((hit) => hit.name === want)) found++;
    }
    // The worst case: a word of every package's description, so every package is scored.
    const everywhere: number[] = [];
    for (let i = 0; i < 20; i++) everywhere.push(await timedMs(() => search("reads its")));
    console.log(
      `  catalog.search among ${size} packages    first ${firstMs.toFixed(0)} ms (builds the index)   p50 ${median(latencies).toFixed(1)} ms (aim <= 10)   max ${Math.max(...latencies).toFixed(1)} ms   recall@5 ${found}/${asked.length}`,
    );
    console.log(`    a word every package has ("reads")    p50 ${median(everywhere).toFixed(1)} ms`);
  } finally {
    for (const mesh of meshes) await mesh.dispose();
  }
}

/**
 * Both measures.
 * @example await runCatalog(10_000)
 */
export async function runCatalog(size: number): Promise<void> {
  if (!Number.isInteger(size) || size < 10) throw new Error("--catalog N: a number of tools and packages, at least 10");
  await compactCatalog(size);
  await packagesAtScale(size);
}
