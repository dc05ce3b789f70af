/**
 * Our frames beside their peers (issue 46), side by side in one run, on the transaction table as the simulator
 * serves it (`GetTransactionTable`, 13 columns; about 342 bytes of JSON a row). Not part of `npm run bench`: at
 * the default size it takes about 15 minutes for 3 rounds on a busy 2-core machine. Run after `npm run build`:
 *
 *   node bench/peers.mjs     # PEERS_BENCH_ROWS=1000000 (the simulator's transactionRows), PEERS_BENCH_ROUNDS=5,
 *                            # PEERS_BENCH_VARIANTS=ours-duckdb,arquero,… (default all), PEERS_BENCH_PYTHON=…
 *
 * The pipeline, timed in three phases:
 *   JSON → group-by   the body read over HTTP → a typed frame (numbers, text, the two dates as dates) → Σ notional
 *                     and trades by counterparty × currency, the groups in hand
 *   sort              the whole table by counterparty ascending, notional descending
 *   filter after sort the rows of notional > 1,000,000, in sorted order, as the variant's own frame; for DuckDB
 *                     that means brought back into JS (ours: `queryColumns(sql, { typed: true })`, the opt-in typed
 *                     result, where the built package has it, else `queryColumns`; DuckDB alone: `getColumnsObjectJS`)
 * Variants (each library is loaded before the clock starts):
 *   ours-duckdb    frames.fetchTransactionTableColumns(rp, …) → frames.duckdb().register → SQL
 *   ours-json-duckdb  frames.fetchTransactionTableToDuckDB(rp, …, db, "trades") → SQL, the body read by DuckDB's
 *                  JSON reader (issue 46, item 1); run only when the built package exports that verb
 *   ours-danfo     frames.fetchTransactionTable(rp, …) → groupby().agg / sortValues / query
 *   arquero        JSON.parse → aq.fromJSON(rows) (ISO dates auto-typed) → groupby().rollup / orderby / filter
 *   polars         pl.readJSON(body) → explode + unnest → dates by strptime → groupBy / sort / filter
 *   pandas         json.loads → DataFrame.from_records → to_datetime → groupby / sort_values / mask (when a
 *                  Python with pandas is found: PEERS_BENCH_PYTHON, /usr/bin/python3, python3)
 *   duckdb-body    DuckDB alone: the body spooled to a file → read_json + unnest(data_table) → SQL
 *   duckdb-array   DuckDB alone on the rows as a bare JSON array (the `{"data_table": …}` wrapper left out by the
 *                  server): read_json → group-by only. What the body could cost if DuckDB read it directly.
 * The simulator makes the body once; a loopback server in this process then serves those bytes to every child.
 * Each variant runs in its own child process (peak RSS is the child's own high-water mark, maxRSS, after the
 * group-by and at the end); the variants are interleaved over the rounds (each round starts one variant later),
 * and each figure is a median. Every variant reports the same check (groups, rows, Σ notional, filtered rows,
 * the first filtered row): the run fails when one disagrees with the others (a fast wrong answer does not pass).
 * Prints the table (ratios to the best peer: arquero, polars, pandas, DuckDB read_json of the body) with the load
 * average, the same for CPU time (steadier on a busy machine), and writes bench/results/peers.json.
 */
import { execFile } from "node:child_process";
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import os from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { REPO_ROOT, envInt, isMain, median, repoRequire, round, writeResults } from "./common.mjs";

const SCRIPT = fileURLToPath(import.meta.url);
const ROWS = envInt("PEERS_BENCH_ROWS", 1_000_000);
const ROUNDS = envInt("PEERS_BENCH_ROUNDS", 5);
const MB = 1024 * 1024;
const REQUEST = { portfolio_name: "GLOBAL-MACRO" };
const TABLE_PATH = "/api/Position/GetTransactionTable";
const ROWS_PATH = "/rows";
const THRESHOLD = 1_000_000;
const GROUP_SQL =
  "select counterparty, currency, sum(notional) as notional, count(*) as trades from trades group by counterparty, currency";
const SORT_SQL = "create table sorted as select * from trades order by counterparty asc, notional desc";
const FILTER_SQL = `select * from sorted where notional > ${THRESHOLD}`;

