/**
 * The two inspecting hops of `npm run bench` (inspect-hop/ over HTTP, inspect-rpc/ over the SDK's
 * RPC hop), one Worker each, made here from one body so that they differ in the transport only:
 * parse the JSON-RPC call, send the skill a new request for it, parse the answer and answer with
 * the caller's id — with no checks, policies, tracing or audit.
 */

interface Call {
  method: string;
  params?: unknown;
  id?: string | number | null;
}

/** The skill's binding, as far as the hops care. */
export interface SkillBinding {
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
}

/**
 * A Worker that inspects each call and passes it on with `send` (the JSON-RPC request as text in,
 * the answer as text out); anything but a POST goes to the skill as it is (the mesh reads the
 * skill's manifest through the hop).
 * @example export default inspectingHop((env, body) => env.SKILL.skillmeshCall({ body, headers: {}, timeoutMs: 10_000 }))
 */
export function inspectingHop<Env extends { SKILL: SkillBinding }>(send: (env: Env, body: string) => Promise<string>): ExportedHandler<Env> {
  return {
    async fetch(request, env) {
      if (request.method !== "POST") return env.SKILL.fetch(request);
      const call = JSON.parse(await request.text()) as Call;
      const answer = JSON.parse(await send(env, JSON.stringify({ jsonrpc: "2.0", method: call.method, params: call.params, id: 1 }))) as {
        result?: unknown;
        error?: unknown;
      };
      return Response.json({ jsonrpc: "2.0", ...("error" in answer ? { error: answer.error } : { result: answer.result }), id: call.id ?? null });
    },
  };
}
