#!/usr/bin/env node
/**
 * The chart pictures of docs/charts.md: starts the simulator, fetches its data through the client and frames,
 * builds one figure of each kind and writes docs/images/<kind>.png (900×500 unless the chart needs
 * more, rendered by plotly.js in headless Chromium, see plot.toPng).
 *
 *   npm run build && node scripts/readme-images.mjs [outDir]
 *
 * Needs Chromium (bash scripts/setup-chromium.sh). Deterministic: the simulator's data is seeded.
 *
 * One picture is staged: the simulator's GetVol IS the local model, so a real cross-check against it
 * is all zeros. For the heatmap picture the check runs through a small proxy that plays a service
 * drifting from the model (short-dated wings off by a few 1e−8, one maturity rejected), and the
 * chart's title says so.
 */
import { createServer } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const pkg = require(path.join(root, "dist"));
// The whole plot and frames folders (risk-portal-lab/plot, /frames): the script uses pngRenderer and the
// column-table forms, which the root's namespaces leave out.
const plot = require(path.join(root, "dist/subpath/plot.js"));
const frames = require(path.join(root, "dist/subpath/frames.js"));
const { vol, RiskPortalClient, startSimulator, STRIKE_TYPE } = pkg;

const outDir = path.resolve(root, process.argv[2] ?? "docs/images");
const AS_OF = "2026-11-20";

/** Calendar dates `step` days apart, ending on `end`, oldest first. */
function datesBack(end, count, step) {
  const t = Date.parse(`${end}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) =>
    new Date(t - (count - 1 - i) * step * 86_400_000).toISOString().slice(0, 10),
  );
}

/** Weekdays only (report pricing dates). */
function businessDaysBack(end, count) {
  const out = [];
  for (let t = Date.parse(`${end}T00:00:00Z`); out.length < count; t -= 86_400_000) {
    const d = new Date(t);
    if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) out.unshift(d.toISOString().slice(0, 10));
  }
  return out;
}

/**
 * A proxy in front of the simulator that plays a service drifting from the local model: GetVol vols
 * for maturities up to 30 days are shifted by 4e−8 × (strike − 100) / 30 (only the wings cross the
 * 1e−8 tolerance), and maturity 547 is rejected with a 400 problem. Everything else passes untouched.
 */
async function driftingProxy(target) {
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    const headers = { ...req.headers };
    delete headers.host;
    delete headers["content-length"];
    const isGetVol = req.url.startsWith("/api/Tradable/GetVol");
    const request = isGetVol ? JSON.parse(body.toString("utf8")) : undefined;
    if (request?.maturity === 547) {
      res.writeHead(400, { "content-type": "application/problem+json" });
      res.end(
        JSON.stringify({
          type: "about:blank",
          title: "Bad Request",
          status: 400,
          detail: "No benchmark data for maturity 547 (demo)",
        }),
      );
      return;
    }
    const upstream = await fetch(target + req.url, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
    });
    let text = await upstream.text();
    if (isGetVol && upstream.ok && request.maturity <= 30) {
      const reply = JSON.parse(text);
      reply.vols = reply.vols.map((v, j) => v + (4e-8 * (request.strikes[j] - 100)) / 30);
      text = JSON.stringify(reply);
    }
    res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" });
    res.end(text);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const range = (from, to, step) =>
  Array.from({ length: Math.round((to - from) / step) + 1 }, (_, i) => +(from + i * step).toFixed(6));

const started = performance.now();
const sim = await startSimulator();
const png = await plot.pngRenderer();
try {
  const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
  const figures = {};

  // Curves: five currencies today; USD weekly over a year for the history and the surface.
  const today = await frames.fetchYieldCurvesColumns(rp, {
    currencies: ["USD", "EUR", "GBP", "JPY", "CHF"],
    marketDates: [AS_OF],
    progress: "none",
  });
  figures["yield-curve"] = plot.yieldCurve(today);
  const history = await frames.fetchYieldCurvesColumns(rp, {
    currencies: ["USD"],
    marketDates: datesBack(AS_OF, 53, 7),
    progress: "none",
  });
  if (history.failures.length)
    throw new Error(`curve history: ${history.failures.length} calls failed: ${JSON.stringify(history.failures[0])}`);
  figures["curve-history"] = plot.curveHistory(history, { tenors: [0.25, 2, 5, 10, 30] });
  figures["curve-surface"] = plot.curveSurface(history);

  // Vols: the simulator's SPX surface through the local model, and the service cross-check.
  const surface = await (
    await fetch(`${sim.url}/sim/surface?asset=SPX`, { headers: { "x-api-key": sim.credentials.apiKey } })
  ).json();
  const model = vol.fromSurface(surface);
  figures["vol-smiles"] = plot.volSmiles(
    model.grid([30, 61, 91, 182, 365, 730], range(60, 140, 2), STRIKE_TYPE.PercentForward),
  );
  figures["vol-surface"] = plot.volSurface(
    frames.volGridColumns(model.grid(range(14, 730, 22), range(60, 140, 2.5), STRIKE_TYPE.PercentForward)),
  );
  const proxy = await driftingProxy(sim.url);
  try {
    const drifting = new RiskPortalClient({ baseUrl: proxy.url, auth: { apiKey: sim.credentials.apiKey } });
    const check = await vol.crossCheck(drifting, surface, {
      maturities: [7, 30, 61, 91, 182, 273, 365, 547, 730],
      strikes: [70, 80, 90, 95, 100, 105, 110, 120, 130],
    });
    const fig = plot.crossCheckHeatmap(check);
    fig.layout.title.text = fig.layout.title.text.replace(
      "GetVol vs local model",
      "GetVol vs local model (demo: a service drifting from the model)",
    );
    figures["cross-check-heatmap"] = fig;
  } finally {
    await proxy.close();
  }

  // Reports over six weeks of pricing dates.
  const reports = await frames.fetchReportInfosByDateColumns(rp, {
    pricingDates: businessDaysBack(AS_OF, 30),
    progress: "none",
  });
  figures["report-status"] = plot.reportStatus(reports);

  // A portfolio's trades, and what buying the EURO STOXX 50 would do to it.
  const trades = await frames.fetchTransactionTableColumns(rp, { portfolio_name: "GLOBAL-MACRO" });
  figures.transactions = plot.transactions(trades);
  const tradables = await (
    await fetch(`${sim.url}/sim/tradables`, { headers: { "x-api-key": sim.credentials.apiKey } })
  ).json();
  const sx5e = tradables.find((t) => t.id === "SX5E.XEUR");
  const effects = await rp.tradable.positionEffects({
    tradable_id: sx5e.id,
    pricing_date: AS_OF,
    next_trade_event: sx5e.next_trade_event.event,
  });
  // Positions before the event, from the portfolio's trades: units of the index, and the EUR they cost.
  const before = { [sx5e.id]: 0, EUR: 0 };
  for (let i = 0; i < trades.rowCount; i++) {
    if (trades.data.tradable_id[i] === sx5e.id) before[sx5e.id] += trades.data.quantity[i];
    if (trades.data.currency[i] === "EUR") before.EUR -= trades.data.notional[i];
  }
  figures["position-effects"] = plot.positionEffects(effects, {
    before,
    labels: { [sx5e.id]: `${sx5e.name} (units)`, EUR: "EUR cash" },
  });

  for (const [kind, fig] of Object.entries(figures)) {
    const file = await png.toPng(fig, path.join(outDir, `${kind}.png`), { width: 900 });
    console.log(`${path.relative(root, file)}  ${fig.data.length} traces`);
  }
} finally {
  await png.close();
  await sim.close();
}
console.log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