/**
 * The variants, in the table's order; `peer` marks those the ratios are taken against; `needs` names the export
 * of dist/frames a variant runs on (left out when the built package does not have it).
 */
const VARIANTS = [
  { key: "ours-duckdb", label: "ours: column table + DuckDB" },
  {
    key: "ours-json-duckdb",
    label: "ours: body → DuckDB's JSON reader (`fetchTransactionTableToDuckDB`)",
    needs: "fetchTransactionTableToDuckDB",
  },
  { key: "ours-danfo", label: "ours: danfo" },
  { key: "arquero", label: "arquero", peer: true },
  { key: "polars", label: "nodejs-polars (`readJSON`)", peer: true },
  { key: "pandas", label: "pandas", peer: true, python: true },
  { key: "duckdb-body", label: "DuckDB `read_json` of the service's body", peer: true },
  { key: "duckdb-array", label: "DuckDB `read_json` of the rows as a bare JSON array", loadOnly: true },
];

// ---------------------------------------------------------------------------------------------
// In a child: one variant, one run
// ---------------------------------------------------------------------------------------------

const peakMB = () => process.resourceUsage().maxRSS / 1024; // maxRSS is in KiB

/** Runs `fn`, returns its value with the wall and CPU (all threads of this process) ms it took. */
async function phase(fn) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const cpu = process.cpuUsage(cpu0);
  return { value, ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/**
 * The three phases of one variant and its figures. `steps.load()` returns the groups ({notional, trades} arrays),
 * `steps.sort()` the row count, `steps.filter()` the filtered rows' count, Σ notional and first row.
 */
async function runPhases(steps) {
  const load = await phase(steps.load);
  const peakGroupBy = peakMB();
  const figures = { load: { ms: load.ms, cpuMs: load.cpuMs } };
  const check = groupCheck(load.value);
  if (steps.sort) {
    const sort = await phase(steps.sort);
    const filter = await phase(steps.filter);
    figures.sort = { ms: sort.ms, cpuMs: sort.cpuMs };
    figures.filter = { ms: filter.ms, cpuMs: filter.cpuMs };
    Object.assign(check, { sorted: sort.value }, filter.value);
  }
  return { ...figures, peakMB: { groupBy: peakGroupBy, end: peakMB() }, check };
}

/** What every variant's group-by must agree on. */
function groupCheck({ notional, trades }) {
  let sum = 0;
  let rows = 0;
  for (let i = 0; i < notional.length; i++) {
    sum += Number(notional[i]);
    rows += Number(trades[i]);
  }
  return { groups: notional.length, rows, notional: sum };
}

/** Σ and count of a filtered notional column, and its first row's counterparty and notional. */
function filterCheck(counterparty, notional) {
  let sum = 0;
  for (let i = 0; i < notional.length; i++) sum += Number(notional[i]);
  return { filtered: notional.length, filteredNotional: sum, first: `${counterparty[0]} ${Number(notional[0])}` };
}

/** POSTs the table request to the bench's server; the response, status checked. */
async function post(url) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(REQUEST),
  });
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}`);
  return res;
}

function ourClient(base) {
  const { RiskPortalClient } = repoRequire(join(REPO_ROOT, "dist", "index.js"));
  return new RiskPortalClient({
    baseUrl: base,
    auth: { apiKey: "bench-key-0123456789" },
    timeoutMs: 1_800_000,
    retry: false,
  });
}

const loadFrames = () => repoRequire(join(REPO_ROOT, "dist", "frames", "index.js"));

/**
 * ours in SQL: `into(frames, rp, session)` puts the table into our DuckDB session as `trades`; the group-by,
 * the sort and the filtered rows back (`queryColumns`) are the same whichever way it got there.
 */
async function oursSql(base, into) {
  const frames = loadFrames();
  const rp = ourClient(base);
  const session = await frames.duckdb();
  return runPhases({
    load: async () => {
      await into(frames, rp, session);
      const groups = await session.queryColumns(GROUP_SQL);
      return { notional: groups.data.notional, trades: groups.data.trades };
    },
    sort: async () => {
      await session.run(SORT_SQL);
      const n = await session.queryColumns("select count(*) as n from sorted");
      return Number(n.data.n[0]);
    },
    filter: async () => {
      const rows = await session.queryColumns(FILTER_SQL, frames.plainColumns ? { typed: true } : {});
      return filterCheck(rows.data.counterparty, rows.data.notional);
    },
  });
}

/** ours: the column table from the client's lean fetch, registered in the session (JSON.parse, adapter, appender). */
const oursDuckdb = (base) =>
  oursSql(base, async (frames, rp, session) =>
    session.register("trades", await frames.fetchTransactionTableColumns(rp, REQUEST)),
  );

/** ours: the body straight into the session by DuckDB's JSON reader, when the built package has that verb. */
const oursJsonDuckdb = (base) =>
  oursSql(base, (frames, rp, session) => frames.fetchTransactionTableToDuckDB(rp, REQUEST, session, "trades"));

/** ours: the client's lean fetch into a danfo DataFrame (danfo as the package corrects it). */
async function oursDanfo(base) {
  const frames = loadFrames();
  frames.loadDanfo();
  const rp = ourClient(base);
  let df;
  let sorted;
  return runPhases({
    load: async () => {
      df = await frames.fetchTransactionTable(rp, REQUEST);
      const g = df.groupby(["counterparty", "currency"]).agg({ notional: ["sum", "count"] });
      return { notional: g["notional_sum"].values, trades: g["notional_count"].values };
    },
    sort: () => {
      sorted = df.sortValues(["counterparty", "notional"], { ascending: [true, false] });
      return sorted.shape[0];
    },
    filter: () => {
      const f = sorted.query(sorted["notional"].gt(THRESHOLD));
      return filterCheck(f["counterparty"].values, f["notional"].values);
    },
  });
}

async function arquero(base) {
  const aq = await import("arquero");
  let t;
  let sorted;
  return runPhases({
    load: async () => {
      const body = await (await post(base + TABLE_PATH)).text();
      t = aq.fromJSON(JSON.parse(body).data_table);
      const g = t
        .groupby("counterparty", "currency")
        .rollup({ notional: aq.op.sum("notional"), trades: aq.op.count() });
      return { notional: g.array("notional"), trades: g.array("trades") };
    },
    sort: () => {
      sorted = t.orderby("counterparty", aq.desc("notional")).reify();
      return sorted.numRows();
    },
    filter: () => {
      const f = sorted.filter(aq.escape((d) => d.notional > THRESHOLD)).reify();
      return filterCheck(f.array("counterparty"), f.array("notional"));
    },
  });
}

async function polars(base) {
  const pl = repoRequire("nodejs-polars");
  const isoDate = (name) => pl.col(name).str.strptime(pl.Datetime("ms"), "%Y-%m-%dT%H:%M:%S%z");
  let df;
  let sorted;
  return runPhases({
    load: async () => {
      const body = Buffer.from(await (await post(base + TABLE_PATH)).arrayBuffer());
      df = pl
        .readJSON(body)
        .select(pl.col("data_table").explode())
        .unnest("data_table")
        .withColumns(isoDate("trade_date"), isoDate("settlement_date"));
      const g = df
        .groupBy(["counterparty", "currency"])
        .agg(pl.col("notional").sum(), pl.col("notional").count().alias("trades"));
      return { notional: g.getColumn("notional").toArray(), trades: g.getColumn("trades").toArray() };
    },
    sort: () => {
      sorted = df.sort(["counterparty", "notional"], [false, true]);
      return sorted.height;
    },
    filter: () => {
      const f = sorted.filter(pl.col("notional").gt(THRESHOLD));
      return filterCheck(f.getColumn("counterparty").head(1).toArray(), f.getColumn("notional").toArray());
    },
  });
}

/** The body (or the bare rows) spooled to a file in `dir`, as a DuckDB user would before `read_json`. */
async function spool(url, file, method) {
  const res = method === "GET" ? await fetch(url) : await post(url);
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}`);
  await pipeline(Readable.fromWeb(res.body), createWriteStream(file));
}

