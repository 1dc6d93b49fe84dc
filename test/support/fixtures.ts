/** Paths of the fixture skills (test/fixtures/skills) and small helpers shared by the tests. */
import { type Agent, request as httpRequest } from "node:http";
import { join } from "node:path";
import { ROOT } from "../../scripts/mesh/bundle.js";

const FIXTURES_ROOT = join(ROOT, "test/fixtures/skills");

/** The folder of one fixture skill. @example fixture("flaky-v1") */
export const fixture = (name: string) => join(FIXTURES_ROOT, name);

/**
 * The shipped skills a test makes assertions about by name (their tags, their answers): named
 * here, not read from skills/, so that a skill a user adds there cannot change what these tests
 * expect. Tests about "every skill" read skills/ (`skillDirs()`).
 */
export const SHIPPED_SKILLS = ["html-extract", "modbus-decode", "text-summarize-v1", "text-summarize-v2", "text-summarize-degraded"].map((dir) =>
  join(ROOT, "skills", dir),
);

/** A gateway and a skill with an in-memory OpenTelemetry exporter (test/tracing.test.ts). */
export const TRACING_FIXTURES = {
  gateway: join(ROOT, "test/fixtures/tracing/gateway"),
  skill: join(ROOT, "test/fixtures/tracing/skill"),
  /** A two-step pipeline calling the traced skill through the traced gateway. */
  pipeline: join(ROOT, "test/fixtures/tracing/pipeline"),
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

/**
 * Calls `probe` until `accept` holds or `timeoutMs` passes; returns the last value (the caller's
 * assertion then says what was wrong). For conditions written after a response (breaker
 * bookkeeping, registry polls), instead of a fixed sleep.
 */
export async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 5_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * A request over node:http: headers `fetch` will not send as given (`Host`), or an `agent` of
 * your own (keep-alive: `reused` says whether the request went on a connection used before).
 * @example await rawRequest(`${gatewayUrl}/healthz`, { headers: { host: "evil.example" } })
 */
export function rawRequest(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; agent?: Agent } = {}) {
  return new Promise<{ status: number; text: string; json: any; reused: boolean }>((resolve, reject) => {
    const request = httpRequest(url, { method: options.method ?? "GET", headers: options.headers, agent: options.agent }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text, json: text ? safeJson(text) : undefined, reused: request.reusedSocket }));
    });
    request.on("error", reject);
    request.end(options.body);
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Waits until the gateway isolate has its whole registry view (a first call is answered before
 * it has: it reads its own skill meanwhile). Tests that then break the store rely on that view.
 * @example await registryLoaded(mesh.gatewayUrl, 3)
 */
export async function registryLoaded(gatewayUrl: string, deployments: number): Promise<void> {
  const health = () =>
    fetch(`${gatewayUrl}/healthz`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then(
      (r) => r.json() as Promise<{ registry?: { deployments: number } | null }>,
    );
  await eventually(health, (h) => h.registry?.deployments === deployments);
}
