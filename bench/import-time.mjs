/**
 * Import time of the built package, and what importing it drags in.
 *
 * How: N times (BENCH_IMPORT_RUNS, default 15, after 2 discarded warm-ups, which also fill the package's
 * compile cache), spawn a fresh `node -e` child that requires the package (by name if
 * node_modules/risk-portal-lab exists, else dist/index.js), and alternately a baseline child that runs the
 * same script but requires nothing. Three figures:
 *   - wall: spawn-to-exit time of the child, measured by the parent; the headline figure is
 *     median(import) − median(baseline), i.e. what the import adds to a process's start-up;
 *   - CPU: the child's own user + system time at its end (`process.cpuUsage()`, Node's start-up included),
 *     as the ratio median(import) / median(baseline): issue 46's goal is ≤ 2.5× (`node -e 0` = 1×);
 *   - in-child: `performance.now()` around the `require()` call itself.
 * The same child lists `require.cache` afterwards: the number of loaded modules (2: the entry dist/index.js
 * and the one bundle dist/bundle.js, scripts/bundle-index.mjs), and any path of a dependency meant to load on first use only
 * (vendor/danfo, @tensorflow, plotly.js-dist, mathjs, DuckDB, fastify, exceljs; zod is bundled in, so it shows 0).
 * Exits non-zero (when run directly) if a `fatal` one was loaded.
 *
 * BENCH_IMPORT_BASELINE_DIR names another checkout (e.g. main, built): a third child, requiring that
 * checkout's dist/index.js, takes its turn in every round, so that before and after are ratios of one run
 * (`baseline.cpuRatio`), not of two runs on a machine whose load moved in between.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { REPO_ROOT, envInt, formatTable, isMain, packageSpecifier, round, summarise } from "./common.mjs";

/** Module families that must not load on import; `fatal` ones fail the benchmark. */
const HEAVY = [
  { name: "danfo", segment: "/vendor/danfo/", fatal: true }, // danfojs-node as the package ships it
  { name: "danfojs-node", segment: "/node_modules/danfojs-node/", fatal: true },
  { name: "@tensorflow", segment: "/node_modules/@tensorflow/", fatal: false },
  { name: "plotly.js-dist", segment: "/node_modules/plotly.js-dist/", fatal: true },
  { name: "mathjs", segment: "/node_modules/mathjs/", fatal: false },
  { name: "zod", segment: "/node_modules/zod/", fatal: false }, // 0 since dist/index.js bundles it
  { name: "@duckdb", segment: "/node_modules/@duckdb/", fatal: true },
  { name: "fastify", segment: "/node_modules/fastify/", fatal: true },
  { name: "exceljs", segment: "/node_modules/exceljs/", fatal: true },
];

// Runs in the child (CommonJS `node -e`): require the target (argv[1], may be empty), then report.
const CHILD = `
const { performance } = require("node:perf_hooks");
const target = process.argv[1];
const t0 = performance.now();
if (target) require(target);
const requireMs = performance.now() - t0;
const paths = Object.keys(require.cache).map((p) => p.split(require("node:path").sep).join("/"));
const segments = JSON.parse(process.argv[2]);
const heavy = Object.fromEntries(segments.map(([name, seg]) => [name, paths.filter((p) => p.includes(seg)).length]));
const cpu = process.cpuUsage();
process.stdout.write(JSON.stringify({ requireMs, modules: paths.length, heavy, cpuMs: (cpu.user + cpu.system) / 1000 }));
`;