/** DuckDB alone (its node API), on the body or on the bare row array. */
async function duckdbAlone(base, dir, bare) {
  const { DuckDBInstance } = repoRequire("@duckdb/node-api");
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  const file = join(dir, `${bare ? "rows" : "body"}-${process.pid}.json`);
  const read = async (sql) => (await connection.runAndReadAll(sql)).getColumnsObjectJS();
  try {
    return await runPhases({
      load: async () => {
        await spool(base + (bare ? ROWS_PATH : TABLE_PATH), file, bare ? "GET" : "POST");
        const size = statSync(file).size;
        await connection.run(
          bare
            ? `create table trades as select * from read_json('${file}')`
            : `create table trades as select unnest(data_table, recursive := true) from read_json('${file}', maximum_object_size = ${size + MB})`,
        );
        rmSync(file);
        const g = await read(GROUP_SQL);
        return { notional: g.notional, trades: g.trades };
      },
      ...(bare
        ? {}
        : {
            sort: async () => {
              await connection.run(SORT_SQL);
              return Number((await read("select count(*) as n from sorted")).n[0]);
            },
            filter: async () => {
              const rows = await read(FILTER_SQL);
              return filterCheck(rows.counterparty, rows.notional);
            },
          }),
    });
  } finally {
    rmSync(file, { force: true });
    connection.closeSync();
  }
}

