/**
 * Declared egress, at the gateway. `SkillEgress`: where every `fetch` of a script in the local
 * dispatch namespace goes (src/dispatch/local.ts sets it as the script's outbound, with the
 * dispatch's egress parameters as its props): it answers as the outbound Worker does on
 * Cloudflare (workers/egress, src/egress): a declared host is fetched, anything else refused with
 * 403 and audited as the skill's. Its props are the gateway's own: a script cannot name another
 * skill's parameters. `EgressAudit`: where that outbound Worker reports a refusal on Cloudflare.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { type EgressRefusal, EgressRefusalSchema, answerEgress } from "../src/egress/index.js";
import { type GatewayEnv, gatewayRuntime } from "../src/gateway/runtime.js";
import { errorText } from "../src/jsonrpc/index.js";

export class SkillEgress extends WorkerEntrypoint<GatewayEnv> {
  override fetch(request: Request): Promise<Response> {
    const props = (this.ctx as ExecutionContext & { props?: unknown }).props;
    const refused = (refusal: EgressRefusal) => {
      console.warn(`[egress] refused ${refusal.deployment}: ${refusal.method} ${refusal.host} is not among the hosts it declares`);
      auditRefusal(this.env, this.ctx, refusal);
    };
    return answerEgress(request, props, refused, (outbound) => fetch(outbound));
  }
}

/** The outbound Worker of the dispatch namespace reports its refusals here (workers/egress/wrangler.toml binds this entrypoint). */
export class EgressAudit extends WorkerEntrypoint<GatewayEnv> {
  egressRefused(refusal: unknown): void {
    const parsed = EgressRefusalSchema.safeParse(refusal);
    if (parsed.success) auditRefusal(this.env, this.ctx, parsed.data);
    else console.error("[egress] a refusal report that is not one was dropped");
  }
}

/** Keeps a refusal in the audit log, as the skill's. */
function auditRefusal(env: GatewayEnv, ctx: ExecutionContext, { deployment, method, host }: EgressRefusal): void {
  try {
    gatewayRuntime(env).audit.record({ type: "egress", at: Date.now(), deployment, method, host }, (p) => ctx.waitUntil(p));
  } catch (error) {
    console.error("[egress] could not audit a refusal:", errorText(error));
  }
}
