/**
 * Does the simulator's cost grow with its data? (issue 13) Starts the built simulator in a child process
 * with a fresh data directory, measures RateAsset and a launch (RiskReportLauncherItemCreate) on empty
 * state, uploads BENCH_SCALE_PRICES (400,000) bond prices in uploads of 40,000 (bootstrapped into the
 * curves), measures both again, then restarts the simulator on the same directory and measures once
 * more. Prints the ratios to the empty state (the goal: within 2x), the child's RSS, the journal and
 * snapshot sizes and the restart time. Then, in this process, opens the directory's store (replay) and
 * compacts it, timing both: what a background compaction of the whole state costs. Bounded: a fixed
 * number of requests; loopback only.
 *
 * Knobs: BENCH_SCALE_PRICES (400000), BENCH_SCALE_CALLS (30 per measurement), BENCH_SCALE_DIST (the
 * dist/ directory to run, e.g. an older build for a before/after figure).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { BENCH_DIR, REPO_ROOT, envInt, formatTable, isMain, median, round } from "./common.mjs";

const PER_UPLOAD = 40_000;

function startSim(dist, dataDir) {
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [join(dist, "cli.js"), "sim", "--port", "0", "--json", "--no-rate-limit", "--data-dir", dataDir],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error("simulator did not start within 120 s")), 120_000);
    child.once("exit", (code) => reject(new Error(`simulator exited early (${code})`)));
    createInterface({ input: child.stdout }).once("line", (line) => {
      clearTimeout(timer);
      const { url, credentials } = JSON.parse(line);
      resolvePromise({
        url,
        headers: { "x-api-key": credentials.apiKey, "content-type": "application/json" },
        startMs: performance.now() - t0,
        rssMB: () =>
          Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? NaN) / 1024,
        stop: () =>
          new Promise((r) => (child.removeAllListeners("exit"), child.once("exit", r), child.kill("SIGTERM"))),
      });
    });
  });
}

async function post(sim, path, body) {
  const res = await fetch(sim.url + path, { method: "POST", headers: sim.headers, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function latency(sim, calls) {
  const rate = [];
  const launch = [];
  for (let i = 0; i < calls; i++) {
    let t = performance.now();
    await post(sim, "/api/RateAsset", { currency: "EUR", market_date: "2026-11-20" });
    rate.push(performance.now() - t);
    t = performance.now();
    const out = await post(sim, "/api/ReportLauncher/RiskReportLauncherItemCreate", {
      report_name: "RATES-EU Daily PnL",
      reporting_currency: "EUR",
      market_data_environment_names: ["EOD"],
      portfolio_name: "RATES-EU",
      report_cutoff: "1Y",
      run_date: "2026-11-20",
    });
    if (!out.is_success) throw new Error(`launch failed: ${out.error_messages}`);
    launch.push(performance.now() - t);
  }
  return { rateAssetMs: median(rate), launchMs: median(launch) };
}

/** Valid prices of the simulator's bonds on business days before the data's last day, cycling. */
async function priceRecords(sim) {
  const tradables = await (await fetch(`${sim.url}/sim/tradables`, { headers: sim.headers })).json();
  const bonds = tradables.filter((t) => t.kind === "bond");
  const days = [];
  for (let d = Date.parse("2026-11-20T00:00:00Z"); days.length < 500; d -= 86_400_000) {
    const day = new Date(d);
    if (day.getUTCDay() % 6 !== 0) days.push(day.toISOString().slice(0, 10));
  }
  return (i) => {
    const bond = bonds[i % bonds.length];
    return {
      date: days[Math.floor(i / bonds.length) % days.length],
      bond_identifier: { code: bond.id, identifier_type: "ISIN" },
      currency: bond.currency,
      traded_price: 95 + (i % 1000) / 200,
      is_percentage_of_par: true,
      is_currency_per_bond_unit: false,
    };
  };
}

