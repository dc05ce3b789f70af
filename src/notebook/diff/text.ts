/**
 * Printed text of two runs, compared with numbers read as numbers: `4.50` and `4.5` are the same, and
 * so are `1,234.5` and `1234.5`; lines are paired by what is left when the numbers are taken out, so
 * a line whose numbers moved shows as one changed line with its moves, not as a line removed and one
 * added. What every run changes is set aside first ({@link normalizeVolatile}).
 */
import { sameNumber } from "../../table/diff";

/**
 * What a run always changes, replaced by a placeholder before comparing (and shown as such):
 * - date-times with a time of day (`2026-11-24T01:40:12.345Z`, `2026-11-24 01:40:12Z`): when something
 *   ran or arrived; dates alone (`2026-11-20`, a market date) are data and stay;
 * - the port of a loopback URL (`http://127.0.0.1:36715`): the embedded simulator's free port;
 * - durations (`1.3 s`, `250 ms`, `2 min`);
 * - the line `connect()` prints (simulator started, replaying a cassette, connected to a service) and a
 *   table's provenance (`live from … · received …` / `cassette … · recorded …`): where the data came
 *   from, not what it is (so a replay matches its recording);
 * - request ids (`request id …`, `x-request-id: …`) and temporary paths (`/tmp/…`).
 */
