/**
 * The registry's atomic store operations (docs/architecture.md, "Registry"). Each skill is one
 * key; a sorted set `changes` holds, per skill, the registry revision of its last change, which
 * is both the skill's compare-and-set version and how a gateway finds what changed since the
 * revision it has.
 */
import type { StoreScript } from "../../store/index.js";

/** What a gateway's poll learns: the revision, expired heartbeats, and the skills changed since its own revision. */
export interface RegistryPoll {
  rev: number;
  /** Deployment ids whose heartbeat deadline has passed (not yet swept). */
  expired: string[];
  /** Skills written after the revision the poll was given (every skill when given 0). */
  changed: string[];
}

/**
 * KEYS: rev, expiry, changes. ARGV: now (ms), since (a revision). Returns `[rev, n, ...n expired
 * ids, ...changed skills]`: one round trip whose size is what changed, not the registry's size.
 */
export const pollRegistry: StoreScript<RegistryPoll> = {
  name: "registry.poll",
  lua: `
local rev = tonumber(redis.call('GET', KEYS[1]) or '0')
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
local out = {rev, #expired}
for _, id in ipairs(expired) do out[#out + 1] = id end
if rev > tonumber(ARGV[2]) then
  for _, name in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. ARGV[2], '+inf')) do out[#out + 1] = name end
end
return out
`,
  memory: (data, [revKey, expiryKey, changesKey], [now, since]) => {
    const rev = Number(data.get(revKey!) ?? "0");
    return {
      rev,
      expired: data.zrangeByScore(expiryKey!, -Infinity, Number(now)),
      changed: rev > Number(since) ? data.zrangeByScore(changesKey!, Number(since) + 1, Infinity) : [],
    };
  },
  fromRedis: (reply) => {
    const [rev, count, ...rest] = reply as Array<string | number>;
    const expired = rest.slice(0, Number(count)).map(String);
    return { rev: Number(rev), expired, changed: rest.slice(Number(count)).map(String) };
  },
};

/** One skill as stored, for a writer: its version (0 = never written), its JSON, its expired deployments. */
export interface StoredSkill {
  version: number;
  /** The skill's JSON, "" when it has none (never registered, or removed). */
  raw: string;
  expired: string[];
}

/**
 * KEYS: skill, changes, expiry. ARGV: skill name, now. Returns `[version, json or "", ...ids of
 * this skill whose heartbeat deadline passed]`.
 */
export const readSkill: StoreScript<StoredSkill> = {
  name: "registry.readSkill",
  lua: `
local out = {tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1]) or '0'), redis.call('GET', KEYS[1]) or ''}
local prefix = ARGV[1] .. '@'
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[2])) do
  if string.sub(id, 1, #prefix) == prefix then out[#out + 1] = id end
end
return out
`,
  memory: (data, [skillKey, changesKey, expiryKey], [name, now]) => ({
    version: data.zscore(changesKey!, name!) ?? 0,
    raw: data.get(skillKey!) ?? "",
    expired: data.zrangeByScore(expiryKey!, -Infinity, Number(now)).filter((id) => id.startsWith(`${name}@`)),
  }),
  fromRedis: (reply) => {
    const [version, raw, ...expired] = reply as Array<string | number>;
    return { version: Number(version), raw: String(raw), expired: expired.map(String) };
  },
};

/** A compare-and-set write of one skill and its heartbeat deadlines, with the rollout events it made. */
export interface SkillWrite {
  name: string;
  /** The version the writer read: the write happens only if the skill is still at it. */
  expectedVersion: number;
  /** The skill's new JSON, "" to remove it, or undefined to leave it (then only deadlines change and the revision stays). */
  raw: string | undefined;
  now: number;
  /** Ids the writer swept as expired: the write happens only if each deadline is still past. */
  mustBeExpired: string[];
  /** Deadlines removed (then `deadlines` set). */
  forget: string[];
  deadlines: Array<{ id: string; at: number }>;
  /** Newest first; at most `keepEvents` are kept. */
  events: string[];
  keepEvents: number;
}

