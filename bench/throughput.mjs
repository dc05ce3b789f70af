/**
 * Requests per second through the client vs. bare fetch, over loopback HTTP.
 *
 * What: POST /api/RateAsset (a 20-point EUR curve, ~3 KB of JSON) at a fixed concurrency, four ways:
 *   a. bare cross-fetch: the same POST (same headers and JSON body the client sends), then JSON.parse;
 *   b. RiskPortalClient with `fetch: crossFetch` calling `rateAsset.getCurve` — same transport as (a),
 *      so b vs a is the client's own cost: input validation, auth header, deadline timer and retry
 *      bookkeeping, redaction of the URL for error details, and the zod check of the response;
 *   c. bare globalThis.fetch (undici), as (a);
 *   d. the client with its default fetch (globalThis.fetch), as (b).
 * How: each variant gets WARMUP requests (not counted), then REQUESTS requests by CONCURRENCY workers,
 * with a hard cap of CAP_MS on the measured part; rounds interleave a,b,c,d so machine drift hits all
 * alike, each round starting one variant further on (round 2 runs b,c,d,a), so that no variant always
 * runs first or after the same one, and the report gives the median over rounds. Besides rps it records the client process's CPU
 * time per request (process.cpuUsage), which is less sensitive to the server and to neighbours, and
 * latency percentiles.
 *
 * The server runs in a child process (bench/loopback-server.mjs), not in this one: in-process, every
 * request's server-side work (parsing, routing, writing) would run on the client's event loop and be
 * counted in every variant alike, which dilutes the client's overhead and makes the figure depend on
 * the server. In a child it runs on the other core and the client's event loop only does client work.
 *
 * Knobs (environment): BENCH_CONCURRENCY (16), BENCH_WARMUP (500), BENCH_REQUESTS (5000),
 * BENCH_CAP_MS (20000), BENCH_ROUNDS (3), BENCH_VARIANTS (e.g. "b" or "a,b"; default a,b,c,d; f is (a) with a
 * signal that never aborts, to tell what handing fetch a signal costs; g is (a) using cross-fetch the way
 * the client does — its headers object, a signal, redirect "manual", the body read from the stream and
 * decoded as the client decodes it — so b vs g is the pipeline's own steps, g vs a the transport's use).
 * Before/after in one run: BENCH_BASELINE=<a bundle's index.js> adds variant e, the client of that build
 * with cross-fetch, interleaved with the others (`node bench/baseline.mjs [REV]` builds one from a git
 * revision and prints its path), e.g. BENCH_BASELINE=$(node bench/baseline.mjs HEAD) BENCH_VARIANTS=a,e,b.
 * BENCH_PACKAGE=<a bundle's index.js> runs b and d on that build instead of dist/ (which other work may
 * rebuild mid-run), e.g. BENCH_PACKAGE=$(node bench/baseline.mjs .) for the working tree.
 * Only 127.0.0.1 is contacted; the server child exits when this process stops or disconnects.
 * To profile one variant: `BENCH_VARIANTS=b node --cpu-prof --cpu-prof-dir=/tmp/prof bench/throughput.mjs`
 * (the server child is started without the profiler).
 */
import { isAscii } from "node:buffer";
import { fork } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  BENCH_DIR,
  envInt,
  formatTable,
  isMain,
  loadPackage,
  median,
  quantile,
  repoRequire,
  round,
} from "./common.mjs";

const TOKEN = "bench-token-0000";
/** What the client is asked for... */
const CURVE_INPUT = { currency: "EUR", market_date: "2026-11-20" };
/**
 * ...and what it puts on the wire for it (the request's `$type`, as the published pages show it; date-only
 * becomes midnight UTC); the bare variants send this. The run checks that every variant's body is the same
 * bytes (the loopback server keeps the last one): before that check, the bare variants sent a body 82
 * bytes shorter, without `$type`.
 */
const CURVE_WIRE = {
  $type: "Service.Web.Core.MarketData.ApiGetDiscountCurveMktDataRequest, Service.Web.Core",
  currency: "EUR",
  market_date: "2026-11-20T00:00:00Z",
};
const CURVE_POINTS = 20;

export const VARIANTS = {
  a: "bare cross-fetch",
  b: "client + cross-fetch",
  c: "bare globalThis.fetch",
  d: "client + globalThis.fetch",
  e: "baseline client + cross-fetch",
  f: "bare cross-fetch + a signal",
  g: "bare cross-fetch, the client's way",
};

