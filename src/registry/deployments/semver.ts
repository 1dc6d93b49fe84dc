/** Semver precedence (semver.org §11), enough to order deployments of one skill. */

/**
 * Compares two semver strings: negative when a < b, 0 when equal in precedence, positive when a > b.
 * @example ["2.0.0", "1.10.0", "1.2.0"].sort(compareSemver) // ["1.2.0", "1.10.0", "2.0.0"]
 */
export function compareSemver(a: string, b: string): number {
  const [coreA, preA] = split(a);
  const [coreB, preB] = split(b);
  for (let i = 0; i < 3; i++) {
    const diff = (coreA[i] ?? 0) - (coreB[i] ?? 0);
    if (diff !== 0) return diff;
  }
  if (!preA.length || !preB.length) return preB.length - preA.length; // a release outranks its pre-releases
  for (let i = 0; i < Math.max(preA.length, preB.length); i++) {
    const x = preA[i];
    const y = preB[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) return Number(x) - Number(y);
    if (nx !== ny) return nx ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

function split(version: string): [number[], string[]] {
  const [core = "", pre] = version.split("+")[0]!.split(/-(.*)/s);
  return [core.split(".").map(Number), pre ? pre.split(".") : []];
}
