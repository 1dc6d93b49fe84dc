/** Paths of the fixture skills (test/fixtures/skills) and small helpers shared by the tests. */
import { join } from "node:path";
import { ROOT, skillDirs } from "../../scripts/mesh/bundle.js";

const FIXTURES_ROOT = join(ROOT, "test/fixtures/skills");

/** The folder of one fixture skill. @example fixture("flaky-v1") */
export const fixture = (name: string) => join(FIXTURES_ROOT, name);

/** Every fixture skill (the global setup bundles them all once). */
export const ALL_FIXTURES = skillDirs(FIXTURES_ROOT);

/** A gateway and a skill with an in-memory OpenTelemetry exporter (test/tracing.test.ts). */
export const TRACING_FIXTURES = {
  gateway: join(ROOT, "test/fixtures/tracing/gateway"),
  skill: join(ROOT, "test/fixtures/tracing/skill"),
  /** The README's @microlabs/otel-cf-workers gateway and skill (OTLP export). */
  otelGateway: join(ROOT, "test/fixtures/tracing/otel-cf-workers"),
  otelSkill: join(ROOT, "test/fixtures/tracing/otel-skill"),
};

/** The methods of the JSON-RPC spec's examples. Tests start only the fixtures they call. */
export const SPEC_FIXTURES = ["subtract", "sum", "get_data", "update", "notify_hello", "notify_sum"].map(fixture);

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
