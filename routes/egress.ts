/**
 * Declared egress, at the gateway. `SkillEgress`: where every `fetch` of a script in the local
 * dispatch namespace goes (src/federation/dispatch/local.ts sets it as the script's outbound, told the
 * script's name): it answers as the outbound Worker does on Cloudflare (workers/egress,
 * src/federation/egress), by the egress of the deployment the registry holds for that script — a declared
 * host is fetched, anything else refused with 403 and audited as the skill's; a script no
 * deployment is registered by reaches nothing. The props are the gateway's own: a script cannot
 * name another. `EgressAudit`: where that outbound Worker reports a refusal on Cloudflare.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { type EgressRefusal, EgressRefusalSchema, answerEgress } from "../src/federation/egress/index.js";
import { type GatewayEnv, gatewayRuntime } from "../src/gateway/chain/runtime.js";
import type { EgressOf } from "../src/federation/dispatch/local.js";
import { egressParamsOf } from "../src/federation/forward/index.js";
import { errorText } from "../src/protocols/jsonrpc/index.js";

export class SkillEgress extends WorkerEntrypoint<GatewayEnv> {
  override async fetch(request: Request): Promise<Response> {
    const { script } = (this.ctx as ExecutionContext & { props: EgressOf }).props;
    const registered = (await gatewayRuntime(this.env).snapshot.current())
      .deployments()
      .find((d) => "dispatch" in d.endpoint && d.endpoint.dispatch === script);
    const params = registered ? egressParamsOf(registered) : { deployment: `(script ${script}, not registered)`, hosts: [] };
    const refused = (refusal: EgressRefusal) => {
      console.warn(`[egress] refused ${refusal.deployment}: ${refusal.method} ${refusal.host} is not among the hosts it declares`);
      auditRefusal(this.env, this.ctx, refusal);
    };
    return answerEgress(request, params, refused, (outbound) => fetch(outbound));
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
