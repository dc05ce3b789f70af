/**
 * Issue 28, "Misreported": a best-effort upload the service stored in part says what was stored and
 * what was rejected (outcome `partially-applied`, counts, the rejected records by index with the
 * service's message), so nobody re-sends the whole file; and a write's error always has an outcome.
 * Real HTTP against the simulator; what it stored is read from its journal.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OperationFailedError, RiskPortalClient, RiskPortalError } from "../../src";
import { uploadBondPrices } from "../../src/uploads/bond-prices";
import { uploadEquityVolCurves } from "../../src/uploads/equity-vol-curves";
import { RowValidationError } from "../../src/uploads/errors";
import { startSimulator, type Simulator } from "../../src/sim";

const HEADER =
  "date,code,market_identification_code,identifier_type,is_currency_per_bond_unit,currency,traded_price,is_percentage_of_par";
const VALID = [
  "2026-11-20,US91282CJL54,XNYS,ISIN,false,USD,99.8125,true",
  "2026-11-20,US912810TM09,XNYS,ISIN,false,USD,96.40625,true",
  "2026-11-20,DE0001102580,XETR,,false,EUR,97.43,true",
];
/** Valid for the client, rejected by the service: an unknown bond, an implausible price. */
const REJECTED = [
  "2026-11-20,XS0000000000,XLON,ISIN,false,GBP,100.5,true",
  "2026-11-20,GB00BMBL1G81,XLON,ISIN,false,GBP,5000,true",
];

let dir: string;
let sim: Simulator;
let rp: RiskPortalClient;
let csvFile: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "best-effort-"));
  csvFile = path.join(dir, "prices.csv");
  writeFileSync(csvFile, [HEADER, ...VALID, ...REJECTED].join("\n") + "\n");
  sim = await startSimulator({ dataDir: path.join(dir, "sim"), rateLimit: false });
  rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
});
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The bond codes the simulator stored, in order, from its journal. */
function storedCodes(): string[] {
  const codes: string[] = [];
  const simDir = path.join(dir, "sim");
  for (const name of readdirSync(simDir)) {
    for (const line of readFileSync(path.join(simDir, name), "utf8").split("\n")) {
      if (!line.includes('"bondPrices"')) continue;
      const change = JSON.parse(line) as { kind?: string; records?: { code: string }[] };
      if (change.kind === "bondPrices") codes.push(...change.records!.map((r) => r.code));
    }
  }
  return codes;
}

async function failure(promise: Promise<unknown>): Promise<RiskPortalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RiskPortalError);
  return error as RiskPortalError;
}

describe("a best-effort upload the service stored in part", () => {
  it("frames.uploadBondPrices: partially-applied, 3 stored, rows 3 and 4 rejected with the service's messages; the message says re-sending the file stores the 3 again", async () => {
    const before = storedCodes().length;
    const error = (await failure(uploadBondPrices(rp, { csvFile }, { use_best_effort: true }))) as OperationFailedError;
    expect(error).toBeInstanceOf(OperationFailedError);
    expect(error.outcome).toBe("partially-applied");
    expect(error.sent).toBe(5);
    expect(error.stored).toBe(3);
    expect(error.rejected).toEqual([
      { index: 3, rows: [3], messages: [expect.stringMatching(/^bond_data\[3\]: unknown bond "XS0000000000"/)] },
      {
        index: 4,
        rows: [4],
        messages: [expect.stringMatching(/^bond_data\[4\]: traded_price 5000 is not a plausible/)],
      },
    ]);
    expect(error.message).toMatch(/3 of the 5 records were stored, 2 rejected/);
    expect(error.message).toMatch(
      /— line 5 \(row 3\): unknown bond "XS0000000000".*; line 6 \(row 4\): traded_price 5000 is not a plausible/,
    );
    expect(error.message).toMatch(
      /The 3 stored are on the service now: re-sending the whole file would store the 3 again; send only the rejected rows \(3, 4\), fixed\.$/,
    );
    expect(error.message).not.toMatch(/may have been stored/);
    // The service did store them.
    expect(storedCodes().slice(before)).toEqual(["US91282CJL54", "US912810TM09", "DE0001102580"]);
  });

  it("rp.marketData.uploadBondPrices: the same, counted on the request's records", async () => {
    const bond = (code: string, price: number) => ({
      date: "2026-11-20",
      bond_identifier: { code, market_identification_code: "XNYS", identifier_type: "ISIN" },
      is_currency_per_bond_unit: false,
      currency: "USD",
      traded_price: price,
      is_percentage_of_par: true,
    });
    const error = await failure(
      rp.marketData.uploadBondPrices({
        use_best_effort: true,
        bond_data: [bond("XS0000000000", 99), bond("US91282CJL54", 99.5), bond("US91282CJL54", 99.6)],
      }),
    );
    expect(error).toMatchObject({
      outcome: "partially-applied",
      sent: 3,
      stored: 2,
      rejected: [{ index: 0, messages: [expect.stringMatching(/unknown bond/)] }],
    });
    expect(error.message).toMatch(/^UploadBondPriceData partially applied: 2 of the 3 records were stored, 1 rejected/);
    expect(error.message).toMatch(/re-sending the same request would store the 2 again/);
  });

  it("frames.uploadEquityVolCurves: partially-applied with the curve rejected by index", async () => {
    const curve = (code: string, vol: number) => ({
      code,
      market_identification_code: "XNAS",
      reference_date: "2026-11-20",
      maturities: [30, 90],
      vols: [vol, vol],
    });
    const error = (await failure(
      uploadEquityVolCurves(rp, [curve("AAPL", 0.25), curve("NOPE", 0.2), curve("MSFT", 0.24)], {
        use_best_effort: true,
      }),
    )) as OperationFailedError;
    expect(error).toMatchObject({
      outcome: "partially-applied",
      sent: 3,
      stored: 2,
      rejected: [{ index: 1, rows: [1] }],
    });
    expect(error.message).toMatch(/2 of the 3 records were stored, 1 rejected — row 1: unknown asset "NOPE"/);
    expect(error.message).toMatch(/re-sending the whole array would store the 2 again/);
  });

  it("every record rejected, with best effort: not-applied, and it says nothing was stored", async () => {
    writeFileSync(path.join(dir, "bad.csv"), [HEADER, ...REJECTED].join("\n") + "\n");
    const before = storedCodes().length;
    const error = await failure(
      uploadBondPrices(rp, { csvFile: path.join(dir, "bad.csv") }, { use_best_effort: true }),
    );
    expect(error).toMatchObject({ outcome: "not-applied", sent: 2, stored: 0 });
    expect(error.message).toMatch(/none of the 2 records was stored/);
    expect(storedCodes().length).toBe(before);
  });

  it("without best effort: not-applied (all or nothing), nothing stored", async () => {
    const before = storedCodes().length;
    const error = await failure(uploadBondPrices(rp, { csvFile }));
    expect(error).toBeInstanceOf(OperationFailedError);
    expect(error.outcome).toBe("not-applied");
    expect(error.message).toMatch(/nothing was stored/);
    expect(storedCodes().length).toBe(before);
  });

  it("a refusal of the whole request, with best effort: not-applied (the service said nothing was stored)", async () => {
    const [row] = [VALID[0]!.split(",")];
    const error = await failure(
      rp.marketData.uploadBondPrices({
        use_best_effort: true,
        market_data_environment_name: "NOPE",
        bond_data: [
          {
            date: row[0]!,
            bond_identifier: { code: row[1]!, market_identification_code: "XNYS" },
            is_currency_per_bond_unit: false,
            currency: "USD",
            traded_price: 99,
            is_percentage_of_par: true,
          },
        ],
      }),
    );
    expect(error).toBeInstanceOf(OperationFailedError);
    expect(error.outcome).toBe("not-applied");
  });

  it("throwOnFailure: false still returns the service's outcome", async () => {
    const outcome = await uploadBondPrices(rp, { csvFile }, { use_best_effort: true, throwOnFailure: false });
    expect(outcome.is_success).toBe(false);
    expect(outcome.error_messages).toHaveLength(2);
  });
});

