/**
 * Who is an admin: a request with `Authorization: Bearer <SKILLMESH_ADMIN_TOKEN>`, compared in
 * constant time. With no token configured nobody is. One check for the admin API and for the
 * details of `/healthz`.
 */
import { timingSafeEqual } from "hono/utils/buffer";

/**
 * True when the `Authorization` header carries the gateway's admin token.
 * @example if (await hasAdminToken(c.req.header("authorization"), c.env.SKILLMESH_ADMIN_TOKEN)) …
 */
export async function hasAdminToken(authorization: string | null | undefined, token: string | undefined): Promise<boolean> {
  const presented = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  return !!token && !!presented && (await timingSafeEqual(presented, token));
}
