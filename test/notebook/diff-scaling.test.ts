/**
 * `diff` reads a table output in time linear in its length. Measured as scaling, not against a clock:
 * each case is timed at n and at 4n bytes in the same run (interleaved, the best of several rounds of
 * repeated calls, so a busy machine adds to both and a pause to neither), and the 4n time must stay
 * under 8× the n time. A linear reader gives about 4×; the regex reader it replaced gave about 16×
 * (quadratic: 200 KB of such a row took 13–24 s). The rows hold what made the regexes scan to the end
 * of the text for every start tag: a cell or a row left open, a `<` with no `>`, a list of sources like
 * the provenance line's without its end.
 */
import { describe, expect, it } from "vitest";
import { diffNotebooks } from "../../src/notebook/diff";
import { parseTableHtml } from "../../src/notebook/diff/table";
import type { Notebook } from "../../src/notebook/ipynb";

const ROUNDS = 6;
const ROUND_MS = 20;
/** Time spent sampling one input at most (a quadratic reader's one call may take longer: then one call). */
const BUDGET_MS = 1_000;
/** 4× the input may take this many times as long; a linear reader takes about 4×, a quadratic one 16×. */
const BOUND = 8;

/** The best time per call of `f` over up to {@link ROUNDS} rounds of calls repeated for {@link ROUND_MS} each. */
function perCall(f: () => void): number {
  let best = Infinity;
  const start = performance.now();
  for (let r = 0; r < ROUNDS && performance.now() - start < BUDGET_MS; r++) {
    let calls = 0;
    const t0 = performance.now();
    let elapsed = 0;
    do {
      f();
      calls++;
      elapsed = performance.now() - t0;
    } while (elapsed < ROUND_MS);
    best = Math.min(best, elapsed / calls);
  }
  return best;
}

/**
 * The ratio of the best per-call times of `read(make(4n))` and `read(make(n))`, the two sampled in turn.
 * A ratio over {@link BOUND} but under twice it is measured again (up to three times in all): a
 * scheduler's burst can stretch one measurement, not three; a quadratic reader's 16× fails at once.
 */
function scaling<T>(n: number, make: (n: number) => T, read: (input: T) => void): number {
  const small = make(n);
  const large = make(4 * n);
  read(small); // compiled before timing
  read(large);
  let ratio = Infinity;
  for (let attempt = 0; attempt < 3 && (attempt === 0 || (ratio >= BOUND && ratio < 2 * BOUND)); attempt++) {
    const times = [Infinity, Infinity];
    for (let r = 0; r < 2; r++) {
      times[0] = Math.min(
        times[0]!,
        perCall(() => read(small)),
      );
      times[1] = Math.min(
        times[1]!,
        perCall(() => read(large)),
      );
    }
    ratio = times[1]! / times[0]!;
  }
  return ratio;
}

const HEAD =
  '<div class="rpl-table"><p class="rpl-caption"><b>DataFrame</b> · 2 rows × 2 columns</p><table><thead>' +
  "<tr><th></th><th>a</th><th>b</th></tr><tr><th></th><th>string</th><th>string</th></tr></thead><tbody>";
const TAIL = "</tbody></table></div>";

/** Table previews whose one row is about `bytes` long. */
const ROWS: Record<string, (bytes: number) => string> = {
  "a cell left open": (bytes) => `${HEAD}<tr><td>0</td>${"<td>x".repeat(bytes / 5)}</tr>${TAIL}`,
  "a row left open": (bytes) => `${HEAD}<tr><td>0</td></tr>${"<tr><td>1</td>".repeat(bytes / 14)}${TAIL}`,
  "a < with no >": (bytes) => `${HEAD}<tr><td>0</td><td>${"<b".repeat(bytes / 2)}</td></tr>${TAIL}`,
  "a list of sources without its end": (bytes) =>
    `${HEAD}<tr><td>0</td><td>live 1${", cache 1".repeat(bytes / 9)} from</td></tr>${TAIL}`,
};

/** A notebook whose one cell shows `html`. */
function notebook(html: string): Notebook {
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: [
      {
        cell_type: "code",
        id: "t",
        source: "plot.show(t);",
        metadata: {},
        execution_count: 1,
        outputs: [{ output_type: "display_data", metadata: {}, data: { "text/html": html } }],
      },
    ],
  };
}

describe("diff reads a table row in time linear in its length", () => {
  for (const [what, make] of Object.entries(ROWS)) {
    it(`a row with ${what}: 4× the bytes, under 8× the time`, () => {
      const html = make(50_000);
      expect(html.length).toBeGreaterThan(50_000);
      expect(parseTableHtml(html)?.index[0]).toBe("0");
      const ratio = scaling(12_500, make, (h) => diffNotebooks(notebook(h), notebook(h.replace("<td>0<", "<td>1<"))));
      expect(ratio, `${what}: 4n/n time`).toBeLessThan(BOUND);
    });
  }
});
