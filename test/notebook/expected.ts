/**
 * What the showcase notebooks must show, whoever ran them (the headless runner or Jupyter) and wherever
 * their answers came from (the simulator or a cassette); and how two runs of a notebook are compared
 * (outputs identical except for the lines that say where the data came from).
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { Executed, joined, PLOTLY_MIME, root, type Cell } from "./executed";

const PLOTLY_PART_MIME = "application/vnd.risk-portal-lab.plotly-part+json";

export const NOTEBOOK_DIR = path.join(root, "notebooks");
export const CASSETTE_DIR = path.join(root, "fixtures", "cassettes");
/** The showcase notebooks' names (`01-yield-curves`, …), in order. */
export const NOTEBOOKS = readdirSync(NOTEBOOK_DIR)
  .filter((f) => f.endsWith(".ipynb"))
  .sort()
  .map((f) => path.basename(f, ".ipynb"));

/** What each notebook must show, whoever ran it. */
export const EXPECTED: Record<string, (nb: Executed) => void> = {
  "01-yield-curves": (nb) => {
    const today = nb.figures("yc-today");
    expect(today).toHaveLength(1);
    expect(today[0]!.data.map((t) => t.name).sort()).toEqual(["CHF", "EUR", "GBP", "JPY", "USD"]);
    expect(nb.stdout("yc-derived")).toMatch(/^USD curve on 2026-11-20: \d+ points, from USD DEPO 1W to USD SWAP 30Y/);
    expect(nb.html("yc-derived")).toContain("<th>discount_factor</th><th>forward_rate</th>");
    expect(nb.figures("yc-derived-charts").map((f) => f.layout.title?.text)).toEqual([
      "USD forward rates between pillars · 2026-11-20",
      "USD discount factors · 2026-11-20",
    ]);
    const check = /= (0\.\d{6}); frames says (0\.\d{6})/.exec(nb.stdout("yc-derived-check"));
    expect(check?.[1]).toBe(check?.[2]);
    expect(nb.displayText("yc-history")).toMatch(/^yield curves 53\/53 \(100%\)/);
    expect(nb.stdout("yc-history")).toContain("over 53 dates; 0 failed");
    expect(nb.figures("yc-history-chart")[0]!.data).toHaveLength(5);
    // A date slider: "all", then one step per market date.
    const weekly = nb.figures("yc-history-slider")[0]!;
    expect(weekly.layout.sliders?.[0]?.steps).toHaveLength(weekly.data.length + 1);
    expect(weekly.data).toHaveLength(53);
    expect(nb.figures("yc-surface")[0]!.data.map((t) => t.type)).toEqual(["surface"]);
    // console.table quotes strings as the runtime does: '30Y' in Node, "30Y" in Deno. Tenors are read off
    // each date's Curve object, and so is the 2s10s.
    expect(nb.stdout("yc-moves")).toMatch(/change \(bp\)[\s\S]*['"]30Y['"]/);
    expect(nb.stdout("yc-moves")).toMatch(/2s10s: -?\d+\.\d bp on 2025-11-21, -?\d+\.\d bp on 2026-11-20\n/);
    const [spreads, heatmap] = nb.figures("yc-spreads");
    expect(spreads!.layout.title?.text).toMatch(/^2s10s \(10Y − 2Y, zero rates\) · 2025-11-21 to 2026-11-20/);
    expect(spreads!.data[0]!.x).toHaveLength(53);
    expect(heatmap!.data[0]!.type).toBe("heatmap");
    expect(heatmap!.data[0]!.x).toEqual(["3M", "2Y", "5Y", "10Y", "30Y"]);
    // Tenors on the US government bond calendar, T+2 from Friday 2026-11-20: spot Tuesday 11-24, Thanksgiving
    // (11-26) the first closure; 3M lands on 2027-02-24, where the unadjusted 2027-02-20 is a Saturday.
    const rolled = nb.stdout("yc-calendar");
    expect(rolled).toMatch(
      /^USD on US-GOVT: trade 2026-11-20, spot 2026-11-24 \(T\+2\); closed in the next year: 2026-11-26, 2026-12-25, 2027-01-01,/,
    );
    expect(rolled).toMatch(/['"]3M['"]\s*│\s*['"]2027-02-20['"]\s*│\s*['"]2027-02-24['"]\s*│\s*4\s*│/);
    const moved = nb.figures("yc-calendar")[0]!;
    expect(moved.data[0]!.x).toEqual(["ON", "1W", "1M", "3M", "6M", "1Y", "2Y", "5Y", "10Y", "30Y"]);
    expect((moved.data[0]!.y as number[]).every((bp) => Number.isFinite(bp) && Math.abs(bp) < 5)).toBe(true);
  },
  "02-vol-surface-crosscheck": (nb) => {
    const diag = nb.stdout("vs-diag");
    expect(diag).toContain("clean surface: no arbitrage found (0 butterfly, 0 calendar, 0 Lee violations)");
    expect(diag).toMatch(
      /re-marked surface: ARBITRAGE\n\s+✘ butterfly: benchmark 4 \(maturity 182 d\): butterfly g\(k\) < 0/,
    );
    expect(nb.figures("vs-g")[0]!.data).toHaveLength(2);
    // The service and the local model agree exactly: no breach in the heatmap.
    expect(nb.stdout("vs-crosscheck")).toMatch(
      /^13\/13 maturities answered, 117 rows; max \|service − local\| = 0 vol bp .*; 0 beyond ±1 vol bp\n/,
    );
    const clean = nb.figures("vs-crosscheck")[0]!;
    expect(clean.data.find((t) => t.name?.startsWith("beyond"))?.x).toEqual([]);
    // The stale local copy: residuals flagged, in the stdout and as ✕ marks in the heatmap.
    const stale = /^(\d+) of 117 residuals beyond 1 vol bp, in maturities ([\d, ]+) d/.exec(nb.stdout("vs-stale"));
    expect(stale, nb.stdout("vs-stale")).not.toBeNull();
    const flagged = Number(stale![1]);
    expect(flagged).toBeGreaterThan(0);
    expect(stale![2]).toContain("91");
    const heatmap = nb.figures("vs-stale")[0]!;
    expect(heatmap.layout.title?.text).toContain("stale 91-day mark");
    expect(heatmap.data.find((t) => t.name?.startsWith("beyond"))?.x).toHaveLength(flagged);
    expect(nb.figures("vs-smiles")[0]!.data).toHaveLength(9);
    expect(nb.figures("vs-smiles")[0]!.layout.sliders?.[0]?.steps).toHaveLength(10); // all + 9 maturities
    expect(nb.figures("vs-surface")[0]!.data.map((t) => t.type)).toEqual(["surface"]);
    expect(nb.stdout("vs-sim")).toMatch(/^simulator's SPX surface: .*no arbitrage found/);
    // Prices on a 0.05 tick inverted to Black vols: GetVol's back to a fraction of a vol bp near the money,
    // further off only where the tick is a large share of a small wing price.
    expect(nb.stdout("vs-implied")).toMatch(/^SPX 91 d: forward \d+\.\d\d; 9 of 9 strikes quoted at 0\.05 a tick\n/);
    const [getVol, implied] = nb.figures("vs-implied")[0]!.data;
    const gapBp = (implied!.y as number[]).map((v, j) => Math.abs(v - (getVol!.y as number[])[j]!) * 100);
    expect(implied!.x).toEqual([70, 80, 90, 95, 100, 105, 110, 120, 130]);
    expect(Math.max(...gapBp.slice(3, 6))).toBeLessThan(0.2);
    expect(Math.max(...gapBp)).toBeGreaterThan(1); // the 130% call's 0.10 mark: the tick shows
    expect(Math.max(...gapBp)).toBeLessThan(20);
    // Calibration to noisy quotes: an arbitrage-free fit with residuals of the size of the noise (5 bp).
    const calib = nb.stdout("vs-calibrate");
    expect(calib).toMatch(
      /^fitted 9 maturities × 11 quotes with 5 vol bp of noise; fitted surface: no arbitrage found \(0 butterfly, 0 calendar, 0 Lee violations\)\n/,
    );
    // console.table pads differently in Node and Deno: any spacing.
    const rmse = [...calib.matchAll(/│\s*\d+\s*│\s*(\d+)\s*│\s*([\d.]+)\s*│/g)].map((m) => Number(m[2]));
    expect(rmse).toHaveLength(9);
    expect(Math.max(...rmse)).toBeLessThan(10);
    const [residuals, errors] = nb.figures("vs-calib-residuals");
    expect(residuals!.data).toHaveLength(9);
    expect(errors!.data[0]!.type).toBe("heatmap");
    expect(nb.stdout("vs-calib-density")).toBe(
      "strikes with a negative fitted density: 0 at 30 d, 0 at 182 d, 0 at 730 d\n",
    );
    expect(nb.figures("vs-calib-density")[0]!.data).toHaveLength(6);
  },
  "03-reports": (nb) => {
    expect(nb.stdout("rp-catalogue")).toMatch(/^8 reports defined; look-backs: 6M, 1Y/);
    expect(nb.stdout("rp-launch")).toBe("VaR launcher item: saved\nPnL launcher item: saved\n");
    // followReports' progress line and status chart were each redrawn in place: one output each, the final state.
    const follow = nb.outputs("rp-follow").filter((o) => !o.data?.[PLOTLY_PART_MIME]);
    expect(
      follow.map((o) => o.output_type),
      JSON.stringify(follow).slice(0, 2000),
    ).toEqual(["display_data", "display_data"]);
    expect(joined(follow[0]!.data!["text/plain"])).toMatch(/^report runs · poll \d+ · 2 of 2 finished · done$/);
    const [chart] = nb.figures("rp-follow");
    expect(chart!.layout.title?.text).toBe("Report runs · 2 of 2 finished");
    expect(chart!.data[0]!.x).toEqual(["none", "running", "succeeded", "warning", "failed"]);
    expect((chart!.data[0]!.y as number[]).reduce((a, b) => a + b, 0)).toBe(2);
    expect(nb.displayText("rp-finished")).toMatch(/^DataFrame · 2 rows × 8 columns · from followReports/);
    expect(nb.html("rp-finished")).toContain("<th>finished_at</th>");
    expect(nb.stdout("rp-history")).toBe("242 report infos over 30 pricing dates; 0 dates failed\n");
    expect(nb.figures("rp-history")[0]!.data.every((t) => t.type === "bar")).toBe(true);
    expect(nb.displayText("rp-by-portfolio")).toMatch(/DataFrame · 4 rows × 6 columns[\s\S]*GLOBAL-MACRO/);
    expect(nb.stdout("rp-failures").trim().split("\n")).toHaveLength(5);
  },
  "04-transactions": (nb) => {
    expect(nb.displayText("tx-table")).toMatch(/^ColumnTable · [\d,]+ rows × 13 columns · from GetTransactionTable/);
    expect(nb.figures("tx-chart")[0]!.data.length).toBeGreaterThan(2);
    expect(nb.stdout("tx-positions")).toMatch(/^cash from trading: USD -?[\d.]+m/);
    expect(nb.figures("tx-monthly")[0]!.data.every((t) => t.type === "bar")).toBe(true);
    const events =
      /^(\d+) next events, (\d+) applied \(\d+ short or flat positions left out\), (\d+) position effects/.exec(
        nb.stdout("tx-events"),
      );
    expect(events, nb.stdout("tx-events")).not.toBeNull();
    expect(Number(events![2])).toBeGreaterThan(3);
    expect(Number(events![3])).toBeGreaterThanOrEqual(Number(events![2]));
    expect(nb.figures("tx-effect")[0]!.layout.title?.text).toMatch(/^CouponEvent of .* on the [\d,]+ held$/);
    const briefs = nb.stdout("tx-briefs").trim().split("\n");
    expect(briefs).toHaveLength(4);
    expect(briefs.slice(0, 3).every((b) => b.startsWith("✔ "))).toBe(true);
    expect(briefs[3]).toBe("✘ NOPE.XXXX: not found (HTTP 404: No tradable with id 'NOPE.XXXX')");
  },
  "05-market-data-upload": (nb) => {
    expect(nb.displayText("up-bonds-raw")).toMatch(/^DataFrame · 11 rows × 9 columns/);
    const validate = nb.stdout("up-bonds-validate");
    expect(validate).toMatch(
      /^9 valid records; 2 problems:\n\s+✘ line 8 \(row 6\): bond_identifier\.code: missing\n\s+✘ line 9 \(row 7\): traded_price: expected number, got "95\.5O"/,
    );
    expect(validate).toContain("uploadBondPrices: UploadBondPriceData: 2 invalid rows, nothing was sent");
    const upload = nb.stdout("up-bonds-upload");
    expect(upload).toMatch(/^all-or-nothing: is_success false; nothing was stored: 3 of 9 record\(s\) invalid/);
    // One call from the file (skipInvalid): one table of the rows refused here and by the service.
    expect(upload).toContain("best effort: 6 stored, 3 rejected by the service, 2 rows refused here:");
    const rejected = nb.html("up-bonds-upload");
    for (const reason of [
      "bond_identifier.code",
      "95.5O",
      "unknown bond &quot;XS1234567890&quot;",
      "currency EUR does not match the bond&#39;s currency GBP",
      "date 2026-12-01 is after the latest market date",
    ])
      expect(rejected).toContain(reason);
    const effect = nb.stdout("up-bonds-effect");
    expect(effect).toMatch(/EUR curve: 18 points before, 19 after; bond points:/);
    expect(effect).toContain("BOND DE0001102580: 7.24y");
    expect(effect).toContain("Last uploaded price 101.07 on 2026-11-20 (in the curve)");
    expect(nb.figures("up-bonds-effect")[0]!.data.map((t) => t.name)).toEqual(
      expect.arrayContaining(["EUR before upload", "EUR after upload"]),
    );
    expect(nb.stdout("up-vols-validate")).toMatch(
      /^13 rows → 4 valid curves \(AAPL, SAP, MSFT, TSLA\); 1 problem:\n\s+✘ line 13 \(row 11\): maturity: expected number, got "3M"\n\s+✘ NESN curve of 2026-11-20 left out: line 13 \(row 11\), maturity: expected number, got "3M"/,
    );
    expect(nb.stdout("up-vols-upload")).toMatch(
      /^best effort: 2 curves stored, 2 rejected by the service:\n.*24\.5 is not a plausible decimal vol.*\n.*unknown asset "TSLA"/,
    );
    expect(nb.stdout("up-vols-effect")).toContain(
      "Uploaded ATM vol curve of 2026-11-20: 30d 26.2%, 91d 25.1%, 182d 24.4%, 365d 23.8%",
    );
    expect(nb.displayText("up-vols-effect")).toMatch(/ATM vol before %\s+ATM vol after %/);
  },
  "06-a-year-of-trades": (nb) => {
    // 3 portfolios × 12 months, streamed into a hive-partitioned dataset, then read back whole.
    expect(nb.displayText("yt-fetch")).toMatch(/^transaction tables 36\/36 \(100%\)/);
    expect(nb.stdout("yt-fetch")).toBe(
      "3 portfolios × 12 months (2025-12 … 2026-11) = 36 calls: 7,131 trades in 36 Parquet files; 0 calls failed\n",
    );
    const layout = nb.stdout("yt-layout");
    expect(layout).toMatch(
      /^a-year-of-trades-<tmp>\/ {2}\(36 files: GLOBAL-MACRO 12, RATES-EU 12, EQ-LONG-SHORT 12\)\n {2}portfolio=EQ-LONG-SHORT\/month=2025-12\/part_<id>\.parquet\n/,
    );
    expect(layout).toContain("read back: 7,131 rows × 15 columns; the 7,131 trades written: all there");
    expect(nb.displayText("yt-layout")).toMatch(
      /^DataFrame · 7,131 rows × 15 columns · from GetTransactionTable\n\s+portfolio\s+month\s+trade_id/,
    );
    // SQL over the files: exposure by counterparty × currency, monthly activity, concentration; a chart each.
    expect(nb.displayText("yt-exposure")).toMatch(
      /^DataFrame · 50 rows × 5 columns · from SQL\n\s+counterparty\s+currency\s+trades\s+gross_musd\s+net_musd/,
    );
    const exposure = nb.figures("yt-exposure")[0]!;
    expect(exposure.data.map((t) => t.name)).toEqual(["CHF", "EUR", "GBP", "JPY", "USD"]);
    expect(exposure.data.every((t) => t.type === "bar" && t.x?.length === 10)).toBe(true);
    const monthly = nb.figures("yt-monthly")[0]!;
    expect(monthly.data).toHaveLength(6);
    expect(monthly.data.every((t) => t.x?.length === 12)).toBe(true);
    expect(nb.displayText("yt-concentration")).toMatch(
      /^DataFrame · 3 rows × 7 columns · from SQL\n\s+portfolio\s+instruments\s+top_5_share\s+hhi/,
    );
    expect(nb.figures("yt-concentration")[0]!.data.map((t) => t.name)).toEqual([
      "GLOBAL-MACRO",
      "RATES-EU",
      "EQ-LONG-SHORT",
      "every instrument alike",
    ]);
    // The danfo pitfall made visible against the SQL answer (or, with a danfo that fixed it, said not to trigger); the safe forms agree with SQL.
    const pitfall = nb.stdout("yt-pitfall");
    expect(pitfall).toMatch(/^GLOBAL-MACRO: 10 counterparties; above the average \(USD [\d,]+m\), by SQL: 6: /);
    expect(pitfall).toContain("✔ every safe form agrees with SQL\n");
    const verdicts = nb.displayText("yt-pitfall");
    expect(verdicts).toMatch(
      /^DataFrame · 6 rows × 6 columns\n\s+form\s+rows\s+wrong_rows\s+missed_rows\s+detail\s+verdict\n/,
    );
    expect(verdicts.match(/✔ right$/gm)).toHaveLength(pitfall.includes("The trap did not trigger") ? 6 : 4);
    if (!pitfall.includes("The trap did not trigger")) {
      expect(pitfall).toMatch(
        /\n✘ The trap: the sort permuted the index \((\d, ){9}\d\), and query took those labels for positions\.\n/,
      );
      expect(verdicts).toMatch(/0\s+sortValues inplace, then query\s+6\s+[1-6]\s+[1-6]\s+.* in; .* out\s+✘ WRONG\n/);
    }
  },
  "07-what-changed": (nb) => {
    // frames.diff of one curve a week apart: every point's rates moved, none added or removed; the table shows before/after/delta.
    expect(nb.stdout("wc-curve")).toMatch(
      /^USD curve 2026-11-13 → 2026-11-20: 18 rows changed, 0 added, 0 removed, 0 unchanged \(key fitted_instrument_name\)\n {2}USD SWAP \d+Y: zero rate /,
    );
    expect(nb.html("wc-curve")).toContain("<th>rate_before</th><th>rate_after</th><th>rate_delta</th>");
    // diffFigures of the five curves: a line per currency, and the overlay (before and after of each).
    expect(
      nb
        .stdout("wc-charts")
        .trim()
        .split("\n")
        .map((l) => l.split(":")[0]),
    ).toEqual(["USD", "EUR", "GBP", "JPY", "CHF"]);
    const overlay = nb.figures("wc-charts")[0]!;
    expect(overlay.data.map((t) => t.name)).toHaveLength(10);
    expect(overlay.layout.title?.text).toBe("Zero curves · 2026-11-20: before (dashed) and after (solid)");
    // Report statuses of two pricing dates, paired on portfolio and report name.
    expect(nb.stdout("wc-reports")).toMatch(
      /^report statuses 2026-11-19 → 2026-11-20: (\d+) rows? changed, 0 added, 0 removed, \d+ unchanged \(key portfolio_name, report_name\)\n/,
    );
    expect(nb.html("wc-reports")).toContain("<th>status_before</th><th>status_after</th>");
  },
};

/**
 * The checks every executed showcase notebook passes, then its own. (The tslab kernel does not report
 * execution counts to Jupyter, so only the runner's notebooks say which cells ran.)
 */
export function checkNotebook(nb: Executed, name: string, options: { executionCounts: boolean }): void {
  expect(nb.problems(), JSON.stringify(nb.problems(), null, 1).slice(0, 4000)).toEqual([]);
  if (options.executionCounts) expect(nb.unexecuted()).toEqual([]);
  // A run that drew every chart as a PNG (the CLI's, src/notebook/chart-images.ts) keeps no chart HTML
  // and no plotly.js; otherwise plot.show carries plotly.js once per kernel session, in the first chart.
  const charts = nb.nb.cells.flatMap((c) => c.outputs ?? []).filter((o) => o.data?.[PLOTLY_MIME]);
  const imaged = charts.length > 0 && charts.every((o) => o.data?.["image/png"] !== undefined);
  expect(nb.plotlyEmbeds()).toEqual(imaged ? { count: 0 } : { count: 1, first: nb.firstChartCell() });
  // Every chart arrives as plotly JSON with its HTML rendering or its PNG; every table as an HTML table.
  for (const cell of nb.nb.cells) {
    for (const o of cell.outputs ?? []) {
      const html = joined(o.data?.["text/html"]);
      if (o.data?.[PLOTLY_MIME])
        expect(
          imaged
            ? joined(o.data["image/png"]).startsWith("iVBORw0KGgo") && html === ""
            : html.includes('class="risk-portal-lab-figure"') && html.includes("Plotly.newPlot("),
          `${cell.id}: a chart's ${imaged ? "PNG" : "HTML"}`,
        ).toBe(true);
      if (/^(ColumnTable|DataFrame) · /.test(joined(o.data?.["text/plain"])))
        expect(html.includes("<table"), `${cell.id}: a table's HTML`).toBe(true);
    }
  }
  const expected = EXPECTED[name];
  if (!expected)
    throw new Error(`no expectations for notebooks/${name}.ipynb: add them to EXPECTED in test/notebook/expected.ts`);
  expected(nb);
}

/** A notebook's one `connect()` call, as every showcase notebook writes it (its own cassette, the `replay` parameter). */
export const connectCall = (name: string) =>
  `const conn = await connect({ cassette: "../fixtures/cassettes/${name}.json", replay: replay });`;

/** The line `connect()` prints when replaying a notebook's committed cassette: no simulator, no server. */
export const replayLine = (name: string) =>
  new RegExp(
    `^Replaying \\.\\./fixtures/cassettes/${name}\\.json: \\d+ exchanges recorded \\d{4}-\\d{2}-\\d{2} from the simulator \\(seed 1, data as of 2026-11-20\\); no server is contacted\\.\\n$`,
  );

/** The id of the cell that calls `connect()`. */
export function connectCell(nb: Executed): string {
  const cell = nb.nb.cells.find((c) => c.cell_type === "code" && /\bawait connect\(/.test(joined(c.source)));
  if (!cell?.id) throw new Error(`${nb.name}: no cell calls connect()`);
  return cell.id;
}

/** The provenance footer of every table a notebook showed (the `source: …` line of its text/plain). */
export function provenanceLines(nb: Executed): string[] {
  return nb.nb.cells.flatMap((c) =>
    (c.outputs ?? []).flatMap((o) =>
      joined(o.data?.["text/plain"])
        .split("\n")
        .filter((l) => l.startsWith("source: ")),
    ),
  );
}

/**
 * The lines that may differ between a recording run and its replay, because they say where the data
 * came from: `connect()`'s line, and the provenance footer of each table (text and HTML). Nothing else
 * (a batch helper's finished progress line carries no timing, figure ids are deterministic).
 */
const MASKS: [RegExp, string][] = [
  [
    /^(No RISK_PORTAL_BASE_URL set: started the embedded simulator at|Replaying |Connected to the risk service at ).*$/gm,
    "<connect line>",
  ],
  [/^source: .* · (live|cache|cassette)\b.*$/gm, "source: <provenance>"],
  [/<p class="rpl-provenance[^"]*">.*?<\/p>/g, '<p class="rpl-provenance"><provenance></p>'],
];

export function maskSources(text: string): string {
  return MASKS.reduce((t, [pattern, replacement]) => t.replace(pattern, replacement), text);
}

/** Every string in `value` (deeply) through {@link maskSources}. */
function maskDeep(value: unknown): unknown {
  if (typeof value === "string") return maskSources(value);
  if (Array.isArray(value)) return value.map(maskDeep);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskDeep(v)]));
  return value;
}

/**
 * A code cell's outputs as JSON lines, the lines that say where data came from masked. Execution
 * counts are left out: a run with injected parameters has one more cell, so its counts are one higher.
 */
export function maskedOutputs(cell: Cell): string[] {
  // A chart's HTML and PNG are drawn from its plotly JSON (compared as it is), plotly.js's parts are the
  // library: a run with the charts' PNGs (`run`, `demo`) and one without (`--no-images`) show the same.
  const outputs = (cell.outputs ?? [])
    .filter((o) => o.data?.[PLOTLY_PART_MIME] === undefined)
    .map((o) => {
      const { execution_count: _count, ...rest } = o as typeof o & { execution_count?: unknown };
      if (rest.data?.[PLOTLY_MIME]) {
        const { "text/html": _html, "image/png": _png, ...data } = rest.data;
        const { "image/png": _size, ...metadata } = (rest as { metadata?: Record<string, unknown> }).metadata ?? {};
        Object.assign(rest, { data, metadata });
      }
      return maskDeep(rest);
    });
  return JSON.stringify(outputs, null, 1).split("\n");
}

/**
 * The code cells whose outputs differ between two runs of one notebook (the injected parameters cell
 * left out), each with the place of its first difference in both runs; `[]` when the outputs are identical.
 */
export function differingCells(a: Executed, b: Executed): string[] {
  const code = (nb: Executed) => nb.nb.cells.filter((c) => c.cell_type === "code" && c.id !== "injected-parameters");
  const left = code(a);
  const right = code(b);
  const ids = (cells: Cell[]) => cells.map((c) => c.id).join(", ");
  if (ids(left) !== ids(right)) return [`different cells: ${ids(left)} vs ${ids(right)}`];
  const out: string[] = [];
  left.forEach((cell, i) => {
    const x = maskedOutputs(cell);
    const y = maskedOutputs(right[i]!);
    const line = x.findIndex((l, j) => l !== y[j]);
    if (line < 0 && x.length === y.length) return;
    const j = line >= 0 ? line : Math.min(x.length, y.length);
    const [p, q] = [x[j] ?? "(end)", y[j] ?? "(end)"];
    let k = 0;
    while (k < p.length && p[k] === q[k]) k++;
    const around = (t: string) => `${k > 80 ? "…" : ""}${t.slice(Math.max(0, k - 80), k + 160)}`;
    out.push(`${cell.id}, output line ${j + 1}:\n  ${around(p)}\n  ${around(q)}`);
  });
  return out;
}