const NODE_CHILDREN = {
  "ours-duckdb": oursDuckdb,
  "ours-json-duckdb": oursJsonDuckdb,
  "ours-danfo": oursDanfo,
  arquero,
  polars,
  "duckdb-body": (base, dir) => duckdbAlone(base, dir, false),
  "duckdb-array": (base, dir) => duckdbAlone(base, dir, true),
};

/** pandas' child: the same phases and figures, printed as one JSON line. */
const PANDAS_SCRIPT = String.raw`
import json, resource, sys, time, urllib.request
import pandas as pd

url, threshold = sys.argv[1], float(sys.argv[2])
def peak(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
def clock(): return (time.perf_counter(), time.process_time())
def since(c):
    w, p = clock()
    return {"ms": (w - c[0]) * 1000, "cpuMs": (p - c[1]) * 1000}
def groups(g): return {"notional": g["notional"].tolist(), "trades": g["trades"].tolist()}

c = clock()
request = urllib.request.Request(url, data=json.dumps(${JSON.stringify(REQUEST)}).encode(), method="POST",
                                 headers={"content-type": "application/json"})
with urllib.request.urlopen(request) as res: body = res.read()
df = pd.DataFrame.from_records(json.loads(body)["data_table"])
del body
for name in ("trade_date", "settlement_date"): df[name] = pd.to_datetime(df[name], utc=True)
g = df.groupby(["counterparty", "currency"], sort=False).agg(notional=("notional", "sum"), trades=("notional", "size"))
load, peak_group_by, g = since(c), peak(), groups(g)
c = clock()
s = df.sort_values(["counterparty", "notional"], ascending=[True, False], kind="stable")
sort = since(c)
c = clock()
f = s[s["notional"] > threshold]
filt = since(c)
print(json.dumps({"load": load, "sort": sort, "filter": filt, "peakMB": {"groupBy": peak_group_by, "end": peak()},
                  "groups": g, "sorted": len(s), "filtered": len(f), "filteredNotional": float(f["notional"].sum()),
                  "first": [f["counterparty"].iloc[:1].tolist(), f["notional"].iloc[:1].tolist()]}))
`;

// ---------------------------------------------------------------------------------------------
// The parent
// ---------------------------------------------------------------------------------------------

/** The first Python that imports pandas, with pandas' version; null when there is none. */
async function findPandas() {
  const candidates = [process.env.PEERS_BENCH_PYTHON, "/usr/bin/python3", "python3"].filter(Boolean);
  for (const python of candidates) {
    try {
      const { stdout } = await promisifiedExecFile(python, ["-c", "import pandas; print(pandas.__version__)"]);
      return { python, version: stdout.trim() };
    } catch {
      // not this one
    }
  }
  return null;
}

function promisifiedExecFile(file, args, options = {}) {
  return new Promise((resolve, reject) =>
    execFile(file, args, { encoding: "utf8", maxBuffer: 256 * MB, ...options }, (error, stdout, stderr) =>
      error ? reject(Object.assign(error, { stderr })) : resolve({ stdout, stderr }),
    ),
  );
}

