/**
 * The floor of any hop to an upstream server over the network: POSTs the request's body to the
 * URL in `?to=` with `fetch` (as the gateway reaches a federated upstream, where `bare-hop/`
 * reaches a skill by service binding) and answers the upstream's body. Nothing is parsed or
 * checked. `GET /manifest` answers a name, so the bench mesh can start it like any Worker. Not deployed.
 */
export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === "GET" && url.pathname === "/manifest") return Response.json({ name: "bench.fetch-hop" });
    const to = url.searchParams.get("to");
    if (!to) return new Response("?to= names the upstream", { status: 400 });
    const upstream = await fetch(to, { method: "POST", headers: request.headers, body: await request.text() });
    return new Response(await upstream.text(), {
      status: upstream.status,
      headers: { "content-type": upstream.headers.get("content-type") ?? "application/json" },
    });
  },
};
