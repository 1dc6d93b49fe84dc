/**
 * The dispatch namespace's outbound Worker (workers/egress/wrangler.toml): answers each request a
 * dispatched skill makes by the egress rule (src/federation/egress), and reports a refusal to the gateway's
 * `EgressAudit` entrypoint, which audits it as the skill's. The parameters come from the gateway's
 * dispatch, never from the skill: a skill cannot widen its own egress.
 */
import { type EgressRefusal, OUTBOUND_PARAMETER, answerEgress } from "../../src/federation/egress/index.js";

interface Env {
  /** The gateway's `EgressAudit` entrypoint. */
  GATEWAY?: { egressRefused(refusal: EgressRefusal): Promise<void> };
  [parameter: string]: unknown;
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const report = (refusal: EgressRefusal) => {
      console.warn(`[egress] refused ${refusal.deployment}: ${refusal.method} ${refusal.host} is not among the hosts it declares`);
      if (env.GATEWAY)
        ctx.waitUntil(env.GATEWAY.egressRefused(refusal).catch((error: unknown) => console.error("[egress] could not report a refusal:", String(error))));
    };
    return answerEgress(request, env[OUTBOUND_PARAMETER], report, (outbound) => fetch(outbound));
  },
} satisfies ExportedHandler<Env>;