/** One run of one variant in a child process of its own; its figures. */
async function runChild(variant, base, dir, pandas) {
  const options = { cwd: REPO_ROOT, timeout: 60 * 60_000 };
  if (variant.python) {
    const { stdout } = await promisifiedExecFile(
      pandas.python,
      ["-c", PANDAS_SCRIPT, base + TABLE_PATH, String(THRESHOLD)],
      options,
    );
    const r = JSON.parse(stdout.trim().split("\n").pop());
    const { filtered, filteredNotional } = r;
    const check = {
      ...groupCheck(r.groups),
      sorted: r.sorted,
      filtered,
      filteredNotional,
      first: filterCheck(...r.first).first,
    };
    return { load: r.load, sort: r.sort, filter: r.filter, peakMB: r.peakMB, check };
  }
  const { stdout } = await promisifiedExecFile(
    process.execPath,
    [SCRIPT, `--child=${variant.key}`, base, dir],
    options,
  );
  return JSON.parse(stdout.trim().split("\n").pop());
}

/** The simulator's answer for ROWS transactions, spooled to `file` once; its size and row array's byte range. */
async function spoolSimulatorBody(file) {
  const { startSimulator } = repoRequire(join(REPO_ROOT, "dist", "sim", "index.js"));
  const sim = await startSimulator({ transactionRows: ROWS });
  try {
    const res = await fetch(sim.url + TABLE_PATH, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": sim.credentials.apiKey },
      body: JSON.stringify(REQUEST),
    });
    if (!res.ok) throw new Error(`the simulator answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    await pipeline(Readable.fromWeb(res.body), createWriteStream(file));
  } finally {
    await sim.close();
  }
  return { bytes: statSync(file).size, array: await rowArrayRange(file) };
}

/** Where the body's row array starts and ends (inclusive), from its first and last bytes: `{"data_table":[…]}`. */
async function rowArrayRange(file) {
  const size = statSync(file).size;
  const read = async (start, end) => {
    const chunks = [];
    for await (const chunk of createReadStream(file, { start, end })) chunks.push(chunk);
    return Buffer.concat(chunks).toString("latin1");
  };
  const tailStart = Math.max(0, size - 64);
  const head = await read(0, Math.min(size, 64) - 1);
  const tail = await read(tailStart, size - 1);
  if (!head.startsWith('{"data_table":[') || !/\]\}\s*$/.test(tail))
    throw new Error(`the simulator's body is not {"data_table":[…]}: it starts ${JSON.stringify(head)}`);
  return { start: head.indexOf("["), end: tailStart + tail.lastIndexOf("]") };
}

/** Serves the spooled body to POST …/GetTransactionTable and its bare row array to GET /rows. */
async function serveBody(file, array, bytes) {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const bare = req.url === ROWS_PATH;
      if (!bare && !req.url.endsWith("GetTransactionTable")) {
        res.writeHead(404).end();
        return;
      }
      const range = bare ? array : { start: 0, end: bytes - 1 };
      res.writeHead(200, { "content-type": "application/json", "content-length": range.end - range.start + 1 });
      createReadStream(file, range).pipe(res);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { base: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** Every round runs each variant once, starting one variant later than the round before. */
async function runRounds(variants, base, dir, pandas, log) {
  const runs = Object.fromEntries(variants.map((v) => [v.key, []]));
  const loads = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(r + k) % variants.length];
      const result = await runChild(variant, base, dir, pandas);
      runs[variant.key].push(result);
      log(
        `  round ${r + 1}/${ROUNDS} ${variant.key}: ${["load", "sort", "filter"]
          .filter((p) => result[p])
          .map((p) => `${p} ${seconds(result[p].ms)}`)
          .join(", ")}; peak ${megabytes(result.peakMB.end)}`,
      );
    }
    loads.push(loadAverage());
    log(`  load average after round ${r + 1}: ${loads.at(-1).join(" ")}`);
  }
  return { runs, loads };
}

