/**
 * Notebook-style walk-through of the local vol model (until the notebooks land): build a surface, look at
 * its arbitrage report, and cross-check it against a `GetVol` service — here a loopback HTTP server on
 * 127.0.0.1 that answers with the same local model, except that it nudges one maturity by 2e-6 in vol
 * and rejects another with a 400 problem-details reply, so the check has something to find.
 *
 * Run: `npm run build && node examples/vol-crosscheck.mjs`. Contacts only 127.0.0.1.
 */
import { createServer } from "node:http";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { RiskPortalClient, vol, STRIKE_TYPE } = require("risk-portal-lab");

const NUDGED_MATURITY = 91;
const NUDGE = 2e-6;
const REJECTED_MATURITY = 182;

// --- a stand-in for the service: GetVol = the local model, with one nudge and one rejection -------------
const problem = (res, detail) => {
  res.writeHead(400, { "content-type": "application/problem+json" });
  res.end(JSON.stringify({ type: "about:blank", title: "Invalid GetVol request", status: 400, detail }));
};
const server = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  if (req.method !== "POST" || req.url !== "/api/Tradable/GetVol") {
    res.writeHead(404).end();
    return;
  }
  const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  if (body.maturity === REJECTED_MATURITY) return problem(res, `maturity ${body.maturity} d: no quotes for this expiry`);
  let vols;
  try {
    vols = Array.from(vol.fromSurface(body.surface).vols(body.maturity, body.strikes, body.strike_type));
  } catch (error) {
    if (error instanceof vol.VolModelError) return problem(res, error.message);
    throw error;
  }
  if (body.maturity === NUDGED_MATURITY) vols = vols.map((v) => v + NUDGE);
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ vols, strike_type: body.strike_type }));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}`;

try {
  // --- cell 1: a surface from an ATM term structure plus skew, smile and wings ----------------------------
  const surface = vol.buildSurface({
    spot: 5321.5,
    referenceDate: "2026-11-20",
    maturities: [30, 91, 182, 365, 730],
    atmVols: [0.24, 0.225, 0.215, 0.205, 0.2],
    forwardRate: 0.025,
    skew: -0.15,
    smile: 0.6,
    putWing: 1.2,
    callWing: 0.7,
  });
  const model = vol.fromSurface(surface);
  console.log("benchmarks (raw SVI):");
  console.table(model.benchmarks.map((b) => ({ maturity: b.maturity, forward: b.forward, vol: b.vol, a: b.a, b: b.b, rho: b.rho, m: b.m, s: b.s })));

  // --- cell 2: static-arbitrage diagnostics ------------------------------------------------------------
  const report = vol.diagnose(model);
  console.log(`arbitrage report: ${report.ok ? "no violations" : "violations found"} on k in [${report.k[0]}, ${report.k.at(-1)}]`);
  for (const v of [...report.butterfly, ...report.calendar, ...report.lee]) console.log(`  ${v.message}`);

  // --- cell 3: local vols on a grid --------------------------------------------------------------------
  const strikes = [80, 90, 100, 110, 120];
  const grid = model.grid([30, 60, 91, 182, 365], strikes, STRIKE_TYPE.PercentForward);
  console.log("\nlocal vols, % of forward:");
  console.table(Array.from(grid.maturities, (d, i) => Object.fromEntries([["maturity", d], ...strikes.map((k, j) => [`${k}%`, Number(grid.vols[i * strikes.length + j].toFixed(6))])])));

  // --- cell 4: cross-check against the service ------------------------------------------------------------
  const rp = new RiskPortalClient({ baseUrl, auth: { apiKey: "example-key-0000" }, retry: false });
  const check = await vol.crossCheck(rp, surface, {
    maturities: [30, 60, NUDGED_MATURITY, REJECTED_MATURITY, 365],
    strikes,
    strikeType: STRIKE_TYPE.PercentForward,
    concurrency: 2,
    onProgress: (done, total) => console.log(`cross-check: ${done}/${total} maturities`),
  });
  console.log("\nrows (service vs local):");
  console.table(check.rows.map((r) => ({ ...r, error: r.error ? `${r.error.slice(0, 60)}…` : undefined })));
  console.log(vol.formatSummary(check));
  const flaggedOk = check.rows.filter((r) => r.flagged && r.service_vol !== null).every((r) => r.maturity === NUDGED_MATURITY);
  const failedOk = check.summary.failed.length === 1 && check.summary.failed[0].maturity === REJECTED_MATURITY;
  console.log(`\nfound the nudge only at ${NUDGED_MATURITY} d: ${flaggedOk}; the rejection only at ${REJECTED_MATURITY} d: ${failedOk}`);
  if (!flaggedOk || !failedOk) process.exitCode = 1;
} finally {
  server.close();
}
