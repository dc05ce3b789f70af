/** The package root starts the simulator lazily (the HTTP server code loads on first call). */
import { describe, expect, it } from "vitest";
import { RiskPortalClient, manualClock, startSimulator } from "../../src";

describe("startSimulator from the package root", () => {
  it("starts a simulator the client can use", async () => {
    const sim = await startSimulator({ clock: manualClock() });
    try {
      const rp = new RiskPortalClient({ baseUrl: sim.url, auth: { token: sim.credentials.bearerToken } });
      expect((await rp.report.lookBacks()).look_backs).toContain("10Y");
    } finally {
      await sim.close();
    }
  });
});
