/**
 * Simulator throughput: requests/second for GetVol (100 strikes) and RateAsset at concurrency 16 over
 * loopback, and the time to serve a 1,000,000-row transaction table. The simulator runs in a child
 * process (`dist/cli.js sim --json`) so the load generator does not share its event loop; requests are
 * bare `fetch` calls (the server is what is measured). Bounded: a fixed number of requests per round and
 * a time cap; everything stops by itself. Writes bench/results/sim.json.
 *
 * Knobs: BENCH_SIM_REQUESTS (3000), BENCH_SIM_ROUNDS (3), BENCH_SIM_ROWS (1000000).
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { BENCH_DIR, REPO_ROOT, envInt, formatTable, isMain, median, round } from "./common.mjs";

const CONCURRENCY = 16;
const CAP_MS = 20_000;

export function startSim(rows) {
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, "dist", "cli.js"), "sim", "--port", "0", "--json", "--no-rate-limit", "--rows", String(rows)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("simulator did not start within 20 s")), 20_000);
    child.once("exit", (code) => reject(new Error(`simulator exited early (${code})`)));
    createInterface({ input: child.stdout }).once("line", (line) => {
      clearTimeout(timer);
      const { url, credentials } = JSON.parse(line);
      resolve({
        url,
        key: credentials.apiKey,
        stop: () => new Promise((r) => (child.once("exit", r), child.kill("SIGTERM"))),
      });
    });
  });
}

export async function drive(call, total) {
  let issued = 0;
  const t0 = performance.now();
  const deadline = t0 + CAP_MS;
  const worker = async () => {
    while (issued < total && performance.now() < deadline) {
      issued++;
      await call();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return (issued * 1000) / (performance.now() - t0);
}

export async function measureSim() {
  const requests = envInt("BENCH_SIM_REQUESTS", 3000);
  const rounds = envInt("BENCH_SIM_ROUNDS", 3);
  const rows = envInt("BENCH_SIM_ROWS", 1_000_000);
  const sim = await startSim(rows);
  try {
    const headers = { "x-api-key": sim.key, "content-type": "application/json", accept: "application/json" };
    const post = (path, body) => async () => {
      const res = await fetch(sim.url + path, { method: "POST", headers, body });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
      return text;
    };
    const surface = await (
      await fetch(`${sim.url}/sim/surface?asset=SPX`, { headers: { "x-api-key": sim.key } })
    ).json();
    const strikes = Array.from({ length: 100 }, (_, i) => 50 + i);
    const ops = {
      "GetVol (100 strikes)": post(
        "/api/Tradable/GetVol",
        JSON.stringify({ surface, maturity: 120, strikes, strike_type: 1 }),
      ),
      RateAsset: post("/api/RateAsset", JSON.stringify({ currency: "USD", market_date: "2026-11-20" })),
    };
    // Sanity: the answers are what they should be before anything is timed.
    if (JSON.parse(await ops["GetVol (100 strikes)"]()).vols.length !== 100)
      throw new Error("GetVol answered the wrong number of vols");
    const perOp = {};
    for (const name of Object.keys(ops)) perOp[name] = [];
    for (const name of Object.keys(ops)) await drive(ops[name], 300); // warm-up
    for (let r = 0; r < rounds; r++)
      for (const [name, call] of Object.entries(ops)) perOp[name].push(await drive(call, requests));

    // The million-row table: first byte, full body, and bytes, streamed (the server never holds it whole).
    const table = [];
    for (let r = 0; r < 2; r++) {
      const t0 = performance.now();
      const res = await fetch(`${sim.url}/api/Position/GetTransactionTable`, {
        method: "POST",
        headers,
        body: JSON.stringify({ portfolio_name: "GLOBAL-MACRO", include_zero_quantities: true }),
      });
      const reader = res.body.getReader();
      let first;
      let bytes = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        first ??= performance.now() - t0;
        bytes += value.length;
      }
      table.push({ firstByteMs: first, totalMs: performance.now() - t0, bytes });
    }
    return {
      concurrency: CONCURRENCY,
      requests,
      rounds,
      rps: Object.fromEntries(
        Object.entries(perOp).map(([k, v]) => [k, { median: round(median(v), 0), rounds: v.map((x) => round(x, 0)) }]),
      ),
      transactionTable: {
        rows,
        firstByteMs: round(median(table.map((t) => t.firstByteMs)), 1),
        totalMs: round(median(table.map((t) => t.totalMs)), 0),
        megabytes: round(table[0].bytes / 1e6, 1),
      },
    };
  } finally {
    await sim.stop();
  }
}

export function formatSim(r) {
  const lines = [
    `simulator: concurrency ${r.concurrency}, ${r.requests} requests x ${r.rounds} rounds, bare fetch against dist/cli.js sim`,
  ];
  lines.push(
    formatTable(
      ["operation", "req/s (median)", "per round"],
      Object.entries(r.rps).map(([k, v]) => [k, String(v.median), v.rounds.join(" / ")]),
    ),
  );
  const t = r.transactionTable;
  lines.push(
    `GetTransactionTable, ${t.rows.toLocaleString("en")} rows: first byte ${t.firstByteMs} ms, whole body ${t.totalMs} ms, ${t.megabytes} MB`,
  );
  return lines.join("\n");
}

if (isMain(import.meta.url)) {
  const result = await measureSim();
  console.log(formatSim(result));
  mkdirSync(join(BENCH_DIR, "results"), { recursive: true });
  writeFileSync(join(BENCH_DIR, "results", "sim.json"), JSON.stringify(result, null, 2));
}
