/**
 * Every wire decision says what the service's public pages make of it, and docs/client.md shows the same
 * table as the code.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ASSUMPTIONS } from "../../src/api/assumptions";

/** The table rows of the decisions (paste these into docs/client.md between the assumptions markers). */
function rows(): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  return [
    "| # | decision | the public pages |",
    "|---|---|---|",
    ...ASSUMPTIONS.map((a) => `| ${a.id} ${cell(a.topic)} | ${cell(a.decision)} | **${a.pages}**: ${cell(a.note)} |`),
  ].join("\n");
}

describe("ASSUMPTIONS", () => {
  it("numbers every decision once, A1 onwards, each with the pages' verdict and what they show", () => {
    expect(ASSUMPTIONS.map((a) => a.id)).toEqual(ASSUMPTIONS.map((_, i) => `A${i + 1}`));
    for (const a of ASSUMPTIONS) {
      expect(["confirmed", "changed", "silent"]).toContain(a.pages);
      expect(a.note.length, a.id).toBeGreaterThan(20);
    }
  });

  it("docs/client.md shows the same table", () => {
    const page = readFileSync(path.join(__dirname, "..", "..", "docs", "client.md"), "utf8");
    const table = /<!-- assumptions:start -->\n([\s\S]*?)\n<!-- assumptions:end -->/.exec(page);
    expect(table, "docs/client.md needs the assumptions markers").not.toBeNull();
    expect(table![1]).toBe(rows());
  });
});
