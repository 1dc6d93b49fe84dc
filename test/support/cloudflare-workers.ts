/**
 * `cloudflare:workers` for the unit project (Node): the classes a module of src/ names at load
 * (`@cloudflare/codemode` extends them), with nothing behind them. Anything that runs them is
 * tested in workerd, in the integration project.
 */
export class RpcTarget {}
export class WorkerEntrypoint {}
export class DurableObject {}
export const env = {};
