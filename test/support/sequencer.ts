/**
 * The order the test files start in: the longest first (a 2-core machine packs the run best when
 * the long files do not start last), then the rest as vitest orders them. The list is measured:
 * the file durations of a full run from a clean clone (docs/benchmarks.md, "The suite").
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The longest test files, longest first (seconds in `.ci/run` from a clean clone, at the last two stops). */
export const LONGEST_FIRST = [
  "test/deploy.test.ts", // 169–250 (fewer uploads since: 90 s alone)
  "test/dev.test.ts", // 104–137
  "test/conformance.test.ts", // 68–113
  "test/readme.test.ts", // 79–90
  "test/deploy-dispatch.test.ts", // 68–96
  "test/contracts.test.ts", // 62–69
  "test/dashboard.test.ts", // 39–58
  "test/audit.test.ts", // 32–35
  "test/jobs.test.ts", // 32–40
  "test/code-mode.test.ts", // 30 alone (its job waits on a cancel)
  "test/catalog-search.test.ts", // 30
  "test/security-store.test.ts", // 21–27
  "test/federation.test.ts", // 23–26
  "test/tracing.test.ts", // 26
  "test/canary.test.ts", // 22–45
  "test/delivery.test.ts", // 20–22
  "test/gateway.test.ts", // 18–22
  "test/pipeline.test.ts", // 19–24
  "test/fuzz.test.ts", // 11–23
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