/** Overheads reported: the client over the bare fetch with the same transport (and this build over the baseline's). */
export const PAIRS = [
  ["b", "a"],
  ["e", "a"],
  ["b", "e"],
  ["f", "a"],
  ["g", "a"],
  ["b", "g"],
  ["d", "c"],
];

export function settingsFromEnv() {
  const baseline = process.env.BENCH_BASELINE || undefined;
  const variants = (process.env.BENCH_VARIANTS ?? (baseline ? "a,e,b,c,d" : "a,b,c,d"))
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v in VARIANTS && (v !== "e" || baseline));
  return {
    concurrency: envInt("BENCH_CONCURRENCY", 16),
    warmup: envInt("BENCH_WARMUP", 500),
    requests: envInt("BENCH_REQUESTS", 5000),
    capMs: envInt("BENCH_CAP_MS", 20_000),
    rounds: envInt("BENCH_ROUNDS", 3),
    variants: variants.length ? variants : ["a", "b", "c", "d"],
    baseline,
  };
}

/** Starts the loopback server child and resolves once it listens. */
function startServer() {
  const child = fork(join(BENCH_DIR, "loopback-server.mjs"), ["--serve"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: [],
  });
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("bench server did not start within 10 s")), 10_000);
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`bench server exited early (code ${code})`)));
    child.once("message", (m) => {
      clearTimeout(timer);
      resolve(m.port);
    });
  });
  const ask = () =>
    new Promise((resolve) => {
      child.once("message", resolve);
      child.send("stats");
    });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      const timer = setTimeout(() => child.kill(), 2000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      child.send("stop");
    });
  return ready.then((port) => ({ url: `http://127.0.0.1:${port}`, stats: ask, stop, child }));
}

