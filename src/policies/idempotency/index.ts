/**
 * Idempotent replay (docs/architecture.md, "Policies"): the first request with an `Idempotency-Key`
 * claims it atomically (SET NX), runs, and stores its answer for the skill's TTL; a retry with
 * the same key and params gets the stored answer; a duplicate that arrives while the first is
 * still running waits for it, bounded, then gets -32002; the same key with other params gets
 * -32003. Transient failures are not stored: the claim is released so the key can be retried.
 */
import { z } from "zod";
import { canonicalJson, safeJson } from "../../lib/json/index.js";
import { failureClassOf } from "../failures/index.js";
import { sha256Hex as sha256 } from "../../lib/hash/index.js";
import { sleep } from "../../lib/signal/index.js";
import { ErrorCode, RpcError, errorText } from "../../protocols/jsonrpc/index.js";
import { type Outcome, OutcomeSchema } from "../outcome/index.js";
import { type Store, type StoreScript, StoreUnavailable } from "../../store/index.js";

export interface IdempotencyOptions {
  /** How long a finished answer is kept. */
  ttlMs: number;
  /** How long a claim lives if its owner never finishes (a crashed isolate). */
  pendingTtlMs: number;
  /** How long a duplicate waits for the first request's answer before -32002. */
  waitMs: number;
  /** How often a waiting duplicate looks again. */
  pollMs?: number;
}

/** Default TTL of stored answers: 1 h (a skill sets its own with `idempotencyTtlSeconds`). */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 3_600_000;

/**
 * Whether an outcome is kept for replays: results and deterministic errors are; failures that
 * say nothing about the request (src/policies/failures) are not, so the same key can be retried.
 */
export function isStorable(outcome: Outcome): boolean {
  return outcome.ok || failureClassOf(outcome.error.code).replay;
}

const StoredRecordSchema = z.object({ state: z.enum(["pending", "done"]), fingerprint: z.string(), outcome: OutcomeSchema.optional() });
type StoredRecord = z.infer<typeof StoredRecordSchema>;

/** Stored values are `<token>\n<json>`: only the claim's owner (who knows the token) may write. */
const encode = (token: string, record: StoredRecord) => `${token}\n${JSON.stringify(record)}`;

/** A stored record, parsed; one that does not parse is the store failing (-32001), never replayed. */
function decode(value: string): StoredRecord {
  const parsed = StoredRecordSchema.safeParse(safeJson(value.slice(value.indexOf("\n") + 1)));
  if (!parsed.success) throw new StoreUnavailable("idempotency record", "a stored record that does not parse");
  return parsed.data;
}

/** KEYS: key. ARGV: token, value, px. Sets the value only while the key holds the owner's claim. */
export const completeClaim: StoreScript<boolean> = {
  name: "idempotency.complete",
  lua: `
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, #ARGV[1] + 1) ~= ARGV[1] .. '\\n' then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`,
  memory: (data, [key], [token, value, px]) => {
    const current = data.get(key!);
    if (current === null || !current.startsWith(`${token}\n`)) return false;
    return data.set(key!, value!, { px: Number(px) });
  },
  fromRedis: (reply) => Number(reply) === 1,
};

/** KEYS: key. ARGV: token. Deletes the key only while it holds the owner's claim. */
export const releaseClaim: StoreScript<boolean> = {
  name: "idempotency.release",
  lua: `
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, #ARGV[1] + 1) ~= ARGV[1] .. '\\n' then return 0 end
redis.call('DEL', KEYS[1])
return 1
`,
  memory: (data, [key], [token]) => {
    const current = data.get(key!);
    if (current === null || !current.startsWith(`${token}\n`)) return false;
    return data.del(key!) === 1;
  },
  fromRedis: (reply) => Number(reply) === 1,
};

/** The fingerprint of a call's params. @example await fingerprintOf({ b: 1, a: 2 }) === await fingerprintOf({ a: 2, b: 1 }) */
export async function fingerprintOf(params: unknown): Promise<string> {
  return (await sha256(canonicalJson(params))).slice(0, 32);
}

/**
 * The store key of an idempotency key, scoped to the caller and the skill, and for a batch
 * element to its position (a hash of an unambiguous encoding: a single request's `B1#0` and the
 * first element of a batch under `B1` are different keys).
 * @example await idempotencyKeyOf("text.summarize", "c_1a2b", "order-42")
 * @example await idempotencyKeyOf("text.summarize", "c_1a2b", "order-42", 3) // the batch's fourth request
 */
export async function idempotencyKeyOf(skill: string, caller: string, clientKey: string, batchIndex?: number): Promise<string> {
  return `sm:idem:${skill}:${await sha256(JSON.stringify([caller, clientKey, batchIndex ?? null]))}`;
}

/** A key a client may send: 1-255 visible ASCII characters. */
export function isValidClientKey(key: string): boolean {
  return /^[\x21-\x7e]{1,255}$/.test(key);
}

/**
 * Runs `run` at most once per key: claims the key, or replays / waits for / refuses according to
 * what is there. Returns the outcome and whether it was replayed.
 * @example const { outcome, replayed } = await runOnce(store, key, fingerprint, options, () => callSkill())
 */
export async function runOnce(
  store: Store,
  key: string,
  fingerprint: string,
  options: IdempotencyOptions,
  run: () => Promise<Outcome>,
): Promise<{ outcome: Outcome; replayed: boolean }> {
  const deadline = Date.now() + options.waitMs;
  const token = crypto.randomUUID();
  for (;;) {
    if (await store.set(key, encode(token, { state: "pending", fingerprint }), { nx: true, px: options.pendingTtlMs })) {
      return { outcome: await finish(store, key, token, fingerprint, options, run), replayed: false };
    }
    const value = await store.get(key);
    if (value !== null) {
      const record = decode(value);
      if (record.fingerprint !== fingerprint) {
        throw new RpcError(ErrorCode.IdempotencyMismatch, "This Idempotency-Key was already used with other params; use a new key for a new request");
      }
      if (record.state === "done" && record.outcome) return { outcome: record.outcome, replayed: true };
    }
    // In flight (or just released after a transient failure: the next claim attempt takes it).
    if (Date.now() >= deadline) {
      throw new RpcError(ErrorCode.IdempotencyInFlight, "A request with this Idempotency-Key is still being processed; retry after 1 s", {
        retryAfterMs: 1_000,
      });
    }
    await sleep(options.pollMs ?? 50);
  }
}

async function finish(
  store: Store,
  key: string,
  token: string,
  fingerprint: string,
  options: IdempotencyOptions,
  run: () => Promise<Outcome>,
): Promise<Outcome> {
  let outcome: Outcome;
  try {
    outcome = await run();
  } catch (error) {
    await store.run(releaseClaim, [key], [token]).catch(() => {});
    throw error;
  }
  // The call has run: its outcome goes to the caller even when the store cannot keep it (down,
  // past its deadline, or refusing a record that large). Failing the call instead would tell the
  // caller to retry a call that ran, and the retry would run it again once the claim expired.
  const storable = isStorable(outcome);
  const settle =
    storable ?
      store.run(completeClaim, [key], [token, encode(token, { state: "done", fingerprint, outcome }), options.ttlMs])
    : store.run(releaseClaim, [key], [token]);
  await settle.catch((error: unknown) => {
    const what = storable ? "its answer could not be stored" : "its claim could not be released";
    console.error(`[idempotency] ${key}: the call ran, but ${what} (${errorText(error)}); a retry after the claim expires runs it again`);
  });
  return outcome;
}