export const VOLATILE: readonly { what: string; pattern: RegExp; placeholder: string }[] = [
  {
    what: "connect() line",
    pattern:
      /^(?:No RISK_PORTAL_BASE_URL set: started the embedded simulator at .*|Replaying .*: \d+ (?:exchanges? )?recorded.*no server is contacted\.|Connected to the risk service at .*)$/gm,
    placeholder: "‹connection›",
  },
  {
    what: "provenance",
    // Not from inside a list of sources: each entry of a list with no end would scan the rest again (quadratic).
    pattern:
      /(?<!(?:live|cache|cassette)(?: \d+)?, )\b(?:live|cache|cassette)(?: \d+)?(?:, (?:live|cache|cassette) \d+)* from \S+(?: \(cassette [^)]*\))? · (?:received|recorded) [^\n·]*/g,
    placeholder: "‹provenance›",
  },
  {
    what: "date-time",
    pattern:
      /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?: … \d{2}:\d{2}(?::\d{2})?Z?)?/g,
    placeholder: "‹time›",
  },
  {
    what: "loopback port",
    pattern: /(\bhttps?:\/\/(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])):\d{1,5}/g,
    placeholder: "$1:‹port›",
  },
  {
    what: "duration",
    pattern: /(?<![\w.])\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds?|min|minutes?)\b/g,
    placeholder: "‹duration›",
  },
  {
    what: "request id",
    pattern: /\b(x-request-id|request[ _-]?id)(["']?\s*[:=]?\s*["']?)[\w.:-]+/gi,
    placeholder: "$1$2‹id›",
  },
  {
    what: "temporary path",
    pattern: /(?:\/tmp|\/var\/folders\/[^\s/]+\/[^\s/]+\/T)\/[^\s'"),;]+/g,
    placeholder: "‹tmp›",
  },
];

/** `text` with what every run changes replaced by placeholders (see {@link VOLATILE}). */
export function normalizeVolatile(text: string): string {
  let out = text.replace(/\r\n/g, "\n");
  for (const v of VOLATILE) out = out.replace(v.pattern, v.placeholder);
  return out;
}

/**
 * A number in text: optional sign (also U+2212), digits with optional thousands groups, a fraction and
 * an exponent. Not part of a word or a version (`30Y`, `2s10s`, `rpl-3`, `4.1.1`) nor inside a date
 * (`2026-11-20`); a number with a fraction may carry a unit (`-538.2m`, `0.33y`).
 */
const INT = String.raw`(?:\d{1,3}(?:,\d{3})+|\d+)`;
const NUMBER = new RegExp(
  String.raw`(?<![\w.\-−])[-+−]?(?:${INT}\.\d+(?:[eE][-+]?\d+)?(?!\d|\.\d)|${INT}(?:[eE][-+]?\d+)?(?![\w-]|\.\d)|\.\d+(?!\d|\.\d))`,
  "g",
);

/** A line split into its text (numbers replaced by `#`) and its numbers. */
export interface Tokens {
  skeleton: string;
  numbers: number[];
}

export function tokenize(line: string): Tokens {
  const numbers: number[] = [];
  const skeleton = line.replace(NUMBER, (m) => {
    numbers.push(Number(m.replace(/,/g, "").replace("−", "-")));
    return "#";
  });
  // Padding and the rules of a text table (console.table) widen with their widest number: not a change.
  return {
    skeleton: skeleton
      .replace(/[─━═-]{2,}/g, "─")
      .replace(/[ \t]+/g, " ")
      .trimEnd(),
    numbers,
  };
}

/** A changed line: in both (its numbers moved), only before (removed) or only after (added). */
export interface LineChange {
  kind: "changed" | "added" | "removed";
  before?: string;
  after?: string;
  /** For `changed`: the largest |after − before| among its numbers. */
  move?: number;
}

export interface TextDiff {
  changes: LineChange[];
  /** Lines compared, before and after. */
  linesBefore: number;
  linesAfter: number;
}

/** Lines beyond which pairing falls back from the longest common subsequence to position (n × m cells). */
const MAX_LCS_CELLS = 4_000_000;

/**
 * The lines of two texts (already normalized) that differ: lines are paired on their skeleton (longest
 * common subsequence), and a pair whose numbers differ beyond the tolerance is `changed`. Undefined when
 * nothing differs.
 */
export function diffText(before: string, after: string, tolerance: number): TextDiff | undefined {
  if (before === after) return undefined;
  const a = splitLines(before);
  const b = splitLines(after);
  const ta = a.map(tokenize);
  const tb = b.map(tokenize);
  const pairs = pairLines(
    ta.map((t) => t.skeleton),
    tb.map((t) => t.skeleton),
  );
  const changes: LineChange[] = [];
  let i = 0;
  let j = 0;
  for (const [pi, pj] of [...pairs, [a.length, b.length] as const]) {
    for (; i < pi; i++) changes.push({ kind: "removed", before: a[i] });
    for (; j < pj; j++) changes.push({ kind: "added", after: b[j] });
    if (pi < a.length && pj < b.length) {
      const move = numbersMove(ta[pi]!.numbers, tb[pj]!.numbers, tolerance);
      if (move !== undefined) changes.push({ kind: "changed", before: a[pi], after: b[pj], move });
      i = pi + 1;
      j = pj + 1;
    }
  }
  return changes.length ? { changes, linesBefore: a.length, linesAfter: b.length } : undefined;
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** The largest move between two equally long lists of numbers, or undefined when all are the same within the tolerance. */
function numbersMove(x: readonly number[], y: readonly number[], tolerance: number): number | undefined {
  let move: number | undefined;
  for (let k = 0; k < x.length; k++) {
    if (sameNumber(x[k]!, y[k]!, tolerance)) continue;
    const d = Math.abs(y[k]! - x[k]!);
    move = Math.max(move ?? 0, Number.isNaN(d) ? Infinity : d);
  }
  return move;
}

/** Index pairs of equal strings in order (longest common subsequence; by position when too large). */
export function pairLines(a: readonly string[], b: readonly string[]): [number, number][] {
  // Common head and tail first: most runs differ in a few lines.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const pairs: [number, number][] = [];
  for (let k = 0; k < head; k++) pairs.push([k, k]);
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  if (n > 0 && m > 0) {
    const middle = n * m > MAX_LCS_CELLS ? byPosition(a, b, head, n, m) : lcs(a, b, head, n, m);
    pairs.push(...middle);
  }
  for (let k = tail; k > 0; k--) pairs.push([a.length - k, b.length - k]);
  return pairs;
}

function byPosition(
  a: readonly string[],
  b: readonly string[],
  head: number,
  n: number,
  m: number,
): [number, number][] {
  const out: [number, number][] = [];
  for (let k = 0; k < Math.min(n, m); k++) if (a[head + k] === b[head + k]) out.push([head + k, head + k]);
  return out;
}

function lcs(a: readonly string[], b: readonly string[], head: number, n: number, m: number): [number, number][] {
  const table = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      table[at(i, j)] =
        a[head + i] === b[head + j]
          ? table[at(i + 1, j + 1)]! + 1
          : Math.max(table[at(i + 1, j)]!, table[at(i, j + 1)]!);
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[head + i] === b[head + j]) {
      out.push([head + i, head + j]);
      i++;
      j++;
    } else if (table[at(i + 1, j)]! >= table[at(i, j + 1)]!) i++;
    else j++;
  }
  return out;
}
