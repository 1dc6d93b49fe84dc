/**
 * Agent Skills packages in git, as tools are: each released version's contract (its digest, its
 * files' digests, the Skillmesh tools it names) is committed under
 * `contracts/agent-skills/<name>/<version>.json`, and the drift gate refuses a package changed
 * under a released version, or one naming a tool nobody serves.
 */
import { z } from "zod";
import { type CheckedPackage, InvalidPackage } from "./index.js";

/** Where package contracts live inside the contracts folder (a tool's contracts are `contracts/<tool>/`). */
export const PACKAGE_CONTRACTS_FOLDER = "agent-skills";

/** A released package version: what its digest covers, and the tools it names. */
export const PackageContractSchema = z.strictObject({
  name: z.string(),
  version: z.string(),
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  tools: z.array(z.string()),
  files: z.array(z.strictObject({ path: z.string(), digest: z.string(), bytes: z.number() })),
});
export type PackageContract = z.infer<typeof PackageContractSchema>;

/**
 * A checked package's contract, as `npm run contracts` commits it.
 * @example contractOf(pkg) // { name: "modbus-triage", version: "1.0.0", digest: "sha256:…", tools: ["modbus.decode"], files: […] }
 */
export function contractOf(pkg: CheckedPackage): PackageContract {
  return { name: pkg.name, version: pkg.version, digest: pkg.digest, tools: pkg.tools, files: pkg.files };
}

/** The contract file of a package version, relative to the contracts folder. */
export const packageContractPath = (name: string, version: string) => `${PACKAGE_CONTRACTS_FOLDER}/${name}/${version}.json`;

/**
 * What keeps packages from being released (empty: nothing): a package that does not pass the
 * format (every problem, named), a Skillmesh tool it names that is in none of `tools`, a version
 * changed since its contract was committed, a version with no contract committed.
 * @example packageProblems([pkg, new InvalidPackage("Agent Skill x", ["no SKILL.md at its root"])], released, new Set(["modbus.decode"]))
 */
export function packageProblems(current: Array<CheckedPackage | InvalidPackage>, released: PackageContract[], tools: ReadonlySet<string>): string[] {
  return current.flatMap((pkg) => {
    if (pkg instanceof InvalidPackage) return pkg.problems.map((problem) => `${pkg.where}: ${problem}`);
    const label = `Agent Skill ${pkg.name} ${pkg.version}`;
    const problems = pkg.tools
      .filter((tool) => !tools.has(tool))
      .map((tool) => `${label}: allowed-tools names ${tool}, which no skill serves (deploy it, or drop it from allowed-tools)`);
    const same = released.find((c) => c.name === pkg.name && c.version === pkg.version);
    if (!same)
      problems.push(`${label}: no contract committed for it (run npm run contracts and commit contracts/${packageContractPath(pkg.name, pkg.version)})`);
    else if (same.digest !== pkg.digest)
      problems.push(
        `${label}: changed under the same version (${changedFiles(same, pkg).join(", ")}): a released package is never changed, give it a new metadata.version`,
      );
    return problems;
  });
}

/** The files that differ between a contract and a package: added, removed or with another digest. */
export function changedFiles(contract: PackageContract, pkg: Pick<CheckedPackage, "files">): string[] {
  const before = new Map(contract.files.map((f) => [f.path, f.digest]));
  const after = new Map(pkg.files.map((f) => [f.path, f.digest]));
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  return paths.flatMap((path) => {
    if (!before.has(path)) return [`${path} added`];
    if (!after.has(path)) return [`${path} removed`];
    return before.get(path) === after.get(path) ? [] : [`${path} changed`];
  });
}
