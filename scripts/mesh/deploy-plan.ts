/**
 * How `npm run deploy` registers a deployed skill with the gateway: by service binding when the
 * gateway's wrangler.toml binds it, else by script name when the gateway has a dispatch
 * namespace, else by its workers.dev URL. A skill that trusts the
 * caller-context header (`SKILLMESH_TRUST_CONTEXT = "true"`) must be private: only a service
 * binding may reach it, so it is never registered by URL. Also which secrets the deploy
 * provisions.
 */
import { createHash, createHmac } from "node:crypto";
import { SettingsSchema } from "../../src/gateway/config/index.js";
import { canonicalJson } from "../../src/lib/json/index.js";
import { manifestChanges } from "../../src/registry/deployments/contract.js";
import type { SkillEndpoint } from "../../src/registry/deployments/model.js";
import type { SkillManifest } from "../../src/skill/manifest.js";

export interface DeployedSkill {
  /** The Worker's name (wrangler.toml `name`). */
  name: string;
  /** Whether the skill believes the `X-Skillmesh-Context` header it is sent. */
  trustsContext: boolean;
}

/**
 * The endpoint to register a deployed skill with: its service binding when the gateway binds it,
 * else its script name when the gateway has a dispatch namespace (`namespace`: the skill was
 * uploaded into it), else its workers.dev URL. A skill that trusts the caller context is reached
 * only privately: by binding or in the namespace, never by URL.
 * @example registrationEndpointOf({ name: "skill-a", trustsContext: true }, new Map([["skill-a", "SKILL_A"]]), url) // { binding: "SKILL_A" }
 * @example registrationEndpointOf({ name: "skill-b", trustsContext: true }, new Map(), undefined, "skillmesh-skills") // { dispatch: "skill-b" }
 */
export function registrationEndpointOf(
  skill: DeployedSkill,
  bindingByService: ReadonlyMap<string, string>,
  url: string | undefined,
  namespace?: string,
): SkillEndpoint {
  const binding = bindingByService.get(skill.name);
  if (binding) return { binding };
  if (namespace) return { dispatch: skill.name };
  if (skill.trustsContext) {
    throw new Error(
      `${skill.name} trusts the caller context (SKILLMESH_TRUST_CONTEXT), so it is registered only by service binding or in a dispatch namespace: add a [[services]] entry for it to the gateway's wrangler.toml (and keep workers_dev = false), or give the gateway a [[dispatch_namespaces]]`,
    );
  }
  if (!url) throw new Error(`${skill.name} deployed, but wrangler printed no workers.dev URL and the gateway has no service binding to it`);
  return { url };
}

/**
 * The build of a gateway upload: a hash of its bundle and of its configuration as wrangler reads
 * it for the environment, and a MAC of the secrets it sends keyed by its admin token (so that the
 * var says whether they changed, and nothing about them to whoever reads it without that token).
 * The deploy sends it as the var `SKILLMESH_BUILD` and, with a dispatch namespace, skips the
 * gateway's upload when the live version has the same: a new skill there needs no gateway deploy.
 * @example gatewayBuildOf(readFileSync(bundle), readWranglerConfig(path, "staging"), { SKILLMESH_ADMIN_TOKEN: token }, token) // "3f9c…-a1b2…"
 */
export function gatewayBuildOf(bundle: Buffer | string, config: unknown, secrets: Record<string, string>, adminToken: string): string {
  const code = createHash("sha256").update(bundle).update(canonicalJson(config)).digest("hex").slice(0, 16);
  const sealed = createHmac("sha256", adminToken).update(canonicalJson(secrets)).digest("hex").slice(0, 16);
  return `${code}-${sealed}`;
}

/**
 * The gateway's secrets `npm run deploy` provisions from its own environment (each only when set
 * there). Skills get no secret at all: a skill reached by URL gets the gateway's public hop key as
 * a plain var (`skillVarsOf`), a skill reached by binding nothing.
 */