/** The ARGV of `writeSkill`: positional, each list after its length. */
export function skillWriteArgs(write: SkillWrite): Array<string | number> {
  return [
    write.name,
    write.expectedVersion,
    write.raw === undefined ? "keep"
    : write.raw === "" ? "del"
    : "set",
    write.raw ?? "",
    write.now,
    write.keepEvents,
    write.mustBeExpired.length,
    ...write.mustBeExpired,
    write.forget.length,
    ...write.forget,
    write.deadlines.length,
    ...write.deadlines.flatMap(({ id, at }) => [id, at]),
    ...[...write.events].reverse(), // pushed oldest first, so the newest ends up at the head
  ];
}

/** What a write did: the skill's version after it (-1: a conflict), and how many deadlines of any skill are past. */
export interface SkillWritten {
  /** The new revision, the unchanged version when only deadlines changed, or -1 when the skill or a swept deadline moved since it was read (the writer reads again and retries). */
  version: number;
  /** Deployments past their deadline, of every skill: whether this writer should sweep some. */
  due: number;
}

/** KEYS: skill, rev, changes, expiry, events. ARGV: `skillWriteArgs`. */
export const writeSkill: StoreScript<SkillWritten> = {
  name: "registry.writeSkill",
  lua: `
local name, mode, now = ARGV[1], ARGV[3], tonumber(ARGV[5])
local version = tonumber(redis.call('ZSCORE', KEYS[3], name) or '0')
if version ~= tonumber(ARGV[2]) then return {-1, 0} end
local i = 7
local n = tonumber(ARGV[i])
for j = 1, n do
  local at = redis.call('ZSCORE', KEYS[4], ARGV[i + j])
  if not at or tonumber(at) > now then return {-1, 0} end
end
i = i + n + 1
n = tonumber(ARGV[i])
for j = 1, n do redis.call('ZREM', KEYS[4], ARGV[i + j]) end
i = i + n + 1
n = tonumber(ARGV[i])
for j = 1, n do redis.call('ZADD', KEYS[4], ARGV[i + 2 * j], ARGV[i + 2 * j - 1]) end
i = i + 2 * n
for j = i + 1, #ARGV do redis.call('LPUSH', KEYS[5], ARGV[j]) end
if #ARGV > i then redis.call('LTRIM', KEYS[5], 0, tonumber(ARGV[6]) - 1) end
local due = redis.call('ZCOUNT', KEYS[4], '-inf', now)
if mode == 'keep' then return {version, due} end
if mode == 'del' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[4]) end
local rev = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[3], rev, name)
return {rev, due}
`,
  memory: (data, [skillKey, revKey, changesKey, expiryKey, eventsKey], args) => {
    const [name, expected, mode, raw, nowArg, keep] = args as [string, string, string, string, string, string];
    const now = Number(nowArg);
    const version = data.zscore(changesKey!, name) ?? 0;
    const conflict = { version: -1, due: 0 };
    if (version !== Number(expected)) return conflict;
    let i = 6;
    const list = (width: number) => {
      const n = Number(args[i]);
      const items = args.slice(i + 1, i + 1 + n * width);
      i += 1 + n * width;
      return items;
    };
    const mustBeExpired = list(1);
    const stillDue = (id: string) => {
      const at = data.zscore(expiryKey!, id);
      return at !== undefined && at <= now;
    };
    if (!mustBeExpired.every(stillDue)) return conflict;
    data.zrem(expiryKey!, ...list(1));
    const deadlines = list(2);
    for (let j = 0; j < deadlines.length; j += 2) data.zadd(expiryKey!, [{ member: deadlines[j]!, score: Number(deadlines[j + 1]) }]);
    const events = args.slice(i);
    if (events.length) {
      data.lpush(eventsKey!, ...events);
      data.ltrim(eventsKey!, 0, Number(keep) - 1);
    }
    const due = data.zrangeByScore(expiryKey!, -Infinity, now).length;
    if (mode === "keep") return { version, due };
    if (mode === "del") data.del(skillKey!);
    else data.set(skillKey!, raw);
    const rev = data.incr(revKey!);
    data.zadd(changesKey!, [{ member: name, score: rev }]);
    return { version: rev, due };
  },
  fromRedis: (reply) => {
    const [version, due] = reply as [number, number];
    return { version: Number(version), due: Number(due) };
  },
};

/** KEYS: events. ARGV: how many. The newest rollout events first. */
export const readEvents: StoreScript<string[]> = {
  name: "registry.readEvents",
  lua: `return redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)`,
  memory: (data, [eventsKey], [count]) => data.lrange(eventsKey!, 0, Number(count) - 1),
  fromRedis: (reply) => (reply as unknown[]).map(String),
};
