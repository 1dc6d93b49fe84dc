/** subtract, named by the script's `SKILL_NAME` var (read when the module loads): one bundle, N skills. */
import { env } from "cloudflare:workers";
import { defineSkill, z } from "../../../src/skill/index.js";

export default defineSkill({
  name: (env as { SKILL_NAME?: string }).SKILL_NAME ?? "subtract",
  version: "1.0.0",
  description: "minuend - subtrahend",
  tags: ["math", "bench"],
  input: z.object({ minuend: z.number(), subtrahend: z.number() }),
  output: z.number(),
  idempotent: true,
  handler: ({ minuend, subtrahend }) => minuend - subtrahend,
});