export const GATEWAY_SECRETS = [
  "SKILLMESH_ADMIN_TOKEN",
  "SKILLMESH_HOP_KEY",
  "SKILLMESH_CALLBACK_SECRET",
  "SKILLMESH_UPSTREAM_KEY",
  "UPSTASH_REDIS_REST_TOKEN",
] as const;

/**
 * The vars the deploy adds to a skill Worker: for a skill the gateway reaches by URL (no service
 * binding), the public key of the gateway's `SKILLMESH_HOP_KEY`, so that it serves only calls the
 * gateway signed for it; for a bound skill none (only Workers bound to it can reach it).
 * @example skillVarsOf({ bound: false }, "vD6N3Ab-…") // { SKILLMESH_HOP_PUBLIC_KEY: "vD6N3Ab-…" }
 */
export function skillVarsOf(skill: { bound: boolean }, hopPublicKey: string | undefined): Record<string, string> {
  return !skill.bound && hopPublicKey ? { SKILLMESH_HOP_PUBLIC_KEY: hopPublicKey } : {};
}

/**
 * Why the deploy may not send the admin token to this gateway URL, or undefined when it may: over
 * `https`, or `http` to a loopback address (a local gateway); anything else would send the token
 * in the clear.
 * @example gatewayUrlRefusal("http://gateway.example.com") // "SKILLMESH_URL is http://…: …"
 */
export function gatewayUrlRefusal(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `SKILLMESH_URL is not a URL: ${url}`;
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(parsed.hostname) || /^127\.\d+\.\d+\.\d+$/.test(parsed.hostname);
  if (parsed.protocol === "https:" || (parsed.protocol === "http:" && loopback)) return undefined;
  return `SKILLMESH_URL is ${parsed.protocol}//${parsed.host}: the admin token goes only to an https gateway (or http on loopback)`;
}

export interface SecretsPlan {
  /** Sent with the upload (wrangler's `--secrets-file`). */
  provided: Record<string, string>;
  /** Not set in the environment: the Worker keeps the value it has on Cloudflare, if any. */
  kept: string[];
}

/**
 * Which of `names` the deploy sends, from `env`, checked by the gateway's own settings rules
 * (src/gateway/config: a hop key that is not an Ed25519 private key fails here, not on the first call).
 * @example secretsFor(GATEWAY_SECRETS, process.env) // { provided: { SKILLMESH_ADMIN_TOKEN: "…" }, kept: ["SKILLMESH_HOP_KEY", …] }
 */
export function secretsFor(names: readonly (keyof typeof SettingsSchema.shape)[], env: Record<string, string | undefined>): SecretsPlan {
  const provided: Record<string, string> = {};
  const kept: string[] = [];
  for (const name of names) {
    const value = env[name];
    if (!value) {
      kept.push(name);
      continue;
    }
    const checked = SettingsSchema.shape[name].safeParse(value);
    if (!checked.success) throw new Error(`${name}: ${checked.error.issues[0]?.message ?? "invalid"}`);
    provided[name] = value;
  }
  return { provided, kept };
}

/**
 * The skills whose definition differs from what the target gateway has registered under the same
 * `name@version` — a same-version change, which must never reach an upload (the Worker serving
 * that version would run the new code before the registry refused it). One message per skill.
 * @example sameVersionChanges([modbus], [{ id: "modbus.decode@1.0.0", manifest: older }]) // ["modbus.decode 1.0.0: the gateway has another definition registered under this version (description changed) …"]
 */
export function sameVersionChanges(current: SkillManifest[], registered: Array<{ id: string; manifest: SkillManifest }>): string[] {
  const byId = new Map(registered.map((d) => [d.id, d.manifest]));
  return current.flatMap((manifest) => {
    const there = byId.get(`${manifest.name}@${manifest.version}`);
    if (!there || canonicalJson(there) === canonicalJson(manifest)) return [];
    return [
      `${manifest.name} ${manifest.version}: the gateway has another definition registered under this version (${manifestChanges(there, manifest, 3).join("; ")}): give the changed skill a new version`,
    ];
  });
}