/** One call per variant; each resolves with the parsed curve reply. */
function makeCalls(baseUrl, baseline) {
  const { RiskPortalClient } = process.env.BENCH_PACKAGE ? repoRequire(process.env.BENCH_PACKAGE) : loadPackage();
  const Baseline = baseline ? repoRequire(baseline).RiskPortalClient : undefined;
  const crossFetch = repoRequire("cross-fetch");
  const url = `${baseUrl}/api/RateAsset`;
  // One controller that never aborts: what handing fetch a signal costs, without a timer.
  const never = new AbortController().signal;
  const bare = (fetchImpl, signal) => async () => {
    const response = await fetchImpl(url, {
      signal,
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(CURVE_WIRE),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 200)}`);
    return JSON.parse(text);
  };
  const viaClient = (options, Client = RiskPortalClient) => {
    const rp = new Client({ baseUrl, auth: { token: TOKEN }, ...options });
    return () => rp.rateAsset.getCurve(CURVE_INPUT);
  };
  return {
    a: bare(crossFetch),
    b: viaClient({ fetch: crossFetch }),
    c: bare(globalThis.fetch),
    d: viaClient({}),
    ...(Baseline ? { e: viaClient({ fetch: crossFetch }, Baseline) } : {}),
    f: bare(crossFetch, never),
    g: clientsWay(crossFetch, url, never),
  };
}

const JSON_TYPE = /^\s*(application\/([\w.+-]*\+)?json|text\/json)\s*(;|$)/i;

/**
 * A POST through `fetchImpl` as the client's pipeline makes it, without the pipeline: a fresh headers
 * object, a signal, redirect "manual", the Content-Type checked, the body read from node-fetch's stream
 * by its events and decoded as Latin-1 when it is ASCII (the client's decodeUtf8), then JSON.parse.
 */
function clientsWay(fetchImpl, url, signal) {
  const body = JSON.stringify(CURVE_WIRE);
  return async () => {
    const headers = { accept: "application/json", "content-type": "application/json" };
    headers.authorization = `Bearer ${TOKEN}`;
    const response = await fetchImpl(url, { method: "POST", headers, body, signal, redirect: "manual" });
    if (!response.ok || !JSON_TYPE.test(response.headers.get("content-type") ?? "")) {
      throw new Error(`HTTP ${response.status}, ${response.headers.get("content-type")}`);
    }
    const bytes = await new Promise((resolve, reject) => {
      const chunks = [];
      response.body.on("data", (chunk) => chunks.push(chunk));
      response.body.on("end", () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
      response.body.on("error", reject);
    });
    return JSON.parse(
      isAscii(bytes) ? bytes.toString("latin1") : new TextDecoder("utf-8", { fatal: true }).decode(bytes),
    );
  };
}

/** A run that has not finished this long after its cap is stalled (a request that never answers). */
const STALL_GRACE_MS = 10_000;

/**
 * Runs `total` calls with `concurrency` workers; no new call starts after `capMs`, and the run fails if
 * the calls in flight have not finished `STALL_GRACE_MS` later (the bare variants have no timeout of
 * their own: giving them an AbortSignal would change what is measured).
 */
async function drive(call, { total, concurrency, capMs }) {
  const latencies = new Float64Array(total);
  let issued = 0;
  let completed = 0;
  let failure;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + capMs;
  const worker = async () => {
    while (failure === undefined && issued < total && performance.now() < deadline) {
      const i = issued++;
      const start = performance.now();
      try {
        await call();
      } catch (error) {
        failure ??= error;
        return;
      }
      latencies[i] = performance.now() - start;
      completed++;
    }
  };
  let stallTimer;
  const stalled = new Promise((_, reject) => {
    stallTimer = setTimeout(
      () =>
        reject(new Error(`run stalled: ${issued - completed} requests unanswered ${STALL_GRACE_MS} ms after the cap`)),
      capMs + STALL_GRACE_MS,
    );
  });
  try {
    await Promise.race([Promise.all(Array.from({ length: concurrency }, worker)), stalled]);
  } finally {
    clearTimeout(stallTimer);
  }
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  if (failure !== undefined) throw failure;
  const done = latencies.subarray(0, completed);
  return {
    completed,
    capped: completed < total,
    elapsedMs,
    rps: completed / (elapsedMs / 1000),
    clientCpuUsPerReq: (cpu.user + cpu.system) / completed,
    clientSysUsPerReq: cpu.system / completed,
    p50Ms: quantile(done, 0.5),
    p99Ms: quantile(done, 0.99),
  };
}

/**
 * Checks one reply of each variant before timing anything (a fast wrong answer is no result), and that it
 * sent the same body as the bare variant (the server says what it last received).
 */
async function checkReply(name, call, server) {
  const reply = await call();
  const points = reply?.yield_curve_model?.data;
  if (!Array.isArray(points) || points.length !== CURVE_POINTS || reply.yield_curve_model.currency !== "EUR") {
    throw new Error(`variant ${name} got an unexpected reply: ${JSON.stringify(reply).slice(0, 200)}`);
  }
  const { lastBody } = await server.stats();
  if (lastBody !== JSON.stringify(CURVE_WIRE)) {
    throw new Error(`variant ${name} sent another request body than the bare variants: ${lastBody.slice(0, 300)}`);
  }
}

/** Runs the benchmark; returns figures (progress goes to `log`). */
export async function measureThroughput(settings = settingsFromEnv(), log = () => {}) {
  const { concurrency, warmup, requests, capMs, rounds, variants } = settings;
  const server = await startServer();
  try {
    const calls = makeCalls(server.url, settings.baseline);
    for (const v of variants) await checkReply(v, calls[v], server);
    const runs = Object.fromEntries(variants.map((v) => [v, []]));
    for (let round_ = 1; round_ <= rounds; round_++) {
      for (const v of roundOrder(variants, round_)) {
        await drive(calls[v], { total: warmup, concurrency, capMs: Math.min(capMs, 10_000) });
        const before = await server.stats();
        const run = await drive(calls[v], { total: requests, concurrency, capMs });
        const after = await server.stats();
        const serverCpuUs = after.cpu.user + after.cpu.system - (before.cpu.user + before.cpu.system);
        run.serverCpuUsPerReq = serverCpuUs / (after.served - before.served);
        runs[v].push(run);
        log(
          `  round ${round_}/${rounds}  ${v}. ${VARIANTS[v].padEnd(26)} ${round(run.rps, 0).toString().padStart(6)} req/s` +
            (run.capped ? `  (capped at ${capMs} ms: ${run.completed} done)` : ""),
        );
      }
    }
    return summariseRuns(settings, runs);
  } finally {
    await server.stop();
  }
}

/** The variants in round `round_`'s order (1-based): each round starts one variant further on. */
export function roundOrder(variants, round_) {
  const shift = (round_ - 1) % variants.length;
  return [...variants.slice(shift), ...variants.slice(0, shift)];
}

function summariseRuns(settings, runs) {
  const variants = {};
  for (const [v, list] of Object.entries(runs)) {
    const rpsList = list.map((r) => r.rps);
    variants[v] = {
      name: VARIANTS[v],
      rpsMedian: median(rpsList),
      rpsPerRound: rpsList,
      rpsSpreadPct: ((Math.max(...rpsList) - Math.min(...rpsList)) / median(rpsList)) * 100,
      clientCpuUsPerReq: median(list.map((r) => r.clientCpuUsPerReq)),
      clientSysUsPerReq: median(list.map((r) => r.clientSysUsPerReq)),
      serverCpuUsPerReq: median(list.map((r) => r.serverCpuUsPerReq)),
      p50Ms: median(list.map((r) => r.p50Ms)),
      p99Ms: median(list.map((r) => r.p99Ms)),
      capped: list.some((r) => r.capped),
    };
  }
  const overheads = PAIRS.filter(([c, b]) => variants[c] && variants[b]).map(([client, bare]) => {
    const perRound = runs[client].map((r, i) => (1 - r.rps / runs[bare][i].rps) * 100);
    return {
      client,
      bare,
      label: `${client} vs ${bare}`,
      // Throughput lost through the client: 1 − rps(client)/rps(bare), on the medians.
      rpsOverheadPct: (1 - variants[client].rpsMedian / variants[bare].rpsMedian) * 100,
      rpsOverheadPctPerRound: perRound,
      // The same, paired within each round (both variants ran back to back), median over rounds.
      rpsOverheadPctPairedMedian: median(perRound),
      // Extra CPU the client process spends per request.
      cpuOverheadPct: (variants[client].clientCpuUsPerReq / variants[bare].clientCpuUsPerReq - 1) * 100,
      cpuExtraUsPerReq: variants[client].clientCpuUsPerReq - variants[bare].clientCpuUsPerReq,
      // The same, paired within each round, median over rounds (steadier on a shared machine).
      cpuOverheadPctPairedMedian: median(
        runs[client].map((r, i) => (r.clientCpuUsPerReq / runs[bare][i].clientCpuUsPerReq - 1) * 100),
      ),
    };
  });
  return { settings, variants, overheads };
}

const signed = (x) => (x >= 0 ? `+${x}` : `${x}`);

/** Readable report of {@link measureThroughput}'s result. */
export function formatThroughput(r) {
  const s = r.settings;
  const rows = Object.entries(r.variants).map(([v, x]) => [
    `${v}. ${x.name}`,
    round(x.rpsMedian, 0),
    x.rpsPerRound.map((n) => round(n, 0)).join(" / "),
    `${round(x.rpsSpreadPct, 1)}%`,
    round(x.clientCpuUsPerReq, 0),
    round(x.clientSysUsPerReq, 0),
    round(x.serverCpuUsPerReq, 0),
    round(x.p50Ms, 2),
    round(x.p99Ms, 2),
  ]);
  const lines = [
    `throughput: POST /api/RateAsset (20-point curve), concurrency ${s.concurrency}, ${s.requests} requests x ${s.rounds} rounds (warm-up ${s.warmup}, cap ${s.capMs} ms)`,
    formatTable(
      [
        "variant",
        "req/s (median)",
        "per round",
        "spread",
        "client CPU us/req",
        "of which system",
        "server CPU us/req",
        "p50 ms",
        "p99 ms",
      ],
      rows,
    ),
  ];
  for (const o of r.overheads) {
    const perRound = o.rpsOverheadPctPerRound.map((p) => round(p, 1)).join(" / ");
    lines.push(
      `=> ${o.label}: ${round(o.rpsOverheadPct, 1)}% fewer req/s (per round ${perRound}; paired median ${round(o.rpsOverheadPctPairedMedian, 1)}); ` +
        `${signed(round(o.cpuExtraUsPerReq, 0))} us client CPU per request (${signed(round(o.cpuOverheadPct, 1))}%; paired median ${signed(round(o.cpuOverheadPctPairedMedian, 1))}%)`,
    );
  }
  if (Object.values(r.variants).some((x) => x.capped))
    lines.push("note: some runs hit the time cap; their rps is over the requests completed.");
  return lines.join("\n");
}

if (isMain(import.meta.url)) {
  const result = await measureThroughput(settingsFromEnv(), (line) => console.log(line));
  console.log(formatThroughput(result));
}
