/** Paths of the fixture skills (test/fixtures/skills) and small helpers shared by the tests. */
import { join } from "node:path";
import { ROOT } from "../../scripts/mesh/bundle.js";

export const fixture = (name: string) => join(ROOT, "test/fixtures/skills", name);

/** The JSON-RPC spec's example methods, plus a skill that fails on command. */
export const FIXTURE_SKILLS = ["subtract", "sum", "get_data", "update", "notify_hello", "notify_sum", "misbehave", "whoami", "echo-v1", "echo-v2", "counter", "flaky-v1", "flaky-v2", "flaky-degraded", "flaky-unsafe"].map(fixture);

export const ADMIN_TOKEN = "test-admin-token";

/** POSTs a raw body (string) or a JSON value to a URL; returns status, headers and parsed body. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? (JSON.parse(text) as any) : undefined };
}

/** Calls an admin route with the test token (or the one given). */
export async function admin(gatewayUrl: string, method: string, path: string, body?: unknown, token = ADMIN_TOKEN) {
  const response = await fetch(`${gatewayUrl}/admin${path}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as any) : undefined };
}
