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
  },
});
