/** How the CLI talks: its output and environment (CliIO), its errors, and the admin API with the API's own schemas. */
import type { z } from "zod";

/** A failure the user can act on: printed as is, exit code 1. */
export class CliError extends Error {}

export interface CliIO {
  env: Record<string, string | undefined>;
  out: (line: string) => void;
  fetch: typeof fetch;
}

/** The gateway the CLI talks to: SKILLMESH_URL, or the local mesh's default. */
export const gatewayBaseOf = (env: CliIO["env"]) => (env.SKILLMESH_URL || "http://127.0.0.1:8787").replace(/\/$/, "");

/**
 * One admin API request with SKILLMESH_ADMIN_TOKEN; a refusal is a CliError in the gateway's words.
 * Read the answer with `answerOf` and the admin API's schema.
 * @example const page = answerOf(DeploymentsPageAnswerSchema, await api(io, "GET", "/deployments"))
 */
export async function api(io: CliIO, method: string, path: string, body?: unknown): Promise<unknown> {
  const base = gatewayBaseOf(io.env);
  const token = io.env.SKILLMESH_ADMIN_TOKEN;
  if (!token) throw new CliError("SKILLMESH_ADMIN_TOKEN is not set: export the gateway's admin token first");
  let response: Response;
  try {
    response = await io.fetch(`${base}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: "manual", // the admin token goes to SKILLMESH_URL, never where a redirect points
    });
  } catch (error) {
    throw new CliError(`cannot reach the gateway at ${base} (${(error as Error).cause ?? (error as Error).message}); is SKILLMESH_URL right?`);
  }
  const answer = (await response.json().catch(() => ({}))) as { error?: { message?: string; issues?: unknown } };
  if (response.status === 401) throw new CliError(`the gateway at ${base} refused the admin token (check SKILLMESH_ADMIN_TOKEN)`);
  if (!response.ok) {
    const issues = issuesText(answer.error?.issues);
    throw new CliError(`${answer.error?.message ?? `the gateway answered HTTP ${response.status}`}${issues}`);
  }
  return answer;
}

/** Reads an answer with the admin API's own schema (an answer of another shape is a wrong gateway). */
export function answerOf<T extends z.ZodType>(schema: T, answer: unknown): z.output<T> {
  const parsed = schema.safeParse(answer);
  if (!parsed.success) throw new CliError("the gateway's answer is not what this CLI expects: is SKILLMESH_URL a Skillmesh gateway of this version?");
  return parsed.data;
}

/** Lays rows out in aligned columns. */
export function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd(),
  );
}

/**
 * An error's `issues` as lines: a schema's (`path: message`), a list of problems, or what else the
 * gateway named (a registration's name collisions, say) as JSON.
 * @example issuesText([{ path: "url", message: "Invalid URL" }]) // "\n  url: Invalid URL"
 */
export function issuesText(issues: unknown): string {
  if (issues === undefined) return "";
  if (!Array.isArray(issues)) return `\n  ${JSON.stringify(issues).slice(0, 2_000)}`;
  return issues
    .map((issue: unknown) =>
      typeof issue === "string" ? `\n  ${issue}`
      : issue && typeof issue === "object" && "message" in issue ?
        `\n  ${String((issue as { path?: unknown }).path ?? "")}: ${String((issue as { message: unknown }).message)}`
      : `\n  ${JSON.stringify(issue)}`,
    )
    .join("");
}
