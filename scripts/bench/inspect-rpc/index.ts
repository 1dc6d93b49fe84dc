/**
 * The floor of a hop that reads what it passes and calls the skill over the SDK's RPC hop
 * (src/hop/rpc.ts), for `npm run bench`: a Worker that parses the JSON-RPC call, sends it to the
 * trivial skill's `skillmeshCall` through a service binding, parses the answer and answers with
 * the caller's id — the inspecting hop of inspect-hop/ with the gateway's transport, and still no
 * checks, policies, tracing or audit. The gateway is measured against it beside the other floors.
 */
interface Env {
  SKILL: Fetcher & { skillmeshCall(call: { body: string; headers: Record<string, string>; timeoutMs: number }): Promise<string> };
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
    const body = JSON.stringify({ jsonrpc: "2.0", method: call.method, params: call.params, id: 1 });
    const answer = JSON.parse(await env.SKILL.skillmeshCall({ body, headers: {}, timeoutMs: 10_000 })) as { result?: unknown; error?: unknown };
    return Response.json({ jsonrpc: "2.0", ...("error" in answer ? { error: answer.error } : { result: answer.result }), id: call.id ?? null });
  },
};
