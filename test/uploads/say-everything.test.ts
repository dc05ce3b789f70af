/**
 * Issue 41, "Uploads that say everything": the records builders name every curve and record they leave
 * out and why, report duplicate keys (exact duplicates sent once, conflicting ones refused), and the
 * `frames.upload*` verbs with `{ use_best_effort: true, skipInvalid: true }` send the valid rows and return
 * one table of local and service rejections. Real HTTP against the embedded simulator; what it stored is
 * read from its journal.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import { bondPriceRecords, uploadBondPrices } from "../../src/uploads/bond-prices";
import { equityVolCurveRecords, uploadEquityVolCurves } from "../../src/uploads/equity-vol-curves";
import { formatRowError } from "../../src/uploads/errors";
import { startSimulator, type Simulator } from "../../src/sim";

const BOND_HEADER =
  "date,code,market_identification_code,is_currency_per_bond_unit,currency,traded_price,is_percentage_of_par";
const VOL_HEADER = "code,market_identification_code,reference_date,maturity,vol,spot_ref";

describe("equityVolCurveRecords: a curve left out whole is named, with the bad row", () => {
  const csv = [
    VOL_HEADER,
    "AAPL,XNAS,2026-11-20,30,0.2412,189.5",
    "AAPL,XNAS,2026-11-20,91,0.2301,189.5",
    "SAP,XETR,2026-11-20,30,0.21,",
    "SAP,XETR,2026-11-20,91,-0.12,",
    "SAP,XETR,2026-11-20,182,0.20,",
  ].join("\n");

  it("says which curve was left out, by asset, and which row did it", () => {
    const { curves, errors, leftOut } = equityVolCurveRecords({ csv });
    expect(curves.map((c) => c.asset_id.code)).toEqual(["AAPL"]);
    expect(errors.map(formatRowError)).toEqual(["line 5 (row 3): vol: must be > 0 (decimal, 0.2 = 20%)"]);
    expect(leftOut).toEqual([
      {
        asset: "SAP",
        reference_date: "2026-11-20",
        rows: [2, 3, 4],
        message: "SAP curve of 2026-11-20 left out: line 5 (row 3), vol -0.12: must be > 0 (decimal, 0.2 = 20%)",
      },
    ]);
  });

  it("exact duplicate rows are kept once and reported; a maturity with two vols refuses the curve", () => {
    const rows = [
      { code: "SPX", reference_date: "2026-11-20", maturity: 30, vol: 0.16 },
      { code: "SPX", reference_date: "2026-11-20", maturity: 30, vol: 0.16 },
      { code: "SPX", reference_date: "2026-11-20", maturity: 91, vol: 0.17 },
      { code: "MSFT", reference_date: "2026-11-20", maturity: 30, vol: 0.25 },
      { code: "MSFT", reference_date: "2026-11-20", maturity: 30, vol: 0.26 },
    ];
    const { curves, errors, duplicates, leftOut } = equityVolCurveRecords(rows);
    expect(curves).toEqual([
      { asset_id: { code: "SPX" }, reference_date: "2026-11-20T00:00:00Z", maturities: [30, 91], vols: [0.16, 0.17] },
    ]);
    expect(duplicates.map(formatRowError)).toEqual([
      "row 1: exact duplicate of row 0 (SPX, reference_date 2026-11-20, maturity 30): sent once",
    ]);
    expect(errors.map(formatRowError)).toEqual([
      "row 4: maturity: maturity 30 repeats for this asset and reference date with another vol (0.25 on row 3, 0.26 here); one row per maturity",
    ]);
    expect(leftOut.map((l) => l.message)).toEqual([
      "MSFT curve of 2026-11-20 left out: row 4, maturity 30: maturity 30 repeats for this asset and reference date with another vol (0.25 on row 3, 0.26 here); one row per maturity",
    ]);
  });
});

describe("bondPriceRecords: duplicate keys (date + code)", () => {
  it("sends an exact duplicate once and reports it; refuses both rows of a conflicting duplicate", () => {
    const csv = [
      BOND_HEADER,
      "2026-11-20,DE0001102580,XETR,false,EUR,97.43,true",
      "2026-11-20,US91282CJL54,XNYS,false,USD,99.8125,true",
      "2026-11-20,DE0001102580,XETR,false,EUR,97.43,true",
      "2026-11-20,GB00BMBL1G81,XLON,false,GBP,96.25,true",
      "2026-11-20,GB00BMBL1G81,XLON,false,GBP,96.5,true",
    ].join("\n");
    const { records, rows, errors, duplicates } = bondPriceRecords({ csv });
    expect(records.map((r) => r.bond_identifier.code)).toEqual(["DE0001102580", "US91282CJL54"]);
    expect(rows).toEqual([0, 1]);
    expect(duplicates.map(formatRowError)).toEqual([
      "line 4 (row 2): exact duplicate of row 0 (date 2026-11-20, code DE0001102580): sent once",
    ]);
    expect(errors.map(formatRowError)).toEqual([
      "line 5 (row 3): traded_price: date 2026-11-20 and code GB00BMBL1G81 are also on row 4 with traded_price 96.5 (96.25 here): conflicting duplicates are refused, none of them is sent; keep the one you mean",
      "line 6 (row 4): traded_price: date 2026-11-20 and code GB00BMBL1G81 are also on row 3 with traded_price 96.25 (96.5 here): conflicting duplicates are refused, none of them is sent; keep the one you mean",
    ]);
  });
});

describe("frames.upload* with { use_best_effort: true, skipInvalid: true } over HTTP", () => {
  let dir: string;
  let sim: Simulator;
  let rp: RiskPortalClient;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "say-everything-"));
    sim = await startSimulator({ dataDir: path.join(dir, "sim"), rateLimit: false, bootstrapLagMs: 0 });
    rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What the simulator stored of one kind, from its journal. */
  function stored(kind: "bondPrices" | "volCurves"): string[] {
    const codes: string[] = [];
    const simDir = path.join(dir, "sim");
    for (const name of readdirSync(simDir)) {
      for (const line of readFileSync(path.join(simDir, name), "utf8").split("\n")) {
        if (!line.includes(`"${kind}"`)) continue;
        const change = JSON.parse(line) as { kind?: string; records?: { code: string }[]; curves?: { code: string }[] };
        if (change.kind === kind) codes.push(...(change.records ?? change.curves ?? []).map((r) => r.code));
      }
    }
    return codes;
  }

  it("without skipInvalid, a bad row refuses the file and the error says how to send the valid rows", async () => {
    const csv = [BOND_HEADER, "2026-11-20,DE0001102580,XETR,false,EUR,abc,true"].join("\n");
    await expect(uploadBondPrices(rp, { csv }, { use_best_effort: true })).rejects.toThrow(
      /^UploadBondPriceData: 1 invalid row, nothing was sent — line 2 \(row 0\): traded_price: expected number, got "abc"\. To send the valid rows and get one table of the others: \{ use_best_effort: true, skipInvalid: true \}$/,
    );
  });

  it("bond prices: the valid rows are stored once; one table lists the local and the service rejections", async () => {
    const csv = [
      BOND_HEADER,
      "2026-11-20,DE0001102580,XETR,false,EUR,97.43,true",
      "2026-11-20,US91282CJL54,XNYS,false,USD,abc,true",
      "2026-11-20,DE0001102580,XETR,false,EUR,97.43,true",
      "2026-11-20,XS0000000000,XLON,false,GBP,100.5,true",
      "2026-11-20,US912810TM09,XNYS,false,USD,96.40625,true",
    ].join("\n");
    const table = await uploadBondPrices(rp, { csv }, { use_best_effort: true, skipInvalid: true });
    expect(stored("bondPrices")).toEqual(["DE0001102580", "US912810TM09"]);
    expect(table.columns).toEqual(["row", "line", "field", "reason", "source"]);
    expect(table.data.row).toEqual([1, 3]);
    expect(table.data.line).toEqual([3, 5]);
    expect(table.data.field).toEqual(["traded_price", null]);
    expect(table.data.source).toEqual(["local", "service"]);
    expect(table.data.reason![0]).toBe('expected number, got "abc"');
    expect(table.data.reason![1]).toMatch(/^unknown bond "XS0000000000"/);
    expect(table.meta.fields).toMatchObject({
      rows_read: 5,
      sent: 3,
      stored: 2,
      rejected_local: 1,
      rejected_service: 1,
    });
    expect(table.meta.warnings.map((w) => w.message)).toEqual(
      expect.arrayContaining([
        "line 4 (row 2): exact duplicate of row 0 (date 2026-11-20, code DE0001102580): sent once",
      ]),
    );
  });

  it("vol curves: a curve left out whole is in the table with its bad row; the service's rejections beside it", async () => {
    const csv = [
      VOL_HEADER,
      "AAPL,XNAS,2026-11-20,30,0.2412,189.5",
      "AAPL,XNAS,2026-11-20,91,0.2301,189.5",
      "SAP,XETR,2026-11-20,30,0.21,",
      "SAP,XETR,2026-11-20,91,-0.12,",
      "TSLA,XNAS,2026-11-20,30,0.55,",
    ].join("\n");
    const table = await uploadEquityVolCurves(rp, { csv }, { use_best_effort: true, skipInvalid: true });
    expect(stored("volCurves")).toEqual(["AAPL"]);
    expect(table.data.row).toEqual([2, 3, 4]);
    expect(table.data.source).toEqual(["local", "local", "service"]);
    expect(table.data.field).toEqual([null, "vol", null]);
    expect(table.data.reason![0]).toBe(
      "not sent: SAP curve of 2026-11-20 left out: line 5 (row 3), vol -0.12: must be > 0 (decimal, 0.2 = 20%)",
    );
    expect(table.data.reason![1]).toBe("must be > 0 (decimal, 0.2 = 20%)");
    expect(table.data.reason![2]).toMatch(/^unknown asset "TSLA"/);
    expect(table.meta.fields).toMatchObject({ rows_read: 5, sent: 2, stored: 1 });
  });
});
