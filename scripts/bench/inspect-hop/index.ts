/**
 * The floor of a hop that reads what it passes, for `npm run bench`: a Worker that parses the
 * JSON-RPC call, forwards a new request for it to the trivial skill through a service binding,
 * parses the skill's answer and answers with the caller's id — what any gateway that routes by
 * method and inspects answers must do at least, with no checks, policies, tracing or audit.
 * The gateway is measured against it beside the bare hop (which reads nothing).
 */
interface Env {
  SKILL: Fetcher;
}

interface Call {
  method: string;
  params?: unknown;
  id?: string | number | null;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method !== "POST") return env.SKILL.fetch(request); // the mesh reads the skill's manifest through it
    const call = JSON.parse(await request.text()) as Call;
    const forwarded = JSON.stringify({ jsonrpc: "2.0", method: call.method, params: call.params, id: 1 });
    const response = await env.SKILL.fetch("https://skill.internal/", { method: "POST", headers: { "content-type": "application/json" }, body: forwarded });
    const answer = JSON.parse(await response.text()) as { result?: unknown; error?: unknown };
    return Response.json({ jsonrpc: "2.0", ...("error" in answer ? { error: answer.error } : { result: answer.result }), id: call.id ?? null });
  },
};
