/**
 * What importing the built package costs, and that its names import under every loader a notebook uses:
 * - a plain `require("risk-portal-lab")` loads two modules, the entry and the bundle (scripts/bundle-index.mjs:
 *   our code and zod in one file), and no heavy dependency (bench/import-time.mjs keeps the time);
 * - Node ESM (`import { frames } from "risk-portal-lab"` in a module) and Deno see every name the CommonJS
 *   build exports: both find the names by static analysis of dist/index.js (cjs-module-lexer in Node,
 *   Deno's own), so a root export written in a form they cannot read would be missing there only.
 * dist/ is built by test/global-setup.ts; the children resolve the package by name from the repo root
 * (node_modules/risk-portal-lab links to it).
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(__dirname, "../..");
const deno = path.join(root, "node_modules", ".bin", "deno");
const env = { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", NODE_OPTIONS: "" };

/**
 * Modules in `require.cache` after the import: the entry, which turns on the compile cache (issue 46, item 4),
 * and the bundle (before the bundle, tsc's output: 217–225, 95 of them zod).
 */
const MODULE_BUDGET = 2;
/** Dependencies that load on first use only. */
const LAZY_DEPENDENCIES = [
  "danfojs-node",
  "@tensorflow",
  "plotly.js-dist",
  "playwright-core",
  "@duckdb",
  "apache-arrow",
  "fastify",
  "exceljs",
];

const REQUIRE_CHILD = `
const pkg = require("risk-portal-lab");
const paths = Object.keys(require.cache).map((p) => p.split(require("node:path").sep).join("/"));
const count = (name) => paths.filter((p) => p.includes("/node_modules/" + name + "/")).length;
process.stdout.write(JSON.stringify({
  names: Object.keys(pkg).sort(),
  modules: paths.length,
  zod: count("zod"),
  danfo: paths.filter((p) => p.includes("/vendor/danfo/")).length,
  lazy: Object.fromEntries(${JSON.stringify(LAZY_DEPENDENCIES)}.map((name) => [name, count(name)])),
}));
`;

// The same two forms under Node ESM and Deno: a namespace import (all names) and named imports, of the
// root and of two subpaths (package.json "exports"; the wire model is in risk-portal-lab/api).
const ESM_MODULE = `
import * as pkg from "risk-portal-lab";
import { connect, frames, plot, RiskPortalClient } from "risk-portal-lab";
import { OPERATIONS } from "risk-portal-lab/api";
import { yieldCurveColumns, CsvError } from "risk-portal-lab/frames";
const named = [typeof connect, typeof frames.yieldCurve, typeof plot.yieldCurve, OPERATIONS.length, typeof RiskPortalClient, typeof yieldCurveColumns, CsvError === frames.CsvError];
console.log(JSON.stringify({ names: Object.keys(pkg).filter((n) => !["default", "module.exports", "__esModule"].includes(n)).sort(), named }));
`;
const NAMED = ["function", "function", "function", 13, "function", "function", true];

async function requireReport(): Promise<{
  names: string[];
  modules: number;
  zod: number;
  danfo: number;
  lazy: Record<string, number>;
}> {
  const { stdout } = await run(process.execPath, ["-e", REQUIRE_CHILD], {
    cwd: root,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  return JSON.parse(stdout) as Awaited<ReturnType<typeof requireReport>>;
}

function lastJsonLine<T>(stdout: string): T {
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as T;
}

describe("importing the built package", () => {
  it(`require() loads ${MODULE_BUDGET} modules and none of the lazy dependencies`, async () => {
    const report = await requireReport();
    console.log(`require("risk-portal-lab"): ${report.modules} modules, ${report.zod} of them zod`);
    expect(report.names).toContain("frames");
    expect(report.modules).toBeLessThanOrEqual(MODULE_BUDGET);
    expect(report.lazy).toEqual(Object.fromEntries(LAZY_DEPENDENCIES.map((name) => [name, 0])));
    expect(report.danfo, "the bundled danfo (vendor/danfo) loads on the first DataFrame only").toBe(0);
  });

  it("Node ESM imports every name by name", async () => {
    const [cjs, esm] = await Promise.all([
      requireReport(),
      run(process.execPath, ["--input-type=module", "-e", ESM_MODULE], {
        cwd: root,
        env,
        encoding: "utf8",
        timeout: 60_000,
      }),
    ]);
    const report = lastJsonLine<{ names: string[]; named: unknown[] }>(esm.stdout);
    expect(report.names).toEqual(cjs.names);
    expect(report.named).toEqual(NAMED);
  });

  it("Deno imports every name by name", async () => {
    const [cjs, out] = await Promise.all([
      requireReport(),
      run(deno, ["eval", ESM_MODULE], { cwd: root, env, encoding: "utf8", timeout: 120_000 }),
    ]);
    const report = lastJsonLine<{ names: string[]; named: unknown[] }>(out.stdout);
    expect(report.names).toEqual(cjs.names);
    expect(report.named).toEqual(NAMED);
  }, 150_000);
});
