/**
 * Transaction table → DataFrame at scale: a 1,000,000-row, 13-column `data_table` (the simulator's
 * columns, A13), generated in-process from a fixed seed. Run after `npm run build`:
 *
 *   node bench/frames.mjs            # FRAMES_BENCH_ROWS=… to change the size
 *
 * Every variant runs in its own child process (`--expose-gc`), so each peak RSS is that variant's own
 * (the OS high-water mark, `process.resourceUsage().maxRSS`, which sampling cannot miss):
 *
 *   in-process   one run, as asked: generate the payload text, JSON.parse it (timed, peak RSS noted),
 *                then the adapter on the parsed response — column table, then DataFrame (timed, peak
 *                RSS noted). The payload text is dropped and a GC forced between phases, outside the
 *                timings, so each phase is charged only for its own work.
 *   parse-only   generate + JSON.parse alone: the peak RSS of JSON.parse with nothing after it.
 *   e2e-client   HTTP end to end: rp.position.transactionTable() then frames.transactionTable(response),
 *                against a loopback server in another process that serves the same payload.
 *   e2e-lean     HTTP end to end: frames.fetchTransactionTable(rp, …), which checks the response without
 *                copying it and releases the parsed rows once their cells are in columns.
 *   Both end-to-end variants run FRAMES_BENCH_E2E_RUNS times (default 3) and also report the heap still
 *   held afterwards with what a notebook keeps (`res` and `df`, or `df` alone).
 *
 * Prints the figures and writes bench/results/frames.json.
 */
import { execFile, fork } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  BENCH_DIR,
  REPO_ROOT,
  envInt,
  formatTable,
  isMain,
  median,
  repoRequire,
  round,
  serveFromMemory,
} from "./common.mjs";

const SCRIPT = fileURLToPath(import.meta.url);
const ROWS = envInt("FRAMES_BENCH_ROWS", 1_000_000);
const MB = 1024 * 1024;
const TARGET_PEAK_MB = 4096;
/** End-to-end runs per variant: an RSS high-water mark depends on when V8 happens to collect, so one run says little. */
const E2E_RUNS = envInt("FRAMES_BENCH_E2E_RUNS", 3);

/** Median time, peak RSS range and median retained heap over runs of one end-to-end variant. */
function summariseRuns(runs) {
  const pick = (f) => runs.map(f);
  return {
    runs,
    totalMs: median(pick((r) => r.totalMs)),
    peakMB: {
      min: Math.min(...pick((r) => r.peakMB)),
      median: median(pick((r) => r.peakMB)),
      max: Math.max(...pick((r) => r.peakMB)),
    },
    retainedHeapMB: median(pick((r) => r.retained.heapMB)),
  };
}

// ---------------------------------------------------------------------------------------------
// The payload: deterministic (fixed seed), realistic cardinalities (a year of trade dates, 5,000
// tradables, a handful of books and counterparties), ISO dates with offsets, integer quantities,
// decimal prices.
// ---------------------------------------------------------------------------------------------

const COUNTERPARTIES = ["JPM", "GS", "MS", "BARC", "DB", "UBS", "CITI", "BNP", "HSBC", "SG"];
const BOOKS = ["RATES-US", "RATES-EU", "CREDIT-IG", "CREDIT-HY", "EQ-DELTA1", "FX-SPOT", "EM-MACRO"];
const CURRENCIES = ["USD", "EUR", "GBP", "JPY", "CHF"];
const ASSET_CLASSES = ["Bond", "Equity", "Future", "Swap"];
const OFFSETS = ["+00:00", "+01:00", "-05:00", "+09:00"];

/**
 * The `GetTransactionTable` response body for `rows` trades, as bytes (ASCII). Same bytes on every run.
 * Written row by row into one buffer, so generating it does not itself set the process's peak RSS (a
 * million row strings joined at the end would, and would hide the peak of JSON.parse).
 */
