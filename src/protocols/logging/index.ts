/**
 * Log messages of a call (MCP `notifications/message`), as an upstream sends them on its call's
 * event stream and as the gateway relays them to the caller on its own: only at or above the level
 * the caller asked for (`logging/setLevel` in a 2025 session, `_meta` logLevel on a 2026-07-28
 * request; none without one), each named after the tool it came from so it never reads as the
 * gateway's own, its data bounded, and at most `MAX_LOG_MESSAGES` per call.
 */
import { z } from "zod";

/** The syslog levels MCP uses, least severe first (RFC 5424). */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export const LogLevelSchema = z.enum(LOG_LEVELS);
export type LogLevel = z.infer<typeof LogLevelSchema>;

/** The JSON-RPC method of a log message. */
export const LOG_METHOD = "notifications/message";
/** The header with which the gateway asks a skill for its log messages of this level or louder (on the call's event stream). */
export const LOG_LEVEL_HEADER = "x-skillmesh-log-level";

/** A log message's params, as the protocol defines them. */
export const LogMessageSchema = z.object({ level: LogLevelSchema, logger: z.string().max(256).optional(), data: z.unknown() });
export type LogMessage = z.infer<typeof LogMessageSchema>;

/** The most log messages one call relays, and the longest data (as JSON) one message keeps. */
export const MAX_LOG_MESSAGES = 100;
export const MAX_LOG_DATA_CHARS = 4_096;

/**
 * Whether a message of `level` is wanted by a caller that asked for `minimum` and above.
 * @example atLeast("warning", "info") // true
 */
export function atLeast(level: LogLevel, minimum: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(minimum);
}

/**
 * A relay of a call's log messages onto an event stream as `notifications/message`: malformed
 * messages and those below `minimum` dropped, the logger prefixed with `source` (the tool),
 * data longer than `MAX_LOG_DATA_CHARS` as JSON cut to a string saying so, at most
 * `MAX_LOG_MESSAGES` (then one message saying the rest were dropped), each a notice a lagging
 * client may miss (`notify`).
 * @example const onLog = logRelay(sse, { minimum: "info", source: "crm.sync" }); onLog({ level: "warning", data: "slow" })
 */
export function logRelay(
  stream: { notify(message: unknown): boolean },
  { minimum, source }: { minimum: LogLevel; source: string },
): (message: unknown) => void {
  let relayed = 0;
  const send = (params: LogMessage) => void stream.notify({ jsonrpc: "2.0", method: LOG_METHOD, params });
  return (message) => {
    const checked = LogMessageSchema.safeParse(message);
    if (!checked.success || !atLeast(checked.data.level, minimum) || relayed > MAX_LOG_MESSAGES) return;
    relayed++;
    if (relayed > MAX_LOG_MESSAGES) {
      send({ level: "warning", logger: source, data: `${source} logged more than ${MAX_LOG_MESSAGES} messages in one call: the rest are dropped` });
      return;
    }
    const { level, logger, data } = boundedLog(checked.data);
    send({ level, logger: logger ? `${source}/${logger}` : source, data });
  };
}

/**
 * A log message with its data within `MAX_LOG_DATA_CHARS` as JSON (longer data becomes that much
 * of its JSON, saying it was cut); anything that is not a log message as it is.
 * @example boundedLog({ level: "info", data: "x".repeat(10_000) }).data // "\"xxx…\"… (cut at 4096 characters)"
 */
export function boundedLog<T>(message: T): T {
  const data = (message as { data?: unknown } | null)?.data;
  if (!message || typeof message !== "object" || data === undefined) return message;
  const json = JSON.stringify(data) ?? "null";
  return json.length > MAX_LOG_DATA_CHARS ? { ...message, data: `${json.slice(0, MAX_LOG_DATA_CHARS)}… (cut at ${MAX_LOG_DATA_CHARS} characters)` } : message;
}
