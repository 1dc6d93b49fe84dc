/**
 * The gateway's `SkillEgress` entrypoint: where every `fetch` of a script in the local dispatch
 * namespace goes (src/dispatch/local.ts sets it as the script's outbound, with the dispatch's
 * egress parameters as its props). It answers as the outbound Worker does on Cloudflare
 * (src/egress): a declared host is fetched, anything else refused with 403 and audited as the
 * skill's. Its props are the gateway's own: a script cannot name another skill's parameters.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { type EgressRefusal, answerEgress } from "../src/egress/index.js";
import { type GatewayEnv, gatewayRuntime } from "../src/gateway/runtime.js";
import { errorText } from "../src/jsonrpc/index.js";

export class SkillEgress extends WorkerEntrypoint<GatewayEnv> {
  override fetch(request: Request): Promise<Response> {
    const props = (this.ctx as ExecutionContext & { props?: unknown }).props;
    return answerEgress(
      request,
      props,
      (refusal) => this.#audit(refusal),
      (outbound) => fetch(outbound),
    );
  }

  #audit({ deployment, method, host }: EgressRefusal): void {
    console.warn(`[egress] refused ${deployment}: ${method} ${host} is not among the hosts it declares`);
    try {
      gatewayRuntime(this.env).audit.record({ type: "egress", at: Date.now(), deployment, method, host }, (p) => this.ctx.waitUntil(p));
    } catch (error) {
      console.error("[egress] could not audit a refusal:", errorText(error));
    }
  }
}
