/**
 * How `npm run deploy` registers a deployed skill with the gateway: by service binding when the
 * gateway's wrangler.toml binds it, else by its workers.dev URL. A skill that trusts the
 * caller-context header (`SKILLMESH_TRUST_CONTEXT = "true"`) must be private: only a service
 * binding may reach it, so it is never registered by URL.
 */

export interface DeployedSkill {
  /** The Worker's name (wrangler.toml `name`). */
  name: string;
  /** Whether the skill believes the `X-Skillmesh-Context` header it is sent. */
  trustsContext: boolean;
}

/**
 * The endpoint to register a deployed skill with.
 * @example registrationEndpointOf({ name: "skill-a", trustsContext: true }, new Map([["skill-a", "SKILL_A"]]), url) // { binding: "SKILL_A" }
 */
export function registrationEndpointOf(skill: DeployedSkill, bindingByService: ReadonlyMap<string, string>, url: string | undefined): { binding: string } | { url: string } {
  const binding = bindingByService.get(skill.name);
  if (binding) return { binding };
  if (skill.trustsContext) {
    throw new Error(
      `${skill.name} trusts the caller context (SKILLMESH_TRUST_CONTEXT), so it is registered only by service binding: add a [[services]] entry for it to the gateway's wrangler.toml (and keep workers_dev = false)`,
    );
  }
  if (!url) throw new Error(`${skill.name} deployed, but wrangler printed no workers.dev URL and the gateway has no service binding to it`);
  return { url };
}
