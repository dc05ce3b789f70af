/**
 * Messages that name the real problem (issue 41, item 5): a day that does not exist, a currency in lower
 * case, a missing required field, an Invalid Date. The same words from the client (refused before
 * sending), the simulator (a 400 naming the field path, if such a body reaches it) and the CSV path.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { OPERATIONS } from "../../src/api";
import { currencyCode, dateTimeInput } from "../../src/api/common";
import { RequestValidationError, RiskPortalClient } from "../../src";
import { startSimulator, type Simulator } from "../../src/sim";
import { Curve, fromResponse } from "../../src/curves";
import { buildSurface, fromSurface } from "../../src/vol";
import { calibrate } from "../../src/vol/calibrate";
import { bondPriceRecords } from "../../src/uploads/bond-prices";
import { equityVolCurveRecords } from "../../src/uploads/equity-vol-curves";
import { formatRowError } from "../../src/uploads/errors";
import { finishColumn } from "../../src/table/column-table";
import { bond, surface } from "../helpers/samples";
import { raw } from "../sim/helpers";

let sim: Simulator;
let rp: RiskPortalClient;
/** Requests that left the client (the real fetch, counted): a refused request must leave none. */
let sent = 0;
beforeAll(async () => {
  sim = await startSimulator({ rateLimit: false });
  rp = new RiskPortalClient({
    baseUrl: sim.url,
    auth: { apiKey: sim.credentials.apiKey },
    retry: false,
    fetch: (input, init) => {
      sent++;
      return fetch(input, init);
    },
  });
});
afterAll(() => sim.close());

