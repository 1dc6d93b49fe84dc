/**
 * The floor of any gateway hop, for `npm run bench`: a Worker that passes each request to the
 * trivial skill through a service binding, unread and unchanged — no parsing, no routing, no
 * policies. The gateway is measured against it.
 */
interface Env {
  SKILL: Fetcher;
}

export default {
  fetch: (request: Request, env: Env) => env.SKILL.fetch(request),
};