function runChild(target) {
  const segments = JSON.stringify(HEAVY.map((h) => [h.name, h.segment]));
  const env = { ...process.env };
  delete env.NODE_OPTIONS; // no inspector / loaders / --cpu-prof inherited from the parent
  const t0 = performance.now();
  const out = spawnSync(process.execPath, ["-e", CHILD, target, segments], {
    cwd: REPO_ROOT,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  const wallMs = performance.now() - t0;
  if (out.error) throw out.error;
  if (out.status !== 0) throw new Error(`import child failed (status ${out.status}): ${out.stderr}`);
  return { wallMs, ...JSON.parse(out.stdout) };
}

/** Measures the import; returns figures (no printing). */
export function measureImportTime({
  runs = envInt("BENCH_IMPORT_RUNS", 15),
  warmups = 2,
  baselineDir = process.env.BENCH_IMPORT_BASELINE_DIR,
} = {}) {
  const pkg = packageSpecifier();
  const other = baselineDir ? path.resolve(baselineDir, "dist", "index.js") : undefined;
  if (other && !existsSync(other)) throw new Error(`${other} is missing: build that checkout first`);
  const base = [];
  const imp = [];
  const otherRuns = [];
  for (let i = 0; i < warmups + runs; i++) {
    // Alternate the order so slow drift (thermal, page cache, neighbours) hits every child alike.
    const order = [["base", ""], ["imp", pkg.specifier], ...(other ? [["other", other]] : [])];
    if (i % 2) order.reverse();
    const got = Object.fromEntries(order.map(([k, target]) => [k, runChild(target)]));
    if (i < warmups) continue;
    base.push(got.base);
    imp.push(got.imp);
    if (other) otherRuns.push(got.other);
  }
  const last = imp[imp.length - 1];
  const heavy = HEAVY.map((h) => ({
    name: h.name,
    modules: Math.max(...imp.map((r) => r.heavy[h.name])),
    fatal: h.fatal,
  }));
  const wallImport = summarise(imp.map((r) => r.wallMs));
  const wallBaseline = summarise(base.map((r) => r.wallMs));
  const cpuImport = summarise(imp.map((r) => r.cpuMs));
  const cpuBaseline = summarise(base.map((r) => r.cpuMs));
  return {
    target: pkg.resolved,
    via: pkg.via,
    runs,
    deltaMs: wallImport.median - wallBaseline.median,
    wallImportMs: wallImport,
    wallBaselineMs: wallBaseline,
    cpuImportMs: cpuImport,
    cpuBaselineMs: cpuBaseline,
    cpuRatio: cpuImport.median / cpuBaseline.median,
    inChildRequireMs: summarise(imp.map((r) => r.requireMs)),
    modulesLoaded: last.modules,
    modulesBaseline: base[base.length - 1].modules,
    heavy,
    ok: heavy.every((h) => !(h.fatal && h.modules > 0)),
    baseline: other && {
      target: other,
      cpuImportMs: summarise(otherRuns.map((r) => r.cpuMs)),
      cpuRatio: summarise(otherRuns.map((r) => r.cpuMs)).median / cpuBaseline.median,
    },
  };
}

/** Readable report of {@link measureImportTime}'s result. */
export function formatImportTime(r) {
  const ms = (s) => [round(s.median, 1), round(s.min, 1), round(s.p90, 1), round(s.max, 1)];
  const table = formatTable(
    ["ms (n=" + r.runs + ")", "median", "min", "p90", "max"],
    [
      ["child, baseline (no require)", ...ms(r.wallBaselineMs)],
      ["child, require package", ...ms(r.wallImportMs)],
      ["child CPU, baseline", ...ms(r.cpuBaselineMs)],
      ["child CPU, require package", ...ms(r.cpuImportMs)],
      ["require() inside child", ...ms(r.inChildRequireMs)],
    ],
  );
  const heavy = r.heavy
    .map((h) => `${h.name}: ${h.modules ? `LOADED (${h.modules} modules)` : "not loaded"}`)
    .join(", ");
  return [
    `import time of ${r.target} (via ${r.via})`,
    table,
    `=> import adds ${round(r.deltaMs, 1)} ms (median wall delta), ${round(r.cpuRatio, 2)}× the CPU of the baseline child; ${r.modulesLoaded} modules in require.cache (baseline ${r.modulesBaseline})`,
    `heavy deps after import: ${heavy}${r.ok ? "" : "  <-- FAIL: danfo/plotly must load lazily"}`,
    ...(r.baseline
      ? [
          `same run, ${r.baseline.target}: child CPU ${round(r.baseline.cpuImportMs.median, 1)} ms, ${round(r.baseline.cpuRatio, 2)}× the baseline child (this build ${round(r.cpuRatio, 2)}×)`,
        ]
      : []),
  ].join("\n");
}

if (isMain(import.meta.url)) {
  const result = measureImportTime();
  console.log(formatImportTime(result));
  if (!result.ok) process.exitCode = 1;
}
