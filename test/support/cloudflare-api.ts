/**
 * A stand-in for the Cloudflare API endpoints `wrangler deploy` (4.x) calls, for testing
 * `npm run deploy` end to end without an account: wrangler is pointed at it with
 * `CLOUDFLARE_API_BASE_URL`. It keeps Workers in memory, records every upload (bindings, secrets,
 * modules) and every request, answers in the API's `{success, errors, messages, result}`
 * envelope, and can be told to refuse one Worker's upload. A request it does not know is
 * answered 404 and listed in `unknown`, so a test notices when wrangler starts calling something new.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { serve } from "@hono/node-server";
import { type Context, Hono } from "hono";

/** One binding of an uploaded Worker, as wrangler sends it in the upload's `metadata` part. */
export interface UploadedBinding {
  name: string;
  type: string;
  /** The value of a `plain_text` var or a `secret_text` secret. */
  text?: string;
  service?: string;
  class_name?: string;
}

/** One accepted upload: a new version of a Worker, or a script of a dispatch namespace. */
export interface Upload {
  worker: string;
  /** The dispatch namespace it was uploaded into (`wrangler deploy --dispatch-namespace`), if any. */
  namespace?: string;
  versionId: string;
  /** How it came: a first `PUT …/scripts/:name`, `POST …/versions` for a Worker that exists, or `PUT …/dispatch/namespaces/:ns/scripts/:name`. */
  via: "script" | "version" | "namespace";
  mainModule: string;
  /** Module file names and sizes in bytes. */
  modules: Record<string, number>;
  bindings: UploadedBinding[];
  /** Binding types kept from the previous version (`keep_bindings`, e.g. secrets not re-sent). */
  keepBindings: string[];
  compatibilityFlags: string[];
}

export interface CloudflareApiStandIn {
  /** For `CLOUDFLARE_API_BASE_URL`. */
  baseUrl: string;
  accountId: string;
  /** The account's workers.dev subdomain. */
  subdomain: string;
  uploads: Upload[];
  /** Every request, in order: `GET /accounts/…/workers/services/skill-a`. */
  requests: string[];
  /** Requests this stand-in had no answer for. */
  unknown: string[];
  /** Workflows by name: the script and class they run. */
  workflows: Map<string, { script_name: string; class_name: string }>;
  /** Cron Triggers by Worker name. */
  crons: Map<string, string[]>;
  /** R2 buckets of the account, by name (wrangler creates a bound one that does not exist). */
  r2Buckets: Set<string>;
  /** Dispatch namespaces of the account and the scripts each holds. */
  namespaces: Map<string, Set<string>>;
  /** Worker name → its live version's secrets (name → value), kept across uploads like Cloudflare does. */
  secretsOf(worker: string): Record<string, string>;
  /** Refuse the next uploads of this Worker (400, as the API refuses a bad script) until `refuse(undefined)`. */
  refuse(worker: string | undefined): void;
  /** Hold the next uploads of this Worker (a slow upload) until the returned function is called. */
  hold(worker: string): () => void;
  stop(): Promise<void>;
}

interface Worker {
  tag: string;
  versionId: string;
  bindings: UploadedBinding[];
  subdomain: { enabled: boolean; previews_enabled: boolean };
}

const ok = (c: Context, result: unknown) => c.json({ success: true, errors: [], messages: [], result });
const fail = (c: Context, status: 400 | 404, code: number, message: string) =>
  c.json({ success: false, errors: [{ code, message }], messages: [], result: null }, status);

/**
 * Starts the stand-in on a free loopback port.
 * @example const cf = await startCloudflareApi(); spawn("npm", ["run", "deploy"], { env: { CLOUDFLARE_API_BASE_URL: cf.baseUrl, … } })
 */
