/** Code mode's data-heavy task, its sink (scripts/bench/code-mode.ts): a report written from what was read. */
import { defineSkill, z } from "../../../src/skill/index.js";

export default defineSkill({
  name: "report.save",
  version: "1.0.0",
  description: "Save a report: a title and its rows (any JSON objects); answers the report's id and how many rows it holds.",
  tags: ["report", "bench"],
  input: z.object({ title: z.string(), rows: z.array(z.record(z.string(), z.unknown())).max(10_000) }),
  output: z.object({ id: z.string(), rows: z.number().int() }),
  handler: ({ title, rows }) => ({ id: `r-${title.length}-${rows.length}`, rows: rows.length }),
});
