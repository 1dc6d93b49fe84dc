/**
 * The floor of a hop that reads what it passes, for `npm run bench`: a Worker that parses the
 * JSON-RPC call, forwards a new request for it to the trivial skill through a service binding,
 * parses the skill's answer and answers with the caller's id — what any gateway that routes by
 * method and inspects answers must do at least, with no checks, policies, tracing or audit.
 * The gateway is measured against it beside the bare hop (which reads nothing).
 */
import { type SkillBinding, inspectingHop } from "../inspecting-hop.js";

export default inspectingHop<{ SKILL: SkillBinding }>(async (env, body) => {
  const response = await env.SKILL.fetch("https://skill.internal/", { method: "POST", headers: { "content-type": "application/json" }, body });
  return response.text();
});