export async function startCloudflareApi(options: { accountId?: string } = {}): Promise<CloudflareApiStandIn> {
  const accountId = options.accountId ?? "0123456789abcdef0123456789abcdef";
  const subdomain = "skillmesh-test";
  const workers = new Map<string, Worker>();
  const uploads: Upload[] = [];
  const requests: string[] = [];
  const unknown: string[] = [];
  const workflows = new Map<string, { script_name: string; class_name: string }>();
  const crons = new Map<string, string[]>();
  const r2Buckets = new Set<string>();
  const namespaces = new Map<string, Set<string>>();
  let refused: string | undefined;
  let holding: { worker: string; released: Promise<void> } | undefined;

  const notFound = (c: Context) => fail(c, 404, 10007, "workers.api.error.script_not_found");

  /** Reads wrangler's multipart upload: a `metadata` JSON part and one part per module. */
  async function accept(c: Context, name: string, via: Upload["via"], namespace?: string): Promise<Upload | Response> {
    if (refused === name) return fail(c, 400, 10021, `Uploaded script ${name} was refused by the stand-in (as a script that fails validation is)`);
    if (holding?.worker === name) await holding.released;
    const form = await c.req.formData();
    const part = form.get("metadata") as string | Blob;
    const metadata = JSON.parse(typeof part === "string" ? part : await part.text()) as {
      main_module: string;
      bindings?: UploadedBinding[];
      keep_bindings?: string[];
      compatibility_flags?: string[];
    };
    const modules: Record<string, number> = {};
    for (const [field, value] of form.entries() as Iterable<[string, string | Blob]>)
      if (field !== "metadata" && typeof value !== "string") modules[field] = value.size;
    const previous = workers.get(name);
    const keepBindings = metadata.keep_bindings ?? [];
    const sent = metadata.bindings ?? [];
    // Secrets not sent again carry over from the live version (as `wrangler secret put` values
    // survive a `wrangler deploy`), and so do bindings of a type listed in keep_bindings.
    const kept = (previous?.bindings ?? []).filter((b) => (b.type === "secret_text" || keepBindings.includes(b.type)) && !sent.some((s) => s.name === b.name));
    const upload: Upload = {
      worker: name,
      ...(namespace ? { namespace } : {}),
      versionId: randomUUID(),
      via,
      mainModule: metadata.main_module,
      modules,
      bindings: sent,
      keepBindings,
      compatibilityFlags: metadata.compatibility_flags ?? [],
    };
    uploads.push(upload);
    if (namespace) {
      namespaces.get(namespace)!.add(name);
      return upload;
    }
    workers.set(name, {
      tag: previous?.tag ?? randomUUID().replaceAll("-", ""),
      versionId: upload.versionId,
      bindings: [...sent, ...kept],
      subdomain: previous?.subdomain ?? { enabled: false, previews_enabled: false },
    });
    return upload;
  }

  const app = new Hono().basePath("/client/v4/accounts/:account");
  app.use(async (c, next) => {
    const path = new URL(c.req.url).pathname.replace("/client/v4", "");
    requests.push(`${c.req.method} ${path}`);
    if (c.req.param("account") !== accountId) return fail(c, 404, 7003, `Could not route to ${path}: no such account`);
    await next();
  });
  app.get("/workers/subdomain", (c) => ok(c, { subdomain }));
  app.get("/workers/services/:name", (c) => {
    const worker = workers.get(c.req.param("name"));
    if (!worker) return fail(c, 404, 10090, "workers.api.error.service_not_found");
    return ok(c, {
      id: c.req.param("name"),
      default_environment: { environment: "production", script: { id: c.req.param("name"), tag: worker.tag, tags: [], last_deployed_from: "wrangler" } },
    });
  });
  app.get("/workers/scripts/:name/deployments", (c) => {
    const worker = workers.get(c.req.param("name"));
    if (!worker) return notFound(c);
    return ok(c, {
      deployments: [
        {
          id: randomUUID(),
          source: "wrangler",
          strategy: "percentage",
          versions: [{ version_id: worker.versionId, percentage: 100 }],
          created_on: new Date().toISOString(),
        },
      ],
    });
  });
  app.get("/workers/scripts/:name/settings", (c) => {
    const worker = workers.get(c.req.param("name"));
    if (!worker) return notFound(c);
    // A var's value is in the answer, a secret's never.
    const bindings = worker.bindings.map(({ text, ...binding }) => (binding.type === "plain_text" ? { ...binding, text } : binding));
    return ok(c, { bindings, compatibility_flags: [], logpush: false });
  });
  // A Worker's first upload.
  app.put("/workers/scripts/:name", async (c) => {
    const upload = await accept(c, c.req.param("name"), "script");
    if (upload instanceof Response) return upload;
    return ok(c, { id: upload.worker, etag: randomUUID(), deployment_id: upload.versionId, startup_time_ms: 1 });
  });
  // Later uploads: a new version, then a deployment of it at 100%.
  app.post("/workers/scripts/:name/versions", async (c) => {
    if (!workers.has(c.req.param("name"))) return notFound(c);
    const upload = await accept(c, c.req.param("name"), "version");
    if (upload instanceof Response) return upload;
    return ok(c, {
      id: upload.versionId,
      number: uploads.filter((u) => u.worker === upload.worker).length,
      resources: { script: { etag: randomUUID() } },
      startup_time_ms: 1,
    });
  });
  app.post("/workers/scripts/:name/deployments", async (c) => {
    if (!workers.has(c.req.param("name"))) return notFound(c);
    const body = (await c.req.json()) as { versions: Array<{ version_id: string; percentage: number }> };
    return ok(c, { id: randomUUID(), source: "wrangler", strategy: "percentage", versions: body.versions, created_on: new Date().toISOString() });
  });
  app.patch("/workers/scripts/:name/script-settings", (c) => (workers.has(c.req.param("name")) ? ok(c, {}) : notFound(c)));
  app.get("/workers/scripts/:name/subdomain", (c) => {
    const worker = workers.get(c.req.param("name"));
    return worker ? ok(c, worker.subdomain) : notFound(c);
  });
  app.post("/workers/scripts/:name/subdomain", async (c) => {
    const worker = workers.get(c.req.param("name"));
    if (!worker) return notFound(c);
    worker.subdomain = (await c.req.json()) as Worker["subdomain"];
    return ok(c, worker.subdomain);
  });
  app.put("/workers/scripts/:name/schedules", async (c) => {
    if (!workers.has(c.req.param("name"))) return notFound(c);
    const schedules = (await c.req.json()) as Array<{ cron: string }>;
    crons.set(
      c.req.param("name"),
      schedules.map((s) => s.cron),
    );
    return ok(c, { schedules });
  });
  app.put("/workflows/:name", async (c) => {
    const body = (await c.req.json()) as { script_name: string; class_name: string };
    workflows.set(c.req.param("name"), body);
    return ok(c, { id: randomUUID(), name: c.req.param("name"), ...body });
  });

  // Workers for Platforms: dispatch namespaces and the scripts uploaded into them.
  const namespaceOf = (name: string) => ({ namespace_id: name, namespace_name: name, script_count: namespaces.get(name)?.size ?? 0 });
  app.get("/workers/dispatch/namespaces", (c) => ok(c, [...namespaces.keys()].map(namespaceOf)));
  app.get("/workers/dispatch/namespaces/:ns", (c) =>
    namespaces.has(c.req.param("ns")) ? ok(c, namespaceOf(c.req.param("ns"))) : fail(c, 404, 100119, "dispatch namespace not found"),
  );
  app.post("/workers/dispatch/namespaces", async (c) => {
    const { name } = (await c.req.json()) as { name: string };
    if (!namespaces.has(name)) namespaces.set(name, new Set());
    return ok(c, namespaceOf(name));
  });
  app.put("/workers/dispatch/namespaces/:ns/scripts/:name", async (c) => {
    if (!namespaces.has(c.req.param("ns"))) return fail(c, 404, 100119, "dispatch namespace not found");
    const upload = await accept(c, c.req.param("name"), "namespace", c.req.param("ns"));
    if (upload instanceof Response) return upload;
    return ok(c, { id: upload.worker, etag: randomUUID(), startup_time_ms: 1 });
  });
  app.delete("/workers/dispatch/namespaces/:ns/scripts/:name", (c) =>
    namespaces.get(c.req.param("ns"))?.delete(c.req.param("name")) ? ok(c, null) : notFound(c),
  );

  app.get("/r2/buckets", (c) => ok(c, { buckets: [...r2Buckets].map((name) => ({ name, creation_date: new Date(0).toISOString() })) }));
  app.get("/r2/buckets/:name", (c) =>
    r2Buckets.has(c.req.param("name")) ?
      ok(c, { name: c.req.param("name"), creation_date: new Date(0).toISOString() })
    : c.json({ success: false, errors: [{ code: 10006, message: "The specified bucket does not exist." }], messages: [], result: null }, 404),
  );
  app.post("/r2/buckets", async (c) => {
    const { name } = (await c.req.json()) as { name: string };
    r2Buckets.add(name);
    return ok(c, { name, creation_date: new Date().toISOString() });
  });

  const root = new Hono();
  root.route("/", app);
  root.notFound((c) => {
    unknown.push(`${c.req.method} ${new URL(c.req.url).pathname}`);
    return fail(c, 404, 7003, `The stand-in does not serve ${c.req.method} ${new URL(c.req.url).pathname}`);
  });

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: root.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/client/v4`,
    accountId,
    subdomain,
    uploads,
    requests,
    unknown,
    workflows,
    crons,
    r2Buckets,
    namespaces,
    secretsOf: (name) => Object.fromEntries((workers.get(name)?.bindings ?? []).filter((b) => b.type === "secret_text").map((b) => [b.name, b.text ?? ""])),
    refuse: (name) => {
      refused = name;
    },
    hold: (name) => {
      let release!: () => void;
      holding = { worker: name, released: new Promise<void>((resolve) => (release = resolve)) };
      return () => {
        holding = undefined;
        release();
      };
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Where a deploy under test goes: the gateway it registers with, its admin token, and the rest of its environment. */
export interface DeployTarget {
  gatewayUrl: string;
  adminToken: string;
  env?: Record<string, string>;
}

/**
 * The environment of `npm run deploy` under test: wrangler aimed at the stand-in, the registrations
 * at `gatewayUrl`, then `env`.
 * @example spawn("npm", ["run", "deploy"], { env: deployEnvOf(cf, { gatewayUrl, adminToken }) })
 */
export function deployEnvOf(cf: CloudflareApiStandIn, { gatewayUrl, adminToken, env }: DeployTarget): NodeJS.ProcessEnv {
  return {
    ...process.env,
    CLOUDFLARE_API_BASE_URL: cf.baseUrl,
    CLOUDFLARE_API_TOKEN: "stand-in-token",
    CLOUDFLARE_ACCOUNT_ID: cf.accountId,
    WRANGLER_SEND_METRICS: "false",
    SKILLMESH_URL: gatewayUrl,
    SKILLMESH_ADMIN_TOKEN: adminToken,
    ...env,
  };
}

/**
 * Runs `npm run deploy -- <args>` in `cwd` with the environment of `deployEnvOf`; resolves with its
 * output and exit code, whether it succeeded or not.
 * @example const { code, stdout } = await runDeploy(cf, { cwd: ROOT, gatewayUrl, adminToken, args: ["--env", "staging"] })
 */
export async function runDeploy(
  cf: CloudflareApiStandIn,
  options: DeployTarget & { cwd: string; args?: string[] },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)("npm", ["run", "deploy", "--", ...(options.args ?? [])], { cwd: options.cwd, env: deployEnvOf(cf, options) }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}
