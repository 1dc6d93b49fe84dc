/**
 * The level a 2025 session asked for its log messages (`logging/setLevel`): the one piece of
 * session state the protocol puts on the server, kept in the store under the caller and the
 * session's id for a day (a later request may reach another isolate). 2026-07-28 requests carry
 * their level in `_meta` and need none of this.
 */
import { type LogLevel, LogLevelSchema } from "../logging/index.js";
import type { Store } from "../store/index.js";

const PREFIX = "sm:loglevel:";
const LOG_LEVEL_TTL_MS = 24 * 60 * 60_000;

/** One caller's sessions' log levels. */
export interface LogLevels {
  set(session: string, level: LogLevel): Promise<void>;
  /** The session's level, if it set one. */
  get(session: string): Promise<LogLevel | undefined>;
}

/**
 * The log levels of `caller`'s sessions, in `store`.
 * @example await logLevelsOf(store, "k_1").set("3fa1…", "info")
 */
export function logLevelsOf(store: Pick<Store, "get" | "set">, caller: string): LogLevels {
  const keyOf = (session: string) => `${PREFIX}${caller}:${session}`;
  return {
    async set(session, level) {
      await store.set(keyOf(session), level, { px: LOG_LEVEL_TTL_MS });
    },
    async get(session) {
      const level = LogLevelSchema.safeParse(await store.get(keyOf(session)));
      return level.success ? level.data : undefined;
    },
  };
}
