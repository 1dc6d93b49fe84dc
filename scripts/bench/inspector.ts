/**
 * The gateway isolate's V8 inspector (workerd's, opened with `startMesh({ inspectorPort })`):
 * its heap for `--scale`, a CPU profile for `--profile`.
 */

/** A DevTools protocol session with the gateway isolate. */
export interface GatewayInspector {
  /** Sends one DevTools protocol command and resolves with its result. */
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
  /** The isolate's used JS heap after a full GC, in MB. */
  heapMb(): Promise<number>;
  close(): void;
}

/**
 * Connects to the gateway isolate's inspector on `port`; undefined when there is none. workerd
 * runs a garbage collection asked over the inspector only when the isolate next runs, so
 * `heapMb` wakes an idle gateway with a request to `gatewayUrl`.
 * @example const inspector = await inspectGateway(9239, mesh.gatewayUrl); console.log(await inspector?.heapMb())
 */
export async function inspectGateway(port: number, gatewayUrl: string): Promise<GatewayInspector | undefined> {
  try {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as Array<{ title?: string; id?: string; webSocketDebuggerUrl: string }>;
    const target = targets.find((t) => `${t.title ?? ""} ${t.id ?? ""}`.includes("gateway"));
    if (!target) return undefined;
    const socket = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      socket.addEventListener("open", resolve);
      socket.addEventListener("error", reject);
    });
    let id = 0;
    const pending = new Map<number, (result: unknown) => void>();
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
      if (message.id !== undefined) pending.get(message.id)?.(message.result);
    });
    const send = (method: string, params: Record<string, unknown> = {}) =>
      new Promise<unknown>((resolve) => (pending.set(++id, resolve), socket.send(JSON.stringify({ id, method, params }))));
    return {
      send,
      async heapMb() {
        // The command may reach the isolate after a request: wake it until the GC has run.
        const wake = () =>
          void fetch(`${gatewayUrl}/healthz`).then(
            (r) => r.body?.cancel(),
            () => {},
          );
        wake();
        const waking = setInterval(wake, 100);
        await send("HeapProfiler.collectGarbage").finally(() => clearInterval(waking));
        const { usedSize } = (await send("Runtime.getHeapUsage")) as { usedSize: number };
        return usedSize / 2 ** 20;
      },
      close: () => socket.close(),
    };
  } catch {
    return undefined;
  }
}
