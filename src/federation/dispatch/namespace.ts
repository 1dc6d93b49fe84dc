/** What a dispatch namespace is to the gateway, whichever runs it (src/federation/dispatch/index.ts). */
import type { EgressParams } from "../egress/index.js";

/** Per-call limits of a dispatched Worker: CPU milliseconds and subrequests (custom limits). */
export interface DispatchLimits {
  cpuMs?: number;
  subRequests?: number;
}

/** How one dispatch runs: its limits, and what its outbound Worker is told (the hosts it may reach). */
export interface DispatchOptions {
  limits?: DispatchLimits;
  egress: EgressParams;
}

/** A dispatch namespace as the gateway uses one: a Worker by script name, to call by RPC or HTTP. */
export interface SkillNamespace {
  /** The script's Worker, under `options`; throws `ScriptNotFound` when the namespace has no such script. */
  worker(script: string, options: DispatchOptions): Promise<Fetcher>;
}

/** The namespace has no script of that name (never uploaded, or removed). */
export class ScriptNotFound extends Error {
  constructor(readonly script: string) {
    super(`no Worker ${script} in the dispatch namespace`);
    this.name = "ScriptNotFound";
  }
}
