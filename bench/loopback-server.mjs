/**
 * The loopback server of the throughput benchmark (bench/throughput.mjs forks it with `--serve`).
 *
 * Listens on 127.0.0.1, port 0, and answers from pre-serialised buffers so the server does as little
 * work per request as possible:
 *   POST /api/RateAsset         → a EUR discount curve of 20 points (the shape of `curveReply` in
 *                                 test/helpers/samples.ts), after reading the request body;
 *   GET  /api/Report/LookBacks  → { look_backs: [...] };
 *   anything else               → 404 problem details.
 * It reports `{ port }` to its parent over IPC, answers `{ served, cpu }` when asked for "stats", and exits
 * when the parent says "stop" or disconnects (so it can never outlive the benchmark).
 */
import { createServer } from "node:http";

/** 20 curve points from 1 month to 30 years, with plausible EUR rates and fitted instruments. */
export function curveReply() {
  const tenors = [
    ["1M", 1 / 12],
    ["2M", 2 / 12],
    ["3M", 0.25],
    ["6M", 0.5],
    ["9M", 0.75],
    ["1Y", 1],
    ["18M", 1.5],
    ["2Y", 2],
    ["3Y", 3],
    ["4Y", 4],
    ["5Y", 5],
    ["6Y", 6],
    ["7Y", 7],
    ["8Y", 8],
    ["9Y", 9],
    ["10Y", 10],
    ["12Y", 12],
    ["15Y", 15],
    ["20Y", 20],
    ["30Y", 30],
  ];
  const marketDate = Date.UTC(2026, 10, 19);
  const data = tenors.map(([label, years]) => {
    const rate = Number((0.0291 - (0.0045 * Math.min(years, 2)) / 2 + 0.0006 * Math.log1p(years)).toFixed(5));
    const expiry = new Date(marketDate + Math.round(years * 365.25) * 86_400_000).toISOString().slice(0, 10);
    return {
      maturity: Number(years.toFixed(4)),
      rate,
      fitted_instrument_name: years < 1 ? `EUR DEPO ${label}` : `EUR SWAP ${label}`,
      expiry: `${expiry}T00:00:00+00:00`,
      fitted_instrument_rate: Number((rate + 0.0001).toFixed(5)),
    };
  });
  return {
    $type: "Service.Web.Core.MarketData.ApiGetDiscountCurveMktDataResponse, Service.Web.Core",
    yield_curve_model: {
      latest_market_date: "2026-11-20T00:00:00+00:00",
      currency: "EUR",
      market_date: "2026-11-19T00:00:00+00:00",
      data,
    },
  };
}

function start() {
  const routes = new Map([
    ["POST /api/RateAsset", Buffer.from(JSON.stringify(curveReply()))],
    ["GET /api/Report/LookBacks", Buffer.from(JSON.stringify({ look_backs: ["6M", "1Y", "2Y", "5Y"] }))],
  ]);
  const notFound = Buffer.from(JSON.stringify({ title: "no route in the bench server", status: 404 }));
  let served = 0;

  // The last request's body, for the benchmark's check that every variant sends the same request.
  let lastBody = "";
  const server = createServer((req, res) => {
    // Read the body before answering, as a real server would.
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      lastBody = Buffer.concat(chunks).toString();
      const body = routes.get(`${req.method} ${req.url}`);
      served++;
      res.writeHead(body ? 200 : 404, {
        "content-type": body ? "application/json" : "application/problem+json",
        "content-length": (body ?? notFound).length,
      });
      res.end(body ?? notFound);
    });
  });
  // Idle keep-alive sockets between the interleaved variants must not be closed under the clients' feet.
  server.keepAliveTimeout = 60_000;

  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  };
  process.on("message", (message) => {
    if (message === "stats") process.send?.({ served, cpu: process.cpuUsage(), lastBody });
    else if (message === "stop") stop();
  });
  process.on("disconnect", stop);
  server.listen(0, "127.0.0.1", () => process.send?.({ port: server.address().port }));
}

// Start only when forked with --serve (the benchmark also imports curveReply from here).
if (process.argv.includes("--serve")) start();
