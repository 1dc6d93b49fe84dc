/** `skillmesh hop-key`: a new Ed25519 key pair for signed hops (needs no gateway). */
import { type CliIO } from "../io.js";
import type { CommandLine } from "../options.js";

export async function run(io: CliIO, _line: CommandLine): Promise<void> {
  const { generateHopKeys } = await import("../../../src/protocols/hop/index.js");
  const { privateKey, publicKey } = await generateHopKeys();
  io.out(`# The gateway's private key: its secret SKILLMESH_HOP_KEY, on the gateway only (npm run deploy reads it from its environment).
${privateKey.trimEnd()}
# Its public key: SKILLMESH_HOP_PUBLIC_KEY of each skill the gateway reaches by URL (not a secret; npm run deploy sets it).
${publicKey}`);
}
