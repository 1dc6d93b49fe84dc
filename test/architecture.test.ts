/**
 * docs/architecture.md draws src/ as a table of layers; the tree must be that table. A folder
 * added, moved or removed without the map fails here, and the depcheck's `LAYERS` must list the
 * same layers in the same order.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../scripts/mesh/bundle.js";

/** The layer table of docs/architecture.md: layer → its folders (empty for a layer of files). */
function documentedTree(): Map<string, string[]> {
  const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
  const table = doc.slice(doc.indexOf("<!-- tree:"));
  const lines = table.split("\n").slice(3);
  const rows = lines.slice(0, lines.indexOf(""));
  return new Map(
    rows.map((row) => {
      const [, layer, , folders] = row.split("|").map((cell) => cell.trim());
      return [layer!.replaceAll("`", ""), folders === "(files)" ? [] : folders!.split(", ")];
    }),
  );
}

const isDir = (path: string) => statSync(path).isDirectory();

it("the layer table of docs/architecture.md is the tree of src/", () => {
  const tree = new Map(
    readdirSync(join(ROOT, "src"))
      .filter((layer) => isDir(join(ROOT, "src", layer)))
      .map((layer) => [layer, readdirSync(join(ROOT, "src", layer)).filter((name) => isDir(join(ROOT, "src", layer, name)))]),
  );
  const documented = documentedTree();
  expect([...documented.keys()].sort()).toEqual([...tree.keys()].sort());
  for (const [layer, folders] of tree) expect(documented.get(layer), layer).toEqual(folders.sort());
});

it("the depcheck's layers are the table's, in its order", () => {
  const config = createRequire(import.meta.url)(join(ROOT, ".dependency-cruiser.cjs")) as { forbidden: Array<{ name: string }> };
  const below = config.forbidden.filter((rule) => rule.name.startsWith("layer-")).map((rule) => rule.name.slice("layer-".length));
  expect(below).toEqual([...documentedTree().keys()].slice(0, -1));
});
