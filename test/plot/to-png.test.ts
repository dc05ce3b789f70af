/** toPng's errors and Chromium lookup (no browser needed: see browser.test.ts for real renders). */
import { describe, expect, it } from "vitest";
import { findChromium, PngExportError, toPng, type Figure } from "../../src/plot";

const fig: Figure = { data: [{ type: "scatter", x: [1, 2], y: [3, 4] }], layout: {} };

describe("toPng without Chromium", () => {
  it("names what is missing and how to install it", async () => {
    const error = await toPng(fig, "/tmp/never.png", { chromiumPath: "/nonexistent/chromium" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PngExportError);
    expect((error as PngExportError).missing).toBe("chromium");
    expect((error as Error).message).toMatch(
      /toPng needs Chromium, and none was found \(tried \/nonexistent\/chromium\)/,
    );
    expect((error as Error).message).toContain("apt-get install -y chromium");
    expect((error as Error).message).toContain("scripts/setup-chromium.sh");
  });

  it("rejects what is not a figure before looking for a browser", async () => {
    await expect(toPng({} as never, "/tmp/x.png")).rejects.toThrow(/toPng expects a plotly figure/);
  });
});

describe("findChromium", () => {
  it("takes an explicit path, and does not fall back when it does not exist", () => {
    expect(findChromium("/nonexistent/chrome")).toEqual({ tried: ["/nonexistent/chrome"] });
    expect(findChromium(process.execPath).path).toBe(process.execPath);
  });
});
