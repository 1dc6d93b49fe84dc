/**
 * Reading a skill's manifest (`GET /manifest`) when a deployment registers without one: by
 * service binding, dispatch namespace or URL, within 5 s, at most `MAX_MANIFEST_BYTES` read, redirects not followed.
 * A URL that does not serve a valid manifest gets one and the same error whatever went wrong
 * (refused, timed out, 404, a redirect, too large, not a manifest), so registration cannot be
 * used to tell open ports from closed ones; the reason is logged for the operator.
 */
import { boundedText } from "../../lib/body/index.js";
import { NAMESPACE_BINDING, namespaceOf } from "../dispatch/index.js";
import { BINDING_URL } from "../../protocols/hop/index.js";
import { errorText } from "../../protocols/jsonrpc/index.js";
import { MAX_MANIFEST_BYTES, RegisteredManifestSchema, type SkillManifest } from "../../skill/manifest.js";
import type { SkillEndpoint } from "../../registry/deployments/model.js";
import type { BindingEnv } from "./index.js";

/** A registration whose manifest could not be read; `message` is safe to show the admin. */
export class ManifestUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManifestUnavailable";
  }
}

const MANIFEST_TIMEOUT_MS = 5_000;

/**
 * The endpoint's manifest, or a thrown `ManifestUnavailable`.
 * @example const manifest = await fetchManifest({ url: "https://skill.example.workers.dev" }, env)
 */
export async function fetchManifest(endpoint: SkillEndpoint, env: BindingEnv): Promise<SkillManifest> {
  const init: RequestInit = { signal: AbortSignal.timeout(MANIFEST_TIMEOUT_MS), redirect: "manual" };
  if ("dispatch" in endpoint) {
    const namespace = namespaceOf(env);
    if (!namespace) throw new ManifestUnavailable(`the gateway has no dispatch namespace (binding ${NAMESPACE_BINDING})`);
    const where = `script ${endpoint.dispatch} of the dispatch namespace`;
    // Read before the manifest is known: no egress declared, so none allowed.
    const egress = { deployment: `(registering ${endpoint.dispatch})`, hosts: [] };
    return readManifest(async () => (await namespace.worker(endpoint.dispatch, { egress })).fetch(new URL("manifest", BINDING_URL), init), where);
  }
  if ("binding" in endpoint) {
    const binding = Object.hasOwn(env, endpoint.binding) ? (env[endpoint.binding] as Fetcher | undefined) : undefined;
    if (typeof binding?.fetch !== "function") throw new ManifestUnavailable(`the gateway has no service binding ${endpoint.binding}`);
    return readManifest(() => binding.fetch(new URL("manifest", BINDING_URL), init), `binding ${endpoint.binding}`);
  }
  const url = new URL("manifest", endpoint.url.endsWith("/") ? endpoint.url : `${endpoint.url}/`);
  return readManifest(() => fetch(url, init), url.toString());
}

async function readManifest(request: () => Promise<Response>, where: string): Promise<SkillManifest> {
  try {
    const response = await request();
    if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
    const parsed = RegisteredManifestSchema.safeParse(JSON.parse(await boundedText(response, MAX_MANIFEST_BYTES)));
    if (!parsed.success) throw new Error(`not a valid manifest: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
    return parsed.data;
  } catch (error) {
    console.warn(`[admin] no manifest from ${where}:`, errorText(error));
    throw new ManifestUnavailable(
      `could not read a valid skill manifest (GET /manifest, 200, JSON, at most ${MAX_MANIFEST_BYTES} bytes, no redirect) from ${where}; to see what is wrong with one, send it in the registration's "manifest"`,
    );
  }
}
