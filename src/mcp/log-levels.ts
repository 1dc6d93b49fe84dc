/**
 * The level a 2025 session asked for its log messages (`logging/setLevel`), kept in the store
 * under the caller and the session's id for a day (a later request may reach another isolate),
 * and for `LOCAL_MS` in this isolate: a session's every call of an upstream's tool asks for it,
 * and should not cost a store read each time (another isolate's `setLevel` is seen here within
 * `LOCAL_MS`). 2026-07-28 requests carry their level in `_meta` and need none of this.
 */
import { type LogLevel, LogLevelSchema } from "../protocols/logging/index.js";
import type { Store } from "../store/index.js";

const PREFIX = "sm:loglevel:";
const LOG_LEVEL_TTL_MS = 24 * 60 * 60_000;
/** How long this isolate answers from what it last read or wrote, and for how many sessions at most. */
export const LOCAL_MS = 5_000;
const MAX_LOCAL = 10_000;

/** One caller's sessions' log levels. */
export interface LogLevels {
  set(session: string, level: LogLevel): Promise<void>;
  /** The session's level, if it set one. */
  get(session: string): Promise<LogLevel | undefined>;
}

/** This isolate's recent levels (none set is remembered too), by store key; the oldest go first. */
const local = new Map<string, { level: LogLevel | undefined; until: number }>();

function remember(key: string, level: LogLevel | undefined, now: number): void {
  local.delete(key);
  if (local.size >= MAX_LOCAL) local.delete(local.keys().next().value!);
  local.set(key, { level, until: now + LOCAL_MS });
}

/**
 * The log levels of `caller`'s sessions, in `store`.
 * @example await logLevelsOf(store, "k_1").set("3fa1…", "info")
 */
export function logLevelsOf(store: Pick<Store, "get" | "set">, caller: string, now: () => number = Date.now): LogLevels {
  const keyOf = (session: string) => `${PREFIX}${caller}:${session}`;
  return {
    async set(session, level) {
      await store.set(keyOf(session), level, { px: LOG_LEVEL_TTL_MS });
      remember(keyOf(session), level, now());
    },
    async get(session) {
      const key = keyOf(session);
      const known = local.get(key);
      if (known && known.until > now()) return known.level;
      const level = LogLevelSchema.safeParse(await store.get(key));
      remember(key, level.success ? level.data : undefined, now());
      return level.success ? level.data : undefined;
    },
  };
}
