/**
 * Declared egress: a dispatched skill reaches only the hosts its manifest's `egress` names. Every
 * `fetch` the skill makes goes to its namespace's outbound Worker (on Cloudflare) or to the
 * gateway's `SkillEgress` entrypoint (the local namespace), which answer it here: sent on when the
 * host is declared, else refused with 403 and reported, to be audited as the skill's.
 */
import { z } from "zod";

/** The name the outbound Worker reads the egress parameters by (wrangler.toml `outbound = { parameters = [...] }`). */
export const OUTBOUND_PARAMETER = "skillmesh_egress";

/** What the gateway tells the outbound Worker of one dispatch: whose request it is and where it may go. */
export const EgressParamsSchema = z.object({
  /** `name@version` of the dispatched deployment. */
  deployment: z.string().max(200),
  /** The hosts it declared (src/skill/manifest.ts `egress`). */
  hosts: z.array(z.string().max(253)).max(64),
});
export type EgressParams = z.infer<typeof EgressParamsSchema>;

/** One request a skill was refused: what the audit log keeps (never the path or query: they may carry data). */
export const EgressRefusalSchema = z.object({
  deployment: z.string().max(200),
  method: z.string().max(16),
  /** The host it asked for, as the URL parser reads it. */
  host: z.string().max(253),
});
export type EgressRefusal = z.infer<typeof EgressRefusalSchema>;

/**
 * Whether `host` is among `declared`: equal, under a `*.` pattern (a subdomain, not the domain
 * itself), or `*`. Host names compare in lower case, without a trailing dot.
 * @example hostDeclared("en.wikipedia.org", ["*.wikipedia.org"]) // true
 */
export function hostDeclared(host: string, declared: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return declared.some((pattern) => pattern === "*" || pattern === name || (pattern.startsWith("*.") && name.endsWith(pattern.slice(1))));
}

/**
 * Answers one outbound request of a dispatched skill: `send` it when its host is declared in
 * `params`, else 403 with a JSON error the skill can read, and `onRefused` told. Parameters that
 * do not parse refuse everything (a dispatch without them is not the gateway's).
 * @example return answerEgress(request, env.skillmesh_egress, (refusal) => audit(refusal), (r) => fetch(r))
 */
export async function answerEgress(
  request: Request,
  params: unknown,
  onRefused: (refusal: EgressRefusal) => void,
  send: (request: Request) => Promise<Response>,
): Promise<Response> {
  const parsed = EgressParamsSchema.safeParse(params);
  const host = hostOf(request.url);
  if (parsed.success && host !== undefined && hostDeclared(host, parsed.data.hosts)) return send(request);
  const deployment = parsed.success ? parsed.data.deployment : "(unknown)";
  onRefused({ deployment, method: request.method, host: host ?? "(not a URL)" });
  await request.body?.cancel();
  const why =
    parsed.success ?
      `${host ?? "that URL"} is not among the hosts ${deployment} declares (its manifest's egress: ${parsed.data.hosts.join(", ") || "none"})`
    : "this request carries no egress parameters of the gateway's";
  return Response.json({ error: { code: "egress_refused", message: `Refused by the gateway: ${why}` } }, { status: 403 });
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return undefined;
  }
}