describe("a write's error always says what it did (outcome is never undefined)", () => {
  const one = {
    bond_data: [
      {
        date: "2026-11-20",
        bond_identifier: { code: "US91282CJL54", market_identification_code: "XNYS", identifier_type: "ISIN" },
        is_currency_per_bond_unit: false,
        currency: "USD",
        traded_price: 99.5,
        is_percentage_of_par: true,
      },
    ],
  };

  it("aborted before it was sent: not-applied", async () => {
    const error = await failure(rp.marketData.uploadBondPrices(one, { signal: AbortSignal.abort() }));
    expect(error.outcome).toBe("not-applied");
  });

  it("an invalid call option: not-applied", async () => {
    const error = await failure(rp.marketData.uploadBondPrices(one, { timeoutMs: 0 }));
    expect(error.outcome).toBe("not-applied");
    const launcher = await failure(rp.reportLauncher.createVar({} as never, { maxResponseBytes: -1 }));
    expect(launcher.outcome).toBe("not-applied");
  });

  it("the token endpoint refuses the credentials: not-applied, and it says nothing was sent", async () => {
    const bad = new RiskPortalClient({
      baseUrl: sim.url,
      auth: {
        clientId: sim.credentials.clientId,
        clientSecret: "wrong-secret-0123",
        tokenUrl: sim.url + "/oauth2/token",
      },
      retry: false,
    });
    const error = await failure(bad.marketData.uploadBondPrices(one));
    expect(error.outcome).toBe("not-applied");
    expect(error.message).toMatch(/UploadBondPriceData was not sent/);
  });

  it("a cassette that does not hold the write: not-applied", async () => {
    const file = path.join(dir, "empty.cassette.json");
    const recorder = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      cassette: { path: file, mode: "record" },
    });
    await recorder.report.lookBacks();
    recorder.cassette!.finish();
    const replay = new RiskPortalClient({
      baseUrl: sim.url,
      auth: { apiKey: sim.credentials.apiKey },
      cassette: { path: file, mode: "replay" },
    });
    const error = await failure(replay.marketData.uploadBondPrices(one));
    expect(error.outcome).toBe("not-applied");
  });

  it("frames.upload*: rows refused before sending are not-applied", async () => {
    const error = await failure(uploadBondPrices(rp, [{ date: "2026-11-20", code: "X" }]));
    expect(error).toBeInstanceOf(RowValidationError);
    expect(error.outcome).toBe("not-applied");
    const empty = await failure(uploadEquityVolCurves(rp, []));
    expect(empty.outcome).toBe("not-applied");
  });
});
