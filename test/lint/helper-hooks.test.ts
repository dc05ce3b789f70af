/**
 * The unit files share a worker's process and its loaded modules (vitest.config.mts, project "shared"), so a
 * helper module is evaluated once per worker: a vitest hook it registers at its top level (`afterEach(…)`)
 * is registered in the first test file that imports it only, and the files after it lose it silently (a
 * child process not killed, a directory not removed). Hooks belong in the test files; helpers export what the
 * hook calls.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const testDir = path.resolve(__dirname, "..");

/** Every .ts file under test/ that is not a test file itself. */
function helpers(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : helpers(file);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [file] : [];
  });
}

describe("test helper modules", () => {
  it("register no vitest hook at their top level", () => {
    const offenders = helpers(testDir)
      .filter((f) => /^(afterEach|afterAll|beforeEach|beforeAll)\(/m.test(readFileSync(f, "utf8")))
      .map((f) => path.relative(testDir, f));
    expect(offenders).toEqual([]);
  });
});
