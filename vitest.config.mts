import { defineConfig } from "vitest/config";

/**
 * The tests that drive whole programs: Jupyter and Deno kernels, the notebook runner, the packed package
 * installed in a temporary folder, headless Chromium, the CLI as a process, a benchmark at a small size.
 * `npm test` runs everything; `npm run test:unit` leaves these out (a quick loop while working),
 * `npm run test:e2e` runs only them.
 */
const E2E = [
  "test/notebook/**/*.test.ts",
  "test/package/**/*.test.ts",
  "test/bench/**/*.test.ts",
  "test/plot/browser.test.ts",
  "test/plot/controls.test.ts",
  "test/plot/curve-tenor-panels.test.ts",
  "test/plot/to-png.test.ts",
  "test/sim/cli.test.ts",
];

/**
 * Files that must have a process of their own: the whole programs above, and the tests that measure this
 * process's memory (peak RSS, heap growth), which other files' modules in the same process would distort.
 */
const OWN_PROCESS = [...E2E, "test/client/bomb-rss.test.ts", "test/client/answer-retention.test.ts"];

const set = process.env.RPL_TEST_SET;
if (set !== undefined && set !== "unit" && set !== "e2e")
  throw new Error(`RPL_TEST_SET must be unit or e2e, got ${JSON.stringify(set)}`);

export default defineConfig({
  test: {
    // Builds dist/ (when src/ changed) before any test, for the package-level tests in test/package and test/notebook.
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/setup-fast-check.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: "forks",
    // vitest's default is one worker less than the cores: ONE on a 2-core CI machine, so the files ran one
    // after the other while most of them wait on subprocesses (kernels, Chromium, servers). Two files at
    // a time keep both cores busy.
    maxWorkers: 2,
    projects: [
      {
        // The unit files share a worker's process and its loaded modules (vitest's `isolate: false`): each file
        // importing the library afresh was half of their CPU time. They must leave no global state behind.
        extends: true,
        test: {
          name: "shared",
          include: set === "e2e" ? [] : ["test/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...OWN_PROCESS],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "own-process",
          include: set === "e2e" ? E2E : set === "unit" ? OWN_PROCESS.filter((f) => !E2E.includes(f)) : OWN_PROCESS,
        },
      },
    ],
  },
});
