/**
 * The registry's atomic store operations. The registry document is written by compare-and-set
 * on a revision counter, so two admins (or isolates) registering at once never lose a write;
 * gateways poll the revision and the heartbeat deadlines in one round trip.
 */
import type { StoreScript } from "../store/index.js";

/**
 * KEYS: doc, rev. ARGV: expected rev, new doc. Writes the doc and bumps the revision only if the
 * revision is still the expected one. Returns the new revision, or -1 on a conflict.
 */
export const compareAndSetDoc: StoreScript<number> = {
  name: "registry.compareAndSet",
  lua: `
local rev = tonumber(redis.call('GET', KEYS[2]) or '0')
if rev ~= tonumber(ARGV[1]) then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
return redis.call('INCR', KEYS[2])
`,
  memory: (data, [docKey, revKey], [expected, doc]) => {
    const rev = Number(data.get(revKey!) ?? "0");
    if (rev !== Number(expected)) return -1;
    data.set(docKey!, doc!);
    return data.incr(revKey!);
  },
  fromRedis: (reply) => Number(reply),
};

/**
 * KEYS: rev, expiry zset. ARGV: now (ms). Returns `[rev, ...ids whose heartbeat deadline passed]`:
 * what a gateway needs to know whether its snapshot is still good.
 */
export const pollRegistry: StoreScript<{ rev: number; expired: string[] }> = {
  name: "registry.poll",
  lua: `
local out = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
table.insert(out, 1, redis.call('GET', KEYS[1]) or '0')
return out
`,
  memory: (data, [revKey, expiryKey], [now]) => ({
    rev: Number(data.get(revKey!) ?? "0"),
    expired: data.zrangeByScore(expiryKey!, -Infinity, Number(now)),
  }),
  fromRedis: (reply) => {
    const [rev, ...expired] = reply as Array<string | number>;
    return { rev: Number(rev), expired: expired.map(String) };
  },
};
