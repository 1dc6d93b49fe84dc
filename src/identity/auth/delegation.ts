/**
 * Delegation: how a pipeline's steps call skills as the pipeline's caller. When the gateway
 * forwards one call to a deployment its operator registered as a pipeline (`"pipeline": true`
 * at registration: never the manifest's say), it issues a token for that call alone and hands it
 * to the pipeline (`X-Skillmesh-Delegation`); the pipeline sends it back on each step as
 * `Authorization: Bearer smd.…`.
 *
 * The token is a random name for a record in the store (`sm:delegation:<sha256 of the token>`),
 * not a signed claim: nothing a skill holds can make one, and the gateway withdraws it when the
 * call ends (or at the call's deadline, whichever comes first). The record holds who the caller
 * is, its grants, its limits and its user, group and session, the pipeline deployment, and the
 * skills the pipeline's steps declare. A step is served as that caller (src/identity/auth/index.ts): the
 * key behind it must still be active (a revoked key ends its tokens; a downgraded key's step gets
 * the key's grants as they are now), only the declared skills are visible, every step is counted
 * against the caller's rate and quota, and `jobs.*` and async submits are refused.
 */
import { z } from "zod";
import { randomHex, sha256Hex } from "../../lib/hash/index.js";
import { safeJson } from "../../lib/json/index.js";
import { LimitsSchema } from "../../policies/ratelimit/index.js";
import type { Store } from "../../store/index.js";

const PREFIX = "smd.";

/** What a delegation token stands for. */
export const DelegationSchema = z.object({
  /** The caller's id (`k_…`, `o_…`, `c_…`, "anonymous"). */
  caller: z.string().min(1).max(64),
  /** Its grants at the call (`Access.signature`; a job's call: its owner's grants at submit). */
  grants: z.string().max(65_536),
  /** The pipeline deployment it was issued to, `name@version`. */
  pipeline: z.string().min(1).max(200),
  /**
   * The skills the steps may call: one list per pipeline the call went through (a pipeline's
   * step that is itself a pipeline adds its own list); a skill must be on every list.
   */
  steps: z
    .array(z.array(z.string().max(64)).max(128))
    .min(1)
    .max(8),
  /** The rate and quota its steps are counted against (a key's are read again at each step). */
  limits: LimitsSchema,
  /** The caller context of the call: a step's own `X-User-Id`, group and session headers are not read. */
  context: z.object({ userId: z.string().max(256).optional(), group: z.string().max(64).optional(), session: z.string().max(256).optional() }),
  /** Until when (ms since the epoch): the call's deadline. */
  expiresAt: z.number(),
});
export type Delegation = z.infer<typeof DelegationSchema>;

/** True when a bearer credential is a delegation token (and not an API key or a JWT). */
export const isDelegationToken = (bearer: string) => bearer.startsWith(PREFIX);

const recordKey = async (token: string) => `sm:delegation:${await sha256Hex(token)}`;

/** The tokens of the calls to pipelines that are running now, kept in the store every gateway isolate shares. */
export class Delegations {
  constructor(private readonly store: Store) {}

  /**
   * Issues a token for one call of a pipeline; `end()` withdraws it (the record also expires at
   * `expiresAt`, for a call that never ends).
   * @example const { token, end } = await delegations.issue(delegation, Date.now()); try { … } finally { await end() }
   */
  async issue(delegation: Delegation, now: number): Promise<{ token: string; end: () => Promise<void> }> {
    const token = `${PREFIX}${randomHex(32)}`;
    const key = await recordKey(token);
    await this.store.set(key, JSON.stringify(delegation), { px: Math.max(1_000, delegation.expiresAt - now) });
    return { token, end: async () => void (await this.store.del(key)) };
  }

  /**
   * What a token stands for, or undefined when it is unknown, withdrawn or expired. Throws
   * `StoreUnavailable` when the store cannot say (the step is then refused with 503, never served).
   * @example const delegation = await delegations.find(bearer, Date.now())
   */
  async find(token: string, now: number): Promise<Delegation | undefined> {
    if (!/^smd\.[0-9a-f]{64}$/.test(token)) return undefined;
    const stored = await this.store.get(await recordKey(token));
    const parsed = DelegationSchema.safeParse(stored === null ? undefined : safeJson(stored));
    return parsed.success && parsed.data.expiresAt >= now ? parsed.data : undefined;
  }
}
