/** Runs one skill folder alone in workerd and calls it directly (no gateway in between). */
import { type Mesh, startMesh } from "../../scripts/mesh/index.js";
import { ADMIN_TOKEN, post } from "./fixtures.js";

export interface RunningSkill {
  url: string;
  mesh: Mesh;
  /** Calls the skill's method with params; returns the JSON-RPC response. */
  call(params: unknown): Promise<any>;
  dispose(): Promise<void>;
}

export async function startSkill(dir: string): Promise<RunningSkill> {
  const mesh = await startMesh({ skills: [dir], adminToken: ADMIN_TOKEN, register: false });
  const [skill] = mesh.skills;
  return {
    url: skill!.url,
    mesh,
    call: async (params) => (await post(skill!.url, { jsonrpc: "2.0", method: skill!.manifest.name, params, id: 1 })).json,
    dispose: () => mesh.dispose(),
  };
}
