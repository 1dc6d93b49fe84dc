/**
 * Progress of a long call, as a skill reports it (`ctx.progress`), as it travels from the skill
 * Worker to the gateway (an SSE event), and as the gateway relays it (MCP
 * `notifications/progress`, or the same notification on `/rpc`). One rule everywhere: a report
 * that does not move forward is dropped (MCP: "the progress value MUST increase").
 */
import { z } from "zod";

export const ProgressSchema = z.object({
  progress: z.number().finite(),
  total: z.number().finite().optional(),
  message: z.string().max(1_000).optional(),
});
export type Progress = z.infer<typeof ProgressSchema>;

/** The JSON-RPC method of a progress notification (MCP's, used on every hop). */
export const PROGRESS_METHOD = "notifications/progress";

/**
 * A reporter that passes on only reports whose `progress` grows, and drops malformed ones.
 * @example const report = forwardOnly((p) => sse.send(p)); report({ progress: 1 }); report({ progress: 1 }) // sent once
 */
export function forwardOnly(send: (progress: Progress) => void): (progress: Progress) => void {
  let last = -Infinity;
  return (report) => {
    const checked = ProgressSchema.safeParse(report);
    if (!checked.success || checked.data.progress <= last) return;
    last = checked.data.progress;
    send(checked.data);
  };
}

/**
 * A reporter that relays progress on an event stream as `notifications/progress`, with `about` in
 * its params (an MCP `progressToken`, a JSON-RPC `id`): forward only (`forwardOnly`), and as a
 * notice a lagging client may miss (`notify`), so a fast reporter cannot fill the isolate.
 * @example const onProgress = progressRelay(sse, { progressToken }); onProgress({ progress: 1, total: 3 })
 */
export function progressRelay(stream: { notify(message: unknown): boolean }, about: Record<string, unknown> = {}): (progress: Progress) => void {
  return forwardOnly((p) => void stream.notify({ jsonrpc: "2.0", method: PROGRESS_METHOD, params: { ...about, ...p } }));
}
