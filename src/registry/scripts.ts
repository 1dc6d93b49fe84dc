/**
 * The registry's own atomic store operation: gateways poll the revision and the heartbeat
 * deadlines in one round trip. (The document itself is written by src/store/document.ts.)
 */
import type { StoreScript } from "../store/index.js";

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
