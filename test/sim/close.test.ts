/**
 * The simulator's close() ends every connection. A notebook that hit the client's size limit
 * (ResponseTooLargeError cuts the body short) and then made another call left Node 22's fetch holding a
 * connection that never carried a request; close() waited on it for good (Node 20 and 22; Node 26 does
 * not open it), so the notebook's last cell, `await conn.close()`, never ended.
 */
import { describe, expect, it } from "vitest";
import { RiskPortalClient, ResponseTooLargeError } from "../../src/client";
import { startSimulator } from "../../src/sim";

describe("the simulator's close()", () => {
  it("ends after a call whose body the client cut short, and a call after it", async () => {
    const sim = await startSimulator({ rateLimit: false });
    const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { apiKey: sim.credentials.apiKey } });
    await expect(
      rp.position.transactionTable({ portfolio_name: "GLOBAL-MACRO" }, { maxResponseBytes: 1000 }),
    ).rejects.toBeInstanceOf(ResponseTooLargeError);
    await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      sim.close().then(() => "closed"),
      new Promise<string>((resolve) => (timer = setTimeout(() => resolve("still waiting after 5 s"), 5_000))),
    ]);
    clearTimeout(timer);
    expect(ended).toBe("closed");
  });
});