export function transactionPayloadBuffer(rows) {
  let seed = 20_261_120;
  const random = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
  const day0 = Date.UTC(2025, 10, 20);
  let buffer = Buffer.allocUnsafe(Math.max(1024, rows * 360));
  let at = buffer.write('{"data_table":[', 0, "latin1");
  for (let i = 0; i < rows; i++) {
    const tradeDay = day0 + Math.floor((i / rows) * 365) * 86_400_000;
    const trade = new Date(tradeDay + Math.floor(random() * 8 * 3600) * 1000 + 8 * 3_600_000)
      .toISOString()
      .slice(0, 19);
    const settle = new Date(tradeDay + 2 * 86_400_000).toISOString().slice(0, 10);
    const tradable = Math.floor(random() * 5000);
    const quantity = Math.round((random() - 0.45) * 20_000) * 100;
    const price = Math.round((80 + random() * 40) * 10_000) / 10_000;
    const currency = CURRENCIES[tradable % CURRENCIES.length];
    const row =
      `${i > 0 ? "," : ""}{"trade_id":"T${String(i).padStart(8, "0")}","trade_date":"${trade}${OFFSETS[i % OFFSETS.length]}","settlement_date":"${settle}T00:00:00+00:00",` +
      `"tradable_id":"TRD-${String(tradable).padStart(5, "0")}","instrument_name":"Instrument ${tradable} ${currency}","asset_class":"${ASSET_CLASSES[tradable % ASSET_CLASSES.length]}",` +
      `"counterparty":"${COUNTERPARTIES[Math.floor(random() * COUNTERPARTIES.length)]}","book":"${BOOKS[tradable % BOOKS.length]}","direction":"${quantity >= 0 ? "Buy" : "Sell"}",` +
      `"quantity":${quantity},"price":${price},"currency":"${currency}","notional":${Math.round(quantity * price * 100) / 100}}`;
    if (at + row.length + 2 > buffer.length) {
      const grown = Buffer.allocUnsafe(Math.ceil(buffer.length * 1.5));
      buffer.copy(grown, 0, 0, at);
      buffer = grown;
    }
    at += buffer.write(row, at, "latin1");
  }
  at += buffer.write("]}", at, "latin1");
  return buffer.subarray(0, at);
}

/** {@link transactionPayloadBuffer} as a string (what a client has after reading the body). */
export function transactionPayload(rows) {
  return transactionPayloadBuffer(rows).toString("latin1");
}

// ---------------------------------------------------------------------------------------------
// Children
// ---------------------------------------------------------------------------------------------

const peakMB = () => process.resourceUsage().maxRSS / 1024; // maxRSS is in KiB
const rssMB = () => process.memoryUsage().rss / MB;
const heapMB = () => process.memoryUsage().heapUsed / MB;
const gc = () => globalThis.gc?.();
const loadFrames = () => repoRequire(join(REPO_ROOT, "dist", "frames", "index.js"));
const loadClient = () => repoRequire(join(REPO_ROOT, "dist", "index.js"));

function timed(fn) {
  const start = performance.now();
  const value = fn();
  return { value, ms: performance.now() - start };
}

