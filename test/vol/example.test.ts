/** examples/vol-crosscheck.mjs runs against the built package and finds what its loopback service plants. */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

describe("examples/vol-crosscheck.mjs", () => {
  it("cross-checks a built surface against a loopback GetVol and finds the nudged and the rejected maturity", () => {
    const root = path.resolve(__dirname, "../..");
    const out = execFileSync(process.execPath, [path.join(root, "examples", "vol-crosscheck.mjs")], {
      cwd: root,
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(out).toMatch(/arbitrage report: no violations/);
    expect(out).toMatch(/4\/5 maturities answered, 25 rows; max \|service − local\| = 0\.02 vol bp at maturity 91 d/);
    expect(out).toMatch(
      /maturity 182 d failed: GetVol failed: HTTP 400 Bad Request — Invalid GetVol request: maturity 182 d: no quotes for this expiry/,
    );
    expect(out).toMatch(/found the nudge only at 91 d: true; the rejection only at 182 d: true/);
  });
});
