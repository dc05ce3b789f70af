/**
 * What a call sends is its input as it is at that call: an input object edited between calls sends what
 * it holds each time, a Date is read as a date, and a refused input is refused every time, alike.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RiskPortalClient, RequestValidationError } from "../../src";
import { curveReply } from "../helpers/samples";
import { startLoopback, type Loopback } from "../helpers/loopback";

describe("through the client, over HTTP", () => {
  let server: Loopback;
  beforeAll(async () => {
    server = await startLoopback({ "/api/RateAsset": { body: curveReply } });
  });
  afterAll(() => server.close());

  it("an input object edited between calls sends what it holds at each call; a Date is still read as a date", async () => {
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "t-memo-0001" } });
    const input: { currency: string; market_date: string | Date } = { currency: "EUR", market_date: "2026-11-20" };
    await rp.rateAsset.getCurve(input);
    input.currency = "GBP";
    await rp.rateAsset.getCurve(input);
    input.market_date = new Date("2026-11-21T00:00:00Z");
    await rp.rateAsset.getCurve(input);
    const sent = server.to("/api/RateAsset").map((r) => r.json as Record<string, unknown>);
    expect(sent.map((b) => [b.currency, b.market_date])).toEqual([
      ["EUR", "2026-11-20T00:00:00Z"],
      ["GBP", "2026-11-20T00:00:00Z"],
      ["GBP", "2026-11-21T00:00:00.000Z"],
    ]);
    // A refused input is refused every time, with the same error.
    const typo = { currency: "EUR", market_dat: "2026-11-20" } as never;
    const first = await rp.rateAsset.getCurve(typo).catch((e: unknown) => e);
    const again = await rp.rateAsset.getCurve(typo).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(RequestValidationError);
    expect((again as Error).message).toBe((first as Error).message);
    expect(server.to("/api/RateAsset")).toHaveLength(3);
  });
});
