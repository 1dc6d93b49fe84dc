/**
 * What every admin route answers with: its Hono environment, the error body, a parsed request body,
 * and the one refusal type — every refusal a lower layer throws (an upstream's, a routing edit's, a
 * package's, a key's) is mapped to its status once, in `refusalOf`, which the admin app's `onError`
 * answers with.
 */
import type { Context, Env, Input } from "hono";
import type { z } from "zod";
import { ManifestUnavailable } from "../../src/federation/forward/manifest.js";
import { UpstreamError } from "../../src/federation/upstream/kind.js";
import { NoUpstreamKey } from "../../src/federation/upstream/secrets.js";
import type { GatewayEnv } from "../../src/gateway/chain/runtime.js";
import { KeyConflict, KeyNotFound } from "../../src/identity/keys/index.js";
import { safeJson } from "../../src/lib/json/index.js";
import { ErrorCode, describeIssues } from "../../src/protocols/jsonrpc/index.js";
import { bodyText } from "../../src/protocols/jsonrpc/http.js";
import { PackageRefused } from "../../src/registry/packages/registry.js";
import { RoutingEditError } from "../../src/registry/routing/edits.js";

/** The admin routes' Hono environment: `by` is who is asking (the credential's name), for the audit log and rollout events. */
export type AdminEnv = { Bindings: GatewayEnv; Variables: { by: string } };

/** The statuses the admin API answers with. */
export type AdminStatus = 400 | 401 | 403 | 404 | 409 | 429 | 500 | 502 | 503;

/** The admin API's error body: `{ error: { code, message, issues? } }`. */
export function adminError<E extends Env, P extends string, I extends Input>(c: Context<E, P, I>, status: AdminStatus, message: string, issues?: unknown) {
  const code =
    status === 401 || status === 403 ? ErrorCode.Unauthorized
    : status === 429 ? ErrorCode.RateLimited
    : status === 404 ? ErrorCode.MethodNotFound
    : status === 500 ? ErrorCode.InternalError
    : status === 503 ? ErrorCode.SkillUnavailable
    : ErrorCode.InvalidRequest;
  return c.json({ error: { code, message, ...(issues ? { issues } : {}) } }, status);
}

/** A refusal a route throws itself; the admin app's `onError` answers it. */
export class AdminRefusal extends Error {
  constructor(
    readonly status: AdminStatus,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "AdminRefusal";
  }
}

/**
 * What the admin API answers for a refusal of any layer, or undefined for an error that is none (a
 * fault: 500, or 503 for the store).
 * @example const refusal = refusalOf(error); if (refusal) return adminError(c, refusal.status, refusal.message, refusal.details)
 */
export function refusalOf(error: unknown): AdminRefusal | undefined {
  if (error instanceof AdminRefusal) return error;
  if (error instanceof UpstreamError) return new AdminRefusal(error.status, error.message, error.details);
  if (error instanceof NoUpstreamKey) return new AdminRefusal(400, `Invalid upstream: ${error.message}`);
  if (error instanceof RoutingEditError) return new AdminRefusal(error.status, error.message);
  if (error instanceof PackageRefused) return new AdminRefusal(error.status, error.message, error.problems.length ? error.problems : undefined);
  if (error instanceof KeyNotFound) return new AdminRefusal(404, error.message);
  if (error instanceof KeyConflict) return new AdminRefusal(409, error.message);
  if (error instanceof ManifestUnavailable) return new AdminRefusal(502, `Could not register: ${error.message}`);
  return undefined;
}

/**
 * The request body parsed with `schema`, or a 400 refusal: `{}` when the body is empty, and a
 * refusal when it is not JSON — never read as empty because it did not parse (a cut-off
 * `{"groups":` to `/rollback` rolled back every canary) — or does not match.
 * @example const key = await bodyOf(c, KeyCreateRequestSchema, "Invalid key")
 */
export async function bodyOf<T extends z.ZodType>(c: Context, schema: T, refusal: string): Promise<z.output<T>> {
  const text = await bodyText(c);
  const json = text.trim() === "" ? {} : safeJson(text);
  if (json === undefined) throw new AdminRefusal(400, `${refusal}: the body is not JSON`);
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new AdminRefusal(400, refusal, describeIssues(parsed.error));
  return parsed.data;
}
