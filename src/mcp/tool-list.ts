/** The tools `tools/list` shows, converted from the catalog's skills once per change and kept per catalog. */
import type { ToolSummary } from "../gateway/chain/catalog.js";
import { CAPABILITY_TOOL } from "../gateway/chain/capability.js";
import type { Tool } from "../protocols/mcp/index.js";
import { toolOf } from "./tools.js";

/** A skill and the tool it is listed as. */
export interface ListedTool {
  skill: ToolSummary;
  tool: Tool;
}

/** Same tools in the same order: lists are rebuilt from cached tool objects, so identity says it. */
export function sameTools(a: Tool[], b: Tool[]): boolean {
  return a === b || (a.length === b.length && a.every((tool, i) => tool === b[i]));
}

/**
 * Tools per catalog: a catalog is rebuilt only when the registry changes, and a summary only
 * when its skill changes, so a change of one skill converts one tool again.
 */
const toolCache = new WeakMap<ToolSummary[], Tools>();
const listedCache = new WeakMap<ToolSummary, ListedTool>();
export interface Tools {
  byName: Map<string, ListedTool>;
  /** In name order. */
  list: Tool[];
  /** The list as 2025-11-25 lists it: each tool with `execution.taskSupport`, "required" for a `jobOnly` skill, else "optional" (built once). */
  withTaskSupport(): Tool[];
}
/** A skill's tool, converted once per summary (a summary is rebuilt only when its skill changes). */
export function listedOf(skill: ToolSummary): ListedTool {
  let listed = listedCache.get(skill);
  if (!listed) listedCache.set(skill, (listed = { skill, tool: toolOf(skill) }));
  return listed;
}

const renamedCache = new WeakMap<ToolSummary, Map<string, ToolSummary>>();

/**
 * A skill's summary under another name (a virtual server's alias), made once per summary and
 * name: the tool it is listed as keeps its identity while the skill is unchanged (`sameTools`).
 * @example renamedOf(summary, "pet").name // "pet"
 */
export function renamedOf(skill: ToolSummary, name: string): ToolSummary {
  let byName = renamedCache.get(skill);
  if (!byName) renamedCache.set(skill, (byName = new Map<string, ToolSummary>()));
  let renamed = byName.get(name);
  if (!renamed) byName.set(name, (renamed = { ...skill, name }));
  return renamed;
}

export function toolsOf(catalog: ToolSummary[]): Tools {
  let tools = toolCache.get(catalog);
  if (!tools) {
    // Sorted by code unit, the order cursors compare in; `skills.call` (policy routing) is a tool too.
    const sorted = [...catalog, CAPABILITY_TOOL].sort((a, b) =>
      a.name < b.name ? -1
      : a.name > b.name ? 1
      : 0,
    );
    const list: Tool[] = [];
    let withTasks: Tool[] | undefined;
    const byName = new Map<string, ListedTool>();
    const support = (tool: Tool) => (byName.get(tool.name)?.skill.jobOnly ? "required" : "optional");
    tools = { byName, list, withTaskSupport: () => (withTasks ??= list.map((tool) => ({ ...tool, execution: { taskSupport: support(tool) } }))) };
    for (const skill of sorted) {
      const listed = listedOf(skill);
      tools.byName.set(skill.name, listed);
      tools.list.push(listed.tool);
    }
    toolCache.set(catalog, tools);
  }
  return tools;
}
