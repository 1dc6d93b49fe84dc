/**
 * `npm run redis-rest -- --redis redis://127.0.0.1:6379 --port 8079 --token dev`
 * Serves the Upstash REST protocol in front of a running redis-server until Ctrl-C.
 */
import { parseArgs } from "node:util";
import { startRedisRest } from "./serve.js";

const { values } = parseArgs({
  options: {
    redis: { type: "string", default: "redis://127.0.0.1:6379" },
    port: { type: "string", default: "8079" },
    token: { type: "string", default: process.env.UPSTASH_REDIS_REST_TOKEN ?? "" },
  },
});
if (!values.token) {
  console.error("give a token: --token <secret> (or UPSTASH_REDIS_REST_TOKEN)");
  process.exit(2);
}
const rest = await startRedisRest({ redisUrl: values.redis, token: values.token, port: Number(values.port) });
console.log(`Upstash REST endpoint on ${rest.url} -> ${values.redis}`);
process.on("SIGINT", () => void rest.stop().then(() => process.exit(0)));
