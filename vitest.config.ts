import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import { SummaryReporter } from "./tooling/vitest/summary-reporter";

/**
 * One vitest project per package and app. Tests import workspace packages through the
 * `@planfirst/source` export condition, so they run against `src` and never wait for a build.
 */
const sourceConditions = ["@planfirst/source", "module", "node", "development|production"];

function workspaceProjects() {
  return ["packages", "apps", "tooling"].flatMap((group) =>
    existsSync(group)
      ? readdirSync(group, { withFileTypes: true })
          .filter((entry) => entry.isDirectory() && existsSync(join(group, entry.name, "src")))
          .map((entry) => ({
            extends: true as const,
            test: { name: entry.name, root: join(group, entry.name) },
          }))
      : [],
  );
}

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions, externalConditions: ["@planfirst/source"] } },
  test: {
    projects: workspaceProjects(),
    reporters: ["default", new SummaryReporter()],
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