const loadAverage = () => os.loadavg().map((x) => round(x, 2));
const seconds = (ms) => `${ms < 10_000 ? (ms / 1000).toFixed(2) : (ms / 1000).toFixed(1)} s`;
const megabytes = (mb) => `${Math.round(mb).toLocaleString("en-US")} MB`;

/** Medians over the runs of one variant (wall and CPU ms per phase, peak RSS). */
function medians(runs) {
  const of = (f) => median(runs.map(f));
  const out = {};
  for (const p of ["load", "sort", "filter"])
    if (runs[0][p]) out[p] = { ms: of((r) => r[p].ms), cpuMs: of((r) => r[p].cpuMs) };
  out.peakMB = { groupBy: of((r) => r.peakMB.groupBy), end: of((r) => r.peakMB.end) };
  return out;
}

/**
 * The checks of all runs against the first run of the first variant: the same groups, rows and filtered rows
 * (exactly), and Σ notional within 1e-9 relative (summation order differs between engines).
 */
function agreement(runs) {
  const all = Object.entries(runs).flatMap(([key, rs]) => rs.map((r) => ({ key, check: r.check })));
  const ref = all[0].check;
  const refFull = all.find((x) => x.check.sorted !== undefined)?.check ?? ref;
  const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  const problems = [];
  for (const { key, check } of all) {
    if (check.groups !== ref.groups || check.rows !== ref.rows || !close(check.notional, ref.notional))
      problems.push(`${key}: group-by ${JSON.stringify(check)} ≠ ${JSON.stringify(ref)}`);
    if (check.sorted === undefined) continue;
    const same =
      check.sorted === refFull.sorted &&
      check.filtered === refFull.filtered &&
      check.first === refFull.first &&
      close(check.filteredNotional, refFull.filteredNotional);
    if (!same) problems.push(`${key}: sort/filter ${JSON.stringify(check)} ≠ ${JSON.stringify(refFull)}`);
  }
  return { ok: problems.length === 0, problems, reference: refFull };
}