export async function measureSimScale({
  prices = envInt("BENCH_SCALE_PRICES", 400_000),
  calls = envInt("BENCH_SCALE_CALLS", 30),
  dist = process.env.BENCH_SCALE_DIST ? resolve(process.env.BENCH_SCALE_DIST) : join(REPO_ROOT, "dist"),
} = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "rpl-bench-scale-"));
  try {
    let sim = await startSim(dist, dataDir);
    await latency(sim, 10); // warm up
    const empty = await latency(sim, calls);
    const emptyRssMB = sim.rssMB();
    const record = await priceRecords(sim);
    const t0 = performance.now();
    const uploadMs = [];
    for (let done = 0; done < prices; done += PER_UPLOAD) {
      const n = Math.min(PER_UPLOAD, prices - done);
      const t = performance.now();
      const out = await post(sim, "/api/MarketData/UploadBondPriceData", {
        bond_data: Array.from({ length: n }, (_, k) => record(done + k)),
        trigger_immediate_bootstrap: true,
      });
      if (!out.is_success) throw new Error(`upload failed: ${out.error_messages.slice(0, 3)}`);
      uploadMs.push(performance.now() - t);
    }
    const uploadTotalMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 1_100)); // A19: the last bootstraps finish a second after the upload
    const loaded = await latency(sim, calls);
    const rssMB = sim.rssMB();
    await sim.stop();
    const files = Object.fromEntries(
      readdirSync(dataDir).map((n) => [n, round(statSync(join(dataDir, n)).size / 1e6, 1)]),
    );
    sim = await startSim(dist, dataDir);
    const restarted = await latency(sim, calls);
    const restartMs = sim.startMs;
    const restartRssMB = sim.rssMB();
    await sim.stop();
    const store = await measureStore(dist, dataDir);
    return {
      prices,
      calls,
      dist,
      empty: roundAll(empty),
      loaded: roundAll(loaded),
      restarted: roundAll(restarted),
      ratio: {
        rateAsset: round(loaded.rateAssetMs / empty.rateAssetMs, 2),
        launch: round(loaded.launchMs / empty.launchMs, 2),
        rateAssetAfterRestart: round(restarted.rateAssetMs / empty.rateAssetMs, 2),
        launchAfterRestart: round(restarted.launchMs / empty.launchMs, 2),
      },
      upload: {
        perUploadMsMedian: round(median(uploadMs), 0),
        firstMs: round(uploadMs[0], 0),
        lastMs: round(uploadMs.at(-1), 0),
        totalS: round(uploadTotalMs / 1000, 1),
      },
      rssMB: { empty: round(emptyRssMB, 0), loaded: round(rssMB, 0) },
      restart: { startS: round(restartMs / 1000, 2), rssMB: round(restartRssMB, 0) },
      filesMB: files,
      store,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Opens the data directory's store in this process (a replay of snapshot and journals) and compacts it
 * (the whole state into a new snapshot): the time of each. Undefined for a build without a journal.
 */
async function measureStore(dist, dataDir) {
  const mod = await import(pathToFileURL(join(dist, "sim", "store.js")).href);
  const Store = mod.Store ?? mod.default?.Store;
  if (typeof Store?.prototype?.compactNow !== "function") return undefined;
  let t = performance.now();
  const store = await Store.open(dataDir);
  const openS = (performance.now() - t) / 1000;
  const records = store.data.bondPrices.length;
  t = performance.now();
  await store.compactNow();
  const compactS = (performance.now() - t) / 1000;
  await store.close();
  return {
    records,
    openS: round(openS, 2),
    compactS: round(compactS, 2),
    snapshotMB: round(statSync(join(dataDir, "snapshot.jsonl")).size / 1e6, 1),
  };
}

const roundAll = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, round(v, 2)]));

export function formatSimScale(r) {
  return [
    `simulator with ${r.prices.toLocaleString("en")} stored bond prices (median of ${r.calls} calls, ${r.dist}):`,
    formatTable(
      ["", "empty", `${r.prices.toLocaleString("en")} prices`, "ratio", "after restart", "ratio"],
      [
        [
          "RateAsset (EUR, 2026-11-20)",
          `${r.empty.rateAssetMs} ms`,
          `${r.loaded.rateAssetMs} ms`,
          `${r.ratio.rateAsset}x`,
          `${r.restarted.rateAssetMs} ms`,
          `${r.ratio.rateAssetAfterRestart}x`,
        ],
        [
          "launch (RiskReportLauncherItemCreate)",
          `${r.empty.launchMs} ms`,
          `${r.loaded.launchMs} ms`,
          `${r.ratio.launch}x`,
          `${r.restarted.launchMs} ms`,
          `${r.ratio.launchAfterRestart}x`,
        ],
      ],
    ),
    `within 2x of the empty state: ${Object.values(r.ratio).every((x) => x <= 2) ? "yes" : "NO"} (${Object.entries(
      r.ratio,
    )
      .map(([k, v]) => `${k} ${v}x`)
      .join(", ")})`,
    `uploads of 40,000: first ${r.upload.firstMs} ms, last ${r.upload.lastMs} ms, median ${r.upload.perUploadMsMedian} ms, ${r.upload.totalS} s in all; RSS ${r.rssMB.empty} MB empty, ${r.rssMB.loaded} MB after`,
    `restart on the same directory: listening after ${r.restart.startS} s, RSS ${r.restart.rssMB} MB; files (MB): ${JSON.stringify(r.filesMB)}`,
    r.store
      ? `the store in-process: open (replay of ${r.store.records.toLocaleString("en")} prices) ${r.store.openS} s, a compaction of it all ${r.store.compactS} s (snapshot ${r.store.snapshotMB} MB)`
      : "the store in-process: this build has no journal to compact",
  ].join("\n");
}

if (isMain(import.meta.url)) {
  const result = await measureSimScale();
  console.log(formatSimScale(result));
  mkdirSync(join(BENCH_DIR, "results"), { recursive: true });
  writeFileSync(join(BENCH_DIR, "results", "sim-scale.json"), JSON.stringify(result, null, 2));
}
