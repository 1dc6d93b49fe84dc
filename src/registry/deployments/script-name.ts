import { z } from "zod";

/**
 * A Worker's script name, as Cloudflare takes one (lower-case letters, digits, `-` and `_`, at most
 * 63): what a dispatched deployment is reached by in the gateway's namespace.
 * @example ScriptNameSchema.parse("skill-text-summarize-v2")
 */
export const ScriptNameSchema = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?$/, "dispatch must be a Worker script name: lower-case letters, digits, - and _, at most 63");
