/**
 * Whose an A2A agent's tasks and contexts are: the caller whose call started them, kept when the
 * agent answers (written only where no record is, `nx`) and read when a caller names one again
 * (the policy `conversations`, src/gateway/chain/policies.ts).
 */
import { z } from "zod";
import { safeJson } from "../../lib/json/index.js";
import { ErrorCode, RpcError, errorText } from "../../protocols/jsonrpc/index.js";
import type { SendMessageResult } from "../../protocols/a2a/index.js";
import type { Store } from "../../store/index.js";
import { AGENT_TASK_TTL_MS, type AgentTaskRecord, AgentTaskRecordSchema, UPSTREAM_KEYS } from "./records.js";

/** Who a record says started a task or a context: what `#keepConversation` compares, and `agentContext` reads. */
const OwnerSchema = z.object({ caller: z.string() });

/**
 * An A2A agent's conversations as the gateway keeps them.
 * @example await conversations.keep("writer", answer, { caller, version: "1.0.0", tool: "writer.draft" })
 */
export class AgentConversations {
  constructor(private readonly store: Store) {}

  /**
   * Keeps whose the task and context of an agent's answer are: the caller whose call started them
   * (written only where no record is, `nx`). An answer naming a task or context another caller
   * already has is the agent's fault — it would hand one caller another's conversation — and is
   * not relayed (-32001); the records stay as they were. A store that fails costs the caller its
   * later GetTask, not this answer.
   */
  async keep(agent: string, answer: SendMessageResult, owned: AgentTaskRecord): Promise<void> {
    const said = "task" in answer ? { taskId: answer.task.id, contextId: answer.task.contextId } : { contextId: answer.message.contextId };
    const claims = [
      ...(said.taskId ? [{ key: UPSTREAM_KEYS.agentTask(agent, said.taskId), value: JSON.stringify(owned) }] : []),
      ...(said.contextId ? [{ key: UPSTREAM_KEYS.agentContext(agent, said.contextId), value: JSON.stringify({ caller: owned.caller }) }] : []),
    ];
    for (const { key, value } of claims) {
      try {
        if (await this.store.set(key, value, { px: AGENT_TASK_TTL_MS, nx: true })) continue;
        const holder = OwnerSchema.safeParse(safeJson((await this.store.get(key)) ?? ""));
        if (holder.success && holder.data.caller !== owned.caller)
          throw new RpcError(
            ErrorCode.SkillUnavailable,
            `${owned.tool}: the agent answered with a task or context another caller started; the answer is not relayed`,
            { retryAfterMs: 1_000 },
          );
      } catch (error) {
        if (error instanceof RpcError) throw error;
        console.error(`[upstream] ${owned.tool}: its task's owner could not be kept:`, errorText(error));
      }
    }
  }

  /** Who started an agent's context (its first task or message); undefined when the gateway handed it to no one (or forgot). */
  async context(name: string, contextId: string): Promise<{ caller: string } | undefined> {
    const parsed = OwnerSchema.safeParse(safeJson((await this.store.get(UPSTREAM_KEYS.agentContext(name, contextId))) ?? ""));
    return parsed.success ? parsed.data : undefined;
  }

  /** Whose an agent's task is, and which version and tool ran it; undefined when the gateway started no such task (or forgot it). */
  async task(name: string, taskId: string): Promise<AgentTaskRecord | undefined> {
    const parsed = AgentTaskRecordSchema.safeParse(safeJson((await this.store.get(UPSTREAM_KEYS.agentTask(name, taskId))) ?? ""));
    return parsed.success ? parsed.data : undefined;
  }
}
