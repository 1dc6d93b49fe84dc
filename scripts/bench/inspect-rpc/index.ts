/**
 * The floor of a hop that reads what it passes and calls the skill over the SDK's RPC hop
 * (src/protocols/hop/rpc.ts), for `npm run bench`: the inspecting hop of inspect-hop/ with the gateway's
 * transport, and still no checks, policies, tracing or audit. The gateway is measured against it
 * beside the other floors.
 */
import { type SkillBinding, inspectingHop } from "../inspecting-hop.js";

interface Env {
  SKILL: SkillBinding & { skillmeshCall(call: { body: string; headers: Record<string, string>; timeoutMs: number }): Promise<string> };
}

export default inspectingHop<Env>((env, body) => env.SKILL.skillmeshCall({ body, headers: {}, timeoutMs: 10_000 }));