async function timedAsync(fn) {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

function loadDanfoTimed(frames) {
  return timed(() => frames.loadDanfo()).ms;
}

const children = {
  /** One run: JSON.parse, then the adapter, each timed, peak RSS after each. */
  "in-process": () => {
    const frames = loadFrames();
    const danfoLoadMs = loadDanfoTimed(frames); // before anything is measured: its memory is baseline
    let text = transactionPayload(ROWS);
    const payloadMB = text.length / MB;
    gc();
    const baseline = { rssMB: rssMB(), peakMB: peakMB() };
    const parse = timed(() => JSON.parse(text));
    const afterParse = { peakMB: peakMB(), heapMB: heapMB() };
    text = null; // what a caller holds from here on is the parsed response
    gc();
    let response = parse.value;
    const table = timed(() => frames.transactionTableColumns(response));
    const afterTable = { peakMB: peakMB(), heapMB: heapMB() };
    const frame = timed(() => frames.toDataFrame(table.value));
    const afterFrame = { peakMB: peakMB(), heapMB: heapMB() };
    const df = frame.value;
    const check = {
      shape: df.shape,
      dtypes: df.dtypes,
      kinds: table.value.kinds,
      warnings: table.value.meta.warnings.length,
    };
    response = null;
    return {
      rows: ROWS,
      columns: df.shape[1],
      payloadMB,
      danfoLoadMs,
      baseline,
      parse: { ms: parse.ms, peakMB: afterParse.peakMB, heapMB: afterParse.heapMB },
      table: { ms: table.ms, peakMB: afterTable.peakMB, heapMB: afterTable.heapMB },
      frame: { ms: frame.ms, peakMB: afterFrame.peakMB, heapMB: afterFrame.heapMB },
      check,
    };
  },

  /** JSON.parse alone. */
  "parse-only": () => {
    const text = transactionPayload(ROWS);
    gc();
    const baseline = { rssMB: rssMB(), peakMB: peakMB() };
    const parse = timed(() => JSON.parse(text));
    return { baseline, parse: { ms: parse.ms, peakMB: peakMB(), rows: parse.value.data_table.length } };
  },

  /** Client + adapter over HTTP: the response object, then the frame built from it. */
  "e2e-client": async (url) => {
    const frames = loadFrames();
    const { RiskPortalClient } = loadClient();
    const danfoLoadMs = loadDanfoTimed(frames);
    const rp = new RiskPortalClient({
      baseUrl: url,
      auth: { token: "bench-token-0123456789" },
      timeoutMs: 600_000,
      retry: false,
    });
    gc();
    const baseline = { rssMB: rssMB(), peakMB: peakMB() };
    const fetched = await timedAsync(() => rp.position.transactionTable({ portfolio_name: "BENCH" }));
    const afterFetch = peakMB();
    const frame = timed(() => frames.transactionTable(fetched.value));
    const peak = peakMB();
    // What a notebook keeps: `const res = await rp.position.transactionTable(…); const df = frames.transactionTable(res)`.
    gc();
    const retained = { heapMB: heapMB(), rows: fetched.value.data_table.length, shape: frame.value.shape };
    return {
      danfoLoadMs,
      baseline,
      fetch: { ms: fetched.ms, peakMB: afterFetch },
      frame: { ms: frame.ms, peakMB: peak },
      peakMB: peak,
      totalMs: fetched.ms + frame.ms,
      retained,
    };
  },

  /** The lean end-to-end path. */
  "e2e-lean": async (url) => {
    const frames = loadFrames();
    const { RiskPortalClient } = loadClient();
    const danfoLoadMs = loadDanfoTimed(frames);
    const rp = new RiskPortalClient({
      baseUrl: url,
      auth: { token: "bench-token-0123456789" },
      timeoutMs: 600_000,
      retry: false,
    });
    gc();
    const baseline = { rssMB: rssMB(), peakMB: peakMB() };
    const all = await timedAsync(() => frames.fetchTransactionTable(rp, { portfolio_name: "BENCH" }));
    const peak = peakMB();
    gc(); // what a notebook keeps: `const df = await frames.fetchTransactionTable(rp, …)`
    return {
      danfoLoadMs,
      baseline,
      totalMs: all.ms,
      peakMB: peak,
      retained: { heapMB: heapMB(), shape: all.value.shape },
    };
  },

  /** Serves the payload to one client process at a time; prints its URL. */
  server: async () => {
    const body = transactionPayloadBuffer(ROWS);
    const { url } = await serveFromMemory(body);
    process.send?.({ url });
    return new Promise(() => {}); // until the parent kills it
  },
};

async function runChild(variant, arg) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--expose-gc", SCRIPT, `--child=${variant}`, ...(arg ? [arg] : [])],
    {
      cwd: REPO_ROOT,
      encoding: "utf8",
      maxBuffer: 16 * MB,
      timeout: 20 * 60_000,
      env: { ...process.env, FRAMES_BENCH_ROWS: String(ROWS) },
    },
  );
  return JSON.parse(stdout.trim().split("\n").pop());
}

