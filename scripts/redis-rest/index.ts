/**
 * A local endpoint that speaks the Upstash Redis REST protocol in front of a real
 * `redis-server` — the subset of it that `@upstash/redis` uses:
 * `POST /` one command as a JSON array, `/pipeline` many (not atomic), `/multi-exec` many
 * (atomic), `Authorization: Bearer <token>`, and `Upstash-Encoding: base64` for base64 results.
 * It lets the `upstash` driver run unchanged against real Redis in tests, CI and `npm run dev -- --redis`.
 */
import { Hono } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { HTTPException } from "hono/http-exception";
import type { RedisClientType } from "redis";

type Command = string[];
type Reply = { result: unknown } | { error: string };

/**
 * Builds the Hono app of the endpoint for a connected `redis` client.
 * @example serve({ fetch: redisRestApp(client, "token").fetch, port: 8079 })
 */
export function redisRestApp(client: RedisClientType, token: string): Hono {
  const app = new Hono();
  app.use("*", bearerAuth({ token, invalidToken: { message: { error: "Unauthorized" } }, noAuthenticationHeader: { message: { error: "Unauthorized" } } }));

  app.post("/", async (c) => {
    const command = await readCommands(c.req.raw, false);
    if ("error" in command) return c.json(command, 400);
    const reply = await runOne(client, command.commands[0]!);
    return c.json(encodeReply(reply, wantsBase64(c.req.raw)), "error" in reply ? 400 : 200);
  });

  app.post("/pipeline", async (c) => {
    const body = await readCommands(c.req.raw, true);
    if ("error" in body) return c.json(body, 400);
    const replies = await Promise.all(body.commands.map((command) => runOne(client, command)));
    return c.json(replies.map((reply) => encodeReply(reply, wantsBase64(c.req.raw))));
  });

  app.post("/multi-exec", async (c) => {
    const body = await readCommands(c.req.raw, true);
    if ("error" in body) return c.json(body, 400);
    try {
      const multi = client.multi();
      for (const command of body.commands) multi.addCommand(command);
      const results = (await multi.exec()) as unknown[];
      return c.json(results.map((result) => encodeReply(result instanceof Error ? { error: result.message } : { result }, wantsBase64(c.req.raw))));
    } catch (err) {
      return c.json({ error: errorMessage(err) }, 400);
    }
  });

  app.notFound((c) => c.json({ error: "Not found" }, 404));
  app.onError((err, c) => (err instanceof HTTPException ? err.getResponse() : c.json({ error: errorMessage(err) }, 500)));
  return app;
}

async function readCommands(request: Request, many: boolean): Promise<{ commands: Command[] } | { error: string }> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return { error: "ERR body is not JSON" };
  }
  const list = many ? body : [body];
  if (!Array.isArray(list) || !list.every((command) => Array.isArray(command) && command.length > 0)) {
    return { error: many ? "ERR body must be an array of commands" : "ERR body must be a command array" };
  }
  // Arguments may arrive as JSON numbers (the client sends `EX 100` that way): Redis wants strings.
  return { commands: list.map((command: unknown[]) => command.map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg)))) };
}

async function runOne(client: RedisClientType, command: Command): Promise<Reply> {
  try {
    return { result: await client.sendCommand(command) };
  } catch (err) {
    return { error: errorMessage(err) };
  }
}

function wantsBase64(request: Request): boolean {
  return request.headers.get("upstash-encoding")?.toLowerCase() === "base64";
}

function encodeReply(reply: Reply, base64: boolean): Reply {
  if ("error" in reply || !base64) return reply;
  return { result: encodeValue(reply.result) };
}

/** Every string base64, except the literal status "OK" (as Upstash does); numbers and null as is. */
function encodeValue(value: unknown): unknown {
  if (typeof value === "string") return value === "OK" ? value : Buffer.from(value, "utf8").toString("base64");
  if (Buffer.isBuffer(value)) return value.toString("base64");
  if (Array.isArray(value)) return value.map(encodeValue);
  return value ?? null;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
