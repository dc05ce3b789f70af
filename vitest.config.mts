import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
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
  },
});