async function startServer() {
  const child = fork(SCRIPT, ["--child=server"], {
    cwd: REPO_ROOT,
    env: { ...process.env, FRAMES_BENCH_ROWS: String(ROWS) },
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const url = await new Promise((resolve, reject) => {
    child.once("message", (m) => resolve(m.url));
    child.once("exit", (code) => reject(new Error(`the bench server exited (${code}) before listening`)));
  });
  return { url, stop: () => child.kill() };
}

// ---------------------------------------------------------------------------------------------
// Parent
// ---------------------------------------------------------------------------------------------

async function main() {
  const machine = {
    node: process.version,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    cpus: os.cpus().length,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
  };
  const loadBefore = os.loadavg().map((x) => round(x, 2));
  console.log(
    `frames bench: ${ROWS.toLocaleString("en-US")} rows × 13 columns; node ${machine.node}, ${machine.cpus} CPUs; load average ${loadBefore.join(" ")}`,
  );

  console.log("in-process (JSON.parse, then the adapter, one run) …");
  const inProcess = await runChild("in-process");
  console.log("parse-only …");
  const parseOnly = await runChild("parse-only");
  console.log("end to end over HTTP (server in its own process) …");
  const server = await startServer();
  const e2eClientRuns = [];
  const e2eLeanRuns = [];
  try {
    for (let k = 0; k < E2E_RUNS; k++) {
      e2eClientRuns.push(await runChild("e2e-client", server.url));
      e2eLeanRuns.push(await runChild("e2e-lean", server.url));
    }
  } finally {
    server.stop();
  }
  const e2eClient = summariseRuns(e2eClientRuns);
  const e2eLean = summariseRuns(e2eLeanRuns);

  const adapterMs = inProcess.table.ms + inProcess.frame.ms;
  const ratio = adapterMs / inProcess.parse.ms;
  const peak = Math.max(inProcess.frame.peakMB, e2eClient.peakMB.max, e2eLean.peakMB.max);
  const ms = (x) => `${round(x, 0)} ms`;
  const mb = (x) => `${round(x, 0)} MB`;
  console.log(
    `\npayload ${round(inProcess.payloadMB, 1)} MB of JSON; danfo load ${ms(inProcess.danfoLoadMs)} (before timing); frame ${inProcess.check.shape.join(" × ")}, ${inProcess.check.warnings} warnings`,
  );
  console.log(
    formatTable(
      [`one process, ${ROWS.toLocaleString("en-US")} rows`, "time", "peak RSS"],
      [
        ["before: danfo loaded, payload text in memory", "", mb(inProcess.baseline.peakMB)],
        ["JSON.parse", ms(inProcess.parse.ms), mb(inProcess.parse.peakMB)],
        ["adapter: column table", ms(inProcess.table.ms), mb(inProcess.table.peakMB)],
        ["adapter: DataFrame from the table", ms(inProcess.frame.ms), mb(inProcess.frame.peakMB)],
        [
          "adapter total (table + DataFrame)",
          `${ms(adapterMs)} = ${round(ratio, 2)}× JSON.parse`,
          mb(inProcess.frame.peakMB),
        ],
        ["(JSON.parse in a process of its own)", ms(parseOnly.parse.ms), mb(parseOnly.parse.peakMB)],
      ],
    ),
  );
  const range = (p) => `${mb(p.min)}–${mb(p.max)}`;
  console.log(
    `\nend to end over loopback HTTP, ${E2E_RUNS} runs each (median time; peak RSS min–max; heap still held afterwards, median):`,
  );
  console.log(
    formatTable(
      ["path", "time", "peak RSS", "held after"],
      [
        [
          "rp.position.transactionTable + frames.transactionTable(res)",
          ms(e2eClient.totalMs),
          range(e2eClient.peakMB),
          `${mb(e2eClient.retainedHeapMB)} (res + df)`,
        ],
        [
          "frames.fetchTransactionTable(rp, …)",
          ms(e2eLean.totalMs),
          range(e2eLean.peakMB),
          `${mb(e2eLean.retainedHeapMB)} (df)`,
        ],
      ],
    ),
  );
  const targets = {
    adapterWithin1xParse: ratio <= 1,
    peakUnder4GB: peak < TARGET_PEAK_MB,
  };
  console.log(
    `\ntargets: adapter ≤ 1× JSON.parse: ${targets.adapterWithin1xParse ? "yes" : "NO"} (${round(ratio, 2)}×); peak RSS < 4 GB: ${targets.peakUnder4GB ? "yes" : "NO"} (${mb(peak)})`,
  );

  const results = {
    startedAt: new Date().toISOString(),
    machine,
    loadAverage: { before: loadBefore, after: os.loadavg().map((x) => round(x, 2)) },
    rows: ROWS,
    columns: 13,
    payloadMB: round(inProcess.payloadMB, 1),
    inProcess,
    parseOnly,
    e2eClient,
    e2eLean,
    summary: {
      parseMs: round(inProcess.parse.ms),
      adapterMs: round(adapterMs),
      ratio: round(ratio, 3),
      peakMB: round(peak),
      e2e: {
        clientMs: round(e2eClient.totalMs),
        leanMs: round(e2eLean.totalMs),
        clientHeldMB: round(e2eClient.retainedHeapMB),
        leanHeldMB: round(e2eLean.retainedHeapMB),
      },
      targets,
    },
  };
  mkdirSync(join(BENCH_DIR, "results"), { recursive: true });
  writeFileSync(join(BENCH_DIR, "results", "frames.json"), JSON.stringify(results, null, 2) + "\n");
  console.log(`\nwrote bench/results/frames.json`);
}

if (isMain(import.meta.url)) {
  const childArg = process.argv.find((a) => a.startsWith("--child="));
  if (childArg) {
    const variant = childArg.slice("--child=".length);
    const result = await children[variant](process.argv[3]);
    if (variant !== "server") {
      process.stdout.write(JSON.stringify(result) + "\n");
      process.exit(0);
    }
  } else {
    await main();
  }
}