/** Runs a call that must be refused locally; returns its issues as "path: message" lines. */
async function refused(call: () => Promise<unknown>): Promise<string[]> {
  const before = sent;
  const error = await call().then(
    () => {
      throw new Error("expected a RequestValidationError, the call succeeded");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RequestValidationError);
  expect(sent).toBe(before);
  return (error as RequestValidationError).issues.map((i) => `${i.path}: ${i.message}`);
}

/** What the simulator answers when the body reaches it directly: the problem's `detail`. */
async function simDetail(path: string, json: unknown): Promise<string> {
  const res = await raw(sim.url + path, { method: "POST", headers: { "x-api-key": sim.credentials.apiKey }, json });
  expect(res.status).toBe(400);
  return (res.body as { detail: string }).detail;
}

const INVALID = "an Invalid Date (a Date object holding no time: the text or numbers it was made from are not a date)";

const DAYS = [
  ["2026-11-31", "2026-11-31: November has 30 days"],
  ["2026-02-29", "2026-02-29: February 2026 has 28 days"],
  ["2028-02-30", "2028-02-30: February 2028 has 29 days"],
  ["2026-13-01", "2026-13-01: month 13 does not exist"],
  ["2026-00-10", "2026-00-10: month 00 does not exist"],
  ["2026-11-00", "2026-11-00: day 00 does not exist"],
  ["2026-11-31T00:00:00Z", "2026-11-31: November has 30 days"],
  ["2026-11-20T24:00:00Z", "2026-11-20T24:00:00Z: hour 24 does not exist (00–23)"],
  ["2026-11-20T10:60:00Z", "2026-11-20T10:60:00Z: minute 60 does not exist (00–59)"],
] as const;

describe("a day that does not exist", () => {
  it.each(DAYS)("%s", async (text, message) => {
    expect(await refused(() => rp.rateAsset.getCurve({ currency: "USD", market_date: text }))).toEqual([
      `market_date: ${message}`,
    ]);
    expect(await simDetail("/api/RateAsset", { currency: "USD", market_date: text })).toBe(`market_date: ${message}`);
  });

  it("is named in every date field of the requests, with its path", async () => {
    const bad = "2026-11-31";
    const says = "2026-11-31: November has 30 days";
    expect(await refused(() => rp.marketData.uploadBondPrices({ bond_data: [bond, { ...bond, date: bad }] }))).toEqual([
      `bond_data[1].date: ${says}`,
    ]);
    expect(
      await refused(() =>
        rp.tradable.getVol({
          surface: { ...surface, reference_date: bad },
          maturity: 30,
          strikes: [100],
          strike_type: 1,
        }),
      ),
    ).toEqual([`surface.reference_date: ${says}`]);
    expect(await refused(() => rp.report.infos({ pricing_dates: ["2026-11-20", bad] }))).toEqual([
      `pricing_dates[1]: ${says}`,
    ]);
    expect(
      await refused(() =>
        rp.position.transactionTable({ portfolio_name: "P1", start_date: bad, end_date: "2026-12-01" }),
      ),
    ).toContain(`start_date: ${says}`);
    expect(
      await refused(() =>
        rp.reportLauncher.createVar({ report_name: "r", portfolio_name: "P1", first_observation_date: bad }),
      ),
    ).toContain(`first_observation_date: ${says}`);
  });

  it("a Date that is Invalid Date says so and where it comes from", async () => {
    expect(
      await refused(() => rp.rateAsset.getCurve({ currency: "USD", market_date: new Date("2026-11-31x") })),
    ).toEqual([
      "market_date: an Invalid Date (a Date object holding no time: the text or numbers it was made from are not a date)",
    ]);
  });
});

describe("currency codes", () => {
  it("lower case is named as such, with the code to write", async () => {
    expect(await refused(() => rp.rateAsset.getCurve({ currency: "eur" }))).toEqual([
      "currency: eur: currency codes are upper case: EUR",
    ]);
    expect(await simDetail("/api/RateAsset", { currency: "Eur" })).toBe(
      "currency: Eur: currency codes are upper case: EUR",
    );
    expect(await refused(() => rp.report.infos({ pricing_date: "2026-11-20", reporting_currency: "gbp" }))).toEqual([
      "reporting_currency: gbp: currency codes are upper case: GBP",
    ]);
  });

  it("spaces around a code are named; a code that is not three letters keeps the general words", async () => {
    expect(await refused(() => rp.rateAsset.getCurve({ currency: " USD" }))).toEqual([
      'currency: " USD": a currency code has no spaces: USD',
    ]);
    expect(await refused(() => rp.rateAsset.getCurve({ currency: "EURO" }))).toEqual([
      'currency: expected a 3-letter ISO 4217 currency code such as USD, got "EURO"',
    ]);
  });
});

describe("a missing required field", () => {
  it("is 'missing', with its path, on the client and the simulator", async () => {
    expect(await refused(() => rp.rateAsset.getCurve({ market_date: "2026-11-20" } as never))).toEqual([
      "currency: missing",
    ]);
    expect(await simDetail("/api/RateAsset", { market_date: "2026-11-20" })).toBe("currency: missing");
    const { date: _date, ...undated } = bond;
    expect(await refused(() => rp.marketData.uploadBondPrices({ bond_data: [undated as never] }))).toEqual([
      "bond_data[0].date: missing",
    ]);
    const { reference_date: _r, ...noDate } = surface;
    expect(
      await simDetail("/api/Tradable/GetVol", { surface: noDate, maturity: 30, strikes: [100], strike_type: 1 }),
    ).toBe("surface.reference_date: missing");
  });

  it("inside a trade event, naming the event", async () => {
    expect(
      await refused(() =>
        rp.tradable.positionEffects({
          next_trade_event: { $type: "BuyEvent", quantity: 10 },
          pricing_date: "2026-11-20",
          tradable_id: "X",
        }),
      ),
    ).toEqual(["next_trade_event.unit_price: BuyEvent: missing"]);
  });

  it("a value of the wrong type is not called missing", async () => {
    expect(await refused(() => rp.rateAsset.getCurve({ currency: 840 } as never))).toEqual([
      "currency: Invalid input: expected string, received number",
    ]);
  });
});

describe("the CSV path says the same", () => {
  const header = "date,code,is_currency_per_bond_unit,currency,traded_price,is_percentage_of_par";
  it("bond prices: the impossible day, the lower-case currency, the missing field", () => {
    const csv = [
      header,
      "2026-11-31,B1,false,USD,99.5,true",
      "2026-02-29,B2,false,eur,99.5,true",
      ",B3,false,USD,99.5,true",
      "2026-11-20,B4,false,,99.5,true",
    ].join("\n");
    expect(bondPriceRecords({ csv }).errors.map(formatRowError)).toEqual([
      "line 2 (row 0): date: 2026-11-31: November has 30 days",
      "line 3 (row 1): date: 2026-02-29: February 2026 has 28 days",
      "line 3 (row 1): currency: eur: currency codes are upper case: EUR",
      "line 4 (row 2): date: missing",
      "line 5 (row 3): currency: missing",
    ]);
  });

  it("vol curves: the impossible reference date", () => {
    const csv = ["code,reference_date,maturity,vol", "SPX,2026-13-01,30,0.2"].join("\n");
    expect(equityVolCurveRecords({ csv }).errors.map(formatRowError)).toEqual([
      "line 2 (row 0): reference_date: 2026-13-01: month 13 does not exist",
    ]);
  });

  it("a frame's Invalid Date cell", () => {
    const { bond_identifier: _b, ...flat } = bond;
    const { errors } = bondPriceRecords([{ ...flat, code: "B1", date: new Date(NaN) }]);
    expect(errors.map(formatRowError)).toEqual([
      "row 0: date: an Invalid Date (a Date object holding no time: the text or numbers it was made from are not a date)",
    ]);
  });
});

describe("every date and currency field of the 13 requests reads through the shared schemas", () => {
  /** Leaves of a request schema whose name says date or currency, with whether they are the shared schema. */
  function fields(schema: z.ZodType, path: string, out: { path: string; shared: boolean }[]): void {
    const stack: z.ZodType[] = [schema];
    while (stack.length) {
      const n = stack.pop()!;
      if (n instanceof z.ZodOptional || n instanceof z.ZodNullable || n instanceof z.ZodDefault)
        stack.push(n.unwrap() as z.ZodType);
      else if (n instanceof z.ZodPipe) stack.push(n.in as z.ZodType);
      else if (n instanceof z.ZodUnion) stack.push(...(n.options as z.ZodType[]));
      else if (n instanceof z.ZodArray) fields(n.element as z.ZodType, `${path}[]`, out);
      else if (n instanceof z.ZodObject)
        for (const [key, child] of Object.entries(n.shape)) {
          const at = path ? `${path}.${key}` : key;
          // Not the flags (`is_currency_per_bond_unit`, `run_date_is_today`), nor `uploaded_date_time`: an audit
          // field the service manages, accepted and sent as given (common.ts, auditFields).
          if (/date|currency/.test(key) && !/is_currency|_is_today|^uploaded_date_time$/.test(key)) {
            let leaf: z.ZodType = child;
            while (leaf instanceof z.ZodOptional || leaf instanceof z.ZodNullable || leaf instanceof z.ZodArray)
              leaf = (leaf instanceof z.ZodArray ? leaf.element : leaf.unwrap()) as z.ZodType;
            // The same schema: src/api's constants are stand-ins (src/api/lazy.ts), and the schemas built from
            // them hold the schema itself, whose zod internals the stand-in reads through.
            const same = (shared: z.ZodType) => leaf._zod === shared._zod;
            out.push({ path: at, shared: same(dateTimeInput) || same(currencyCode) });
          } else fields(child, at, out);
        }
    }
  }

  it("has no date or currency field of its own", () => {
    const found: { path: string; shared: boolean }[] = [];
    for (const op of OPERATIONS) fields(op.request, op.name, found);
    expect(found.map((f) => f.path)).toEqual(
      expect.arrayContaining(["RateAsset.market_date", "RateAsset.currency", "GetReportInfos.pricing_dates"]),
    );
    expect(found.length).toBeGreaterThanOrEqual(14);
    expect(found.filter((f) => !f.shared).map((f) => f.path)).toEqual([]);
  });
});

describe("the date readers of curves and the vol model say the same", () => {
  /** The message of what `f` throws. */
  const thrown = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error("expected a throw");
  };
  const smile = { ...surface };

  it("a curve's market date", () => {
    expect(
      thrown(() => fromResponse({ currency: "USD", market_date: "2026-11-31", data: [{ maturity: 1, rate: 0.03 }] })),
    ).toBe("market_date: 2026-11-31: November has 30 days");
    expect(
      thrown(() => new Curve("USD", new Date(NaN), [{ t: 1, rate: 0.03, expiry: "1Y", instrument: "SWAP" } as never])),
    ).toBe(`market_date: ${INVALID}`);
  });

  it("a surface's reference date, buildSurface's and calibrate's", () => {
    expect(thrown(() => fromSurface({ ...smile, reference_date: "2026-02-29" }))).toMatch(
      /^reference_date: 2026-02-29: February 2026 has 28 days/,
    );
    const build = { spot: 100, maturities: [30], atmVols: 0.2 };
    expect(thrown(() => buildSurface({ ...build, referenceDate: "2026-13-01" }))).toMatch(
      /^referenceDate: 2026-13-01: month 13 does not exist/,
    );
    expect(thrown(() => calibrate({ spot: 100, referenceDate: new Date("nope"), smiles: [] }))).toMatch(
      new RegExp(`^referenceDate: ${INVALID.replace(/[()]/g, "\\$&")}`),
    );
  });
});

describe("a frame's date column says which day does not exist", () => {
  it("in the warning that keeps the column as text", () => {
    expect(finishColumn("d", ["2026-11-20", "2026-11-31"]).warning?.message).toBe(
      'column "d": value at row 1 ("2026-11-31") is not an ISO 8601 date (2026-11-31: November has 30 days), though earlier values are; the column is kept as text',
    );
    expect(finishColumn("d", ["2026-11-20", "soon"]).warning?.message).toBe(
      'column "d": value at row 1 ("soon") is not an ISO 8601 date, though earlier values are; the column is kept as text',
    );
  });
});
