/**
 * The order the test files start in: the longest first (a 2-core machine packs the run best when
 * the long files do not start last), then the rest as vitest orders them. The list is measured:
 * the file durations of a full run from a clean clone (docs/benchmarks.md, "The suite").
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The longest test files, longest first (seconds in a full run from a clean clone). */
export const LONGEST_FIRST = [
  "test/deploy.test.ts", // 188–250
  "test/readme.test.ts", // 156–207
  "test/dev.test.ts", // 104–137
  "test/deploy-dispatch.test.ts", // 68–96
  "test/conformance.test.ts", // 68–74
  "test/contracts.test.ts", // 62–69
  "test/dashboard.test.ts", // 39–45
  "test/canary.test.ts", // 24–45
  "test/jobs.test.ts", // 33–40
  "test/audit.test.ts", // 32–33
  "test/pipeline.test.ts", // 23–24
  "test/federation.test.ts", // 23
  "test/fuzz.test.ts", // 11–23
  "test/security-store.test.ts", // 21–22
  "test/delivery.test.ts", // 20
  "test/gateway.test.ts", // 18
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return at < 0 ? LONGEST_FIRST.length : at;
    };
    return sorted
      .map((file, i) => ({ file, i }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i)
      .map(({ file }) => file);
  }
}
