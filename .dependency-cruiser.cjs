/**
 * The import rules of the house, checked by `npm run depcheck` (in `.ci/run`, before the tests):
 * no file imports itself round a loop, no folder does either (a folder that imports one which
 * imports it back is an upward import: the lower one must not know the higher one), and the
 * product never imports its tools, tests or the Workers above it.
 *
 * Read the picture: `npx depcruise src routes scripts skills --output-type archi | dot -Tsvg > deps.svg`.
 */
/**
 * The layers of src/, lowest first: a folder imports its own layer and the layers below it, never
 * one above. docs/architecture.md says what each holds.
 */
const LAYERS = ["lib", "protocols", "store", "policies", "skill", "registry", "identity", "federation", "gateway", "mcp", "admin"];

/** One rule per layer: nothing in it imports a layer above it. */
const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer}`,
  severity: "error",
  comment: `src/${layer} is below ${LAYERS.slice(i + 1).join(", ")}: it never imports them. Move the shared piece down, or pass it in from above.`,
  from: { path: `^src/${layer}/`, pathNot: "\\.test\\.ts$" },
  to: { path: `^src/(${LAYERS.slice(i + 1).join("|")})/` },
}));

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "src-is-layers",
      severity: "error",
      comment: "Every source file of src/ lives in one of the layer folders (LAYERS above).",
      from: { path: "^src/", pathNot: `^src/(${LAYERS.join("|")})/` },
      to: {},
    },
    {
      name: "no-file-circles",
      severity: "error",
      comment: "Files that import each other round a loop: cut the loop (move what both need below both).",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-folder-circles",
      severity: "error",
      scope: "folder",
      comment: "Folders that import each other: one of the imports runs upward. Move the shared piece down, or pass it in from above.",
      from: {},
      to: { circular: true },
    },
    {
      name: "src-stays-below",
      severity: "error",
      comment: "src/ is the library every Worker, script and test builds on: it never imports routes/, scripts/, skills/, workers/ or test/.",
      from: { path: "^src/", pathNot: "\\.test\\.ts$" },
      to: { path: "^(routes|scripts|skills|workers|test)/" },
    },
    {
      name: "workers-not-from-scripts",
      severity: "error",
      comment: "What runs in a Worker (routes/, skills/, workers/) never imports the Node tools in scripts/.",
      from: { path: "^(routes|skills|workers)/", pathNot: "\\.test\\.ts$" },
      to: { path: "^scripts/" },
    },
  ],
  options: {
    // Tests and fixtures may reach anywhere; the rules are about the product.
    exclude: { path: ["(^|/)node_modules/", "\\.test\\.ts$", "^test/", "^\\.skillmesh/"] },
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    // Workers' virtual modules (cloudflare:workers) are not files.
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "workerd", "worker", "node", "default"] },
  },
};
