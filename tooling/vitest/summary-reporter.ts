import type { Reporter, TestModule } from "vitest/node";

/**
 * Ends a test run with one plain line, `N passed, N failed, N skipped`, that tools reading a
 * log can rely on whatever the console reporter prints. Unhandled errors count as failures.
 */
export class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>) {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const testModule of testModules) {
      if (testModule.state() === "failed" && [...testModule.children.allTests()].length === 0) {
        failed++;
      }
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
    }
    // After the console reporter's own summary, so this is the run's last line.
    setImmediate(() => console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`));
  }
}
