/**
 * The gateway's own methods, answered from the registry view without calling a skill:
 * `skills.list`, `skills.discover` (`{capability?, tags?}`) and `rpc.discover` (OpenRPC). Each
 * shows only the skills the caller may call.
 */
import { z } from "zod";
import type { Access } from "../auth/index.js";
import { type JsonRpcRequest, parseParams } from "../jsonrpc/index.js";
import { discoverIn } from "../registry/discovery.js";
import type { RegistryView } from "../registry/snapshot.js";
import { positionalMapper } from "../skill/index.js";
import { allowedOf, catalogFor, summarize } from "./catalog.js";
import { openRpcDocument } from "./openrpc.js";

type Builtin = (request: JsonRpcRequest, view: RegistryView, access: Access) => Promise<unknown>;

const DiscoverParams = z.object({
  capability: z.string().min(1).max(128).optional(),
  tags: z.array(z.string().min(1).max(128)).max(16).optional(),
});

/** Validates a built-in's params with the same by-name / by-position rules as a skill. */
function builtinParams<T extends z.ZodType>(schema: T, request: JsonRpcRequest): z.output<T> {
  return parseParams(schema, positionalMapper(schema)(request.params));
}

/** The gateway's own methods, by name (a Map: a method named `constructor` is no built-in). */
export const builtins: ReadonlyMap<string, Builtin> = new Map<string, Builtin>([
  [
    "skills.list",
    async (request, view, access) => {
      builtinParams(z.object({}), request);
      return catalogFor(view, access);
    },
  ],
  ["skills.discover", async (request, view, access) => allowedOf(summarize(discoverIn(view, builtinParams(DiscoverParams, request))), access)],
  [
    "rpc.discover",
    async (request, view, access) => {
      builtinParams(z.object({}), request);
      return openRpcDocument(catalogFor(view, access));
    },
  ],
]);