/** The markdown table in the issue's shape: ratios to the best peer of each column. */
function markdownTable(variants, figures, columns) {
  const peers = variants.filter((v) => v.peer);
  const best = (get) => Math.min(...peers.map((v) => get(figures[v.key])).filter((x) => Number.isFinite(x)));
  const cell = (value, bestValue, format) => {
    if (!Number.isFinite(value)) return "";
    if (!Number.isFinite(bestValue) || value === bestValue) return format(value);
    return `${format(value)} (${(value / bestValue).toFixed(2)}×)`;
  };
  const bests = columns.map(({ get }) => best(get));
  const lines = [
    `| variant | ${columns.map((c) => c.title).join(" | ")} |`,
    `|---|${columns.map(() => "---|").join("")}`,
  ];
  for (const v of variants) {
    const f = figures[v.key];
    const cells = columns.map(({ get, format }, i) => cell(get(f), bests[i], format));
    lines.push(`| ${v.label}${v.key === "pandas" ? ` ${f.version}` : ""} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

/** The issue's table: wall time of each phase and peak RSS. */
const WALL_COLUMNS = [
  { title: "JSON → group-by", get: (f) => f.load?.ms, format: seconds },
  { title: "sort", get: (f) => f.sort?.ms, format: seconds },
  { title: "filter after sort (rows back in JS)", get: (f) => f.filter?.ms, format: seconds },
  { title: "peak RSS", get: (f) => f.peakMB.end, format: megabytes },
  { title: "peak RSS to the group-by", get: (f) => f.peakMB.groupBy, format: megabytes },
];

/** CPU time (all the child's threads) of each phase: steadier than wall time on a busy machine. */
const CPU_COLUMNS = [
  { title: "CPU: JSON → group-by", get: (f) => f.load?.cpuMs, format: seconds },
  { title: "CPU: sort", get: (f) => f.sort?.cpuMs, format: seconds },
  { title: "CPU: filter after sort", get: (f) => f.filter?.cpuMs, format: seconds },
];

/**
 * The variants to run: all, or those PEERS_BENCH_VARIANTS names; pandas only when a Python has it; ours only on
 * the verbs the built package has.
 */
function chosenVariants(pandas, log) {
  const names = process.env.PEERS_BENCH_VARIANTS?.split(",").map((s) => s.trim());
  const unknown = (names ?? []).filter((n) => !VARIANTS.some((v) => v.key === n));
  if (unknown.length)
    throw new Error(
      `PEERS_BENCH_VARIANTS: no variant ${unknown.join(", ")} (${VARIANTS.map((v) => v.key).join(", ")})`,
    );
  const chosen = VARIANTS.filter((v) => !names || names.includes(v.key));
  if (!pandas && chosen.some((v) => v.python))
    log("pandas: skipped (no Python with pandas: PEERS_BENCH_PYTHON, /usr/bin/python3, python3)");
  const frames = loadFrames();
  for (const v of chosen.filter((v) => v.needs && typeof frames[v.needs] !== "function"))
    log(`${v.key}: skipped (dist/frames has no ${v.needs})`);
  return chosen.filter((v) => (!v.python || pandas) && (!v.needs || typeof frames[v.needs] === "function"));
}

async function main() {
  const log = (line) => console.log(line);
  const machine = { node: process.version, cpuModel: os.cpus()[0]?.model ?? "unknown", cpus: os.cpus().length };
  const startedAt = new Date();
  const loadBefore = loadAverage();
  log(
    `peers bench: node ${machine.node} on ${machine.cpuModel} x${machine.cpus}; load average ${loadBefore.join(" ")}`,
  );
  const pandas = await findPandas();
  const variants = chosenVariants(pandas, log);
  const dir = mkdtempSync(join(os.tmpdir(), "rpl-peers-bench-"));
  try {
    const bodyFile = join(dir, "body.json");
    const body = await spoolSimulatorBody(bodyFile);
    log(
      `the simulator's GetTransactionTable for transactionRows ${ROWS.toLocaleString("en-US")}: ${round(body.bytes / 1e6, 1)} MB of JSON; ${ROUNDS} rounds of ${variants.map((v) => v.key).join(", ")}`,
    );
    const server = await serveBody(bodyFile, body.array, body.bytes);
    let rounds;
    try {
      rounds = await runRounds(variants, server.base, dir, pandas, log);
    } finally {
      await server.close();
    }
    const figures = Object.fromEntries(variants.map((v) => [v.key, medians(rounds.runs[v.key])]));
    if (pandas && figures.pandas) figures.pandas.version = pandas.version;
    const check = agreement(rounds.runs);
    const loadAfter = loadAverage();
    const table = markdownTable(variants, figures, WALL_COLUMNS);
    const cpuTable = markdownTable(variants, figures, CPU_COLUMNS);
    log(
      `\n${check.reference.rows.toLocaleString("en-US")} rows, ${round(body.bytes / 1e6, 1)} MB of JSON, 13 columns; ${check.reference.groups} groups; ${check.reference.filtered?.toLocaleString("en-US")} rows after the filter; medians of ${ROUNDS} rounds, interleaved; load average before ${loadBefore.join(" ")}, after ${loadAfter.join(" ")}\n`,
    );
    log(table);
    log(`\nCPU time of the same runs (medians, every thread of the child; ratios to the best peer):\n\n${cpuTable}`);
    log(`\nevery variant agrees (groups, Σ notional, sorted and filtered rows): ${check.ok}`);
    for (const p of check.problems) log(`  ${p}`);
    const record = {
      startedAt: startedAt.toISOString(),
      durationS: round((Date.now() - startedAt.getTime()) / 1000, 1),
      machine,
      loadAverage: { before: loadBefore, afterEachRound: rounds.loads, after: loadAfter },
      rows: check.reference.rows,
      transactionRows: ROWS,
      bodyMB: round(body.bytes / 1e6, 1),
      rounds: ROUNDS,
      pandas,
      figures,
      runs: rounds.runs,
      check,
      table,
      cpuTable,
    };
    log(`\nwrote ${writeResults("peers", record)}`);
    if (!check.ok) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const childArg = process.argv.find((a) => a.startsWith("--child="));
  if (childArg) {
    const result = await NODE_CHILDREN[childArg.slice("--child=".length)](process.argv[3], process.argv[4]);
    process.stdout.write(JSON.stringify(result) + "\n");
    process.exit(0);
  } else {
    await main();
  }
}
