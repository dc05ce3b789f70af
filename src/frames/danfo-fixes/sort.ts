/**
 * sortValues through a typed-array argsort. danfo 1.2 sorts {index, value} objects and then finds each
 * label with `indexOf` (quadratic: 200,000 rows take tens of seconds). Here each sort column becomes a
 * Float64Array of keys (numbers; dates as their time; booleans 0/1; text as its rank, compared upper-cased
 * as danfo does), the row positions are sorted on them, and the frame is built from columns once.
 * One column or several (`["a", "b"]`), `ascending` true/false or one per column; stable (equal keys keep
 * their order); missing values (NaN, null, an invalid date) last in every direction; `inplace` as danfo.
 */
import { takeFrame } from "./build";
import { columnsOf, isMissing, rowCount, type DanfoClasses, type Frame } from "./types";

/** Sort keys of one column: NaN for a missing value. */
export function sortKeys(values: readonly unknown[]): Float64Array {
  const n = values.length;
  const keys = new Float64Array(n);
  let text = false;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (typeof v === "string") text = true;
    keys[i] = isMissing(v)
      ? NaN
      : v instanceof Date
        ? v.getTime()
        : typeof v === "number"
          ? v
          : typeof v === "boolean"
            ? +v
            : NaN;
  }
  if (!text) return keys;
  // Text: rank the distinct upper-cased values (danfo compares a.toUpperCase() with b.toUpperCase()).
  const upper = new Map<string, number>();
  for (const v of values) if (!isMissing(v)) upper.set(String(v).toUpperCase(), 0);
  const distinct = [...upper.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  distinct.forEach((s, r) => upper.set(s, r));
  for (let i = 0; i < n; i++) {
    const v = values[i];
    keys[i] = isMissing(v) ? NaN : upper.get(String(v).toUpperCase())!;
  }
  return keys;
}

/**
 * The 64 bits of each key as two unsigned words that sort in the key's order (an IEEE double with its sign
 * bit set, or all bits inverted when negative), inverted again for a descending column; a missing key
 * (NaN) is all ones, so it comes last either way. -0 is 0 (equal keys keep their order).
 */
function radixWords(keys: Float64Array, ascending: boolean): { hi: Uint32Array; lo: Uint32Array } {
  const n = keys.length;
  const bits = new Float64Array(1);
  const words = new Uint32Array(bits.buffer);
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const v = keys[i]!;
    if (Number.isNaN(v)) {
      hi[i] = 0xffffffff;
      lo[i] = 0xffffffff;
      continue;
    }
    bits[0] = v === 0 ? 0 : v;
    let [h, l] = [words[1]!, words[0]!];
    if (h & 0x80000000) [h, l] = [~h >>> 0, ~l >>> 0];
    else h = (h | 0x80000000) >>> 0;
    [hi[i], lo[i]] = ascending ? [h, l] : [~h >>> 0, ~l >>> 0];
  }
  return { hi, lo };
}

/** One stable counting-sort pass of `order` on a 16-bit digit of `word` (skipped when every row has the same digit). */
function radixPass(
  order: Uint32Array,
  spare: Uint32Array,
  word: Uint32Array,
  shift: number,
  counts: Uint32Array,
): boolean {
  counts.fill(0);
  const n = order.length;
  for (let i = 0; i < n; i++) counts[(word[order[i]!]! >>> shift) & 0xffff]!++;
  for (let d = 0; d < 65536; d++) if (counts[d] === n) return false;
  let sum = 0;
  for (let d = 0; d < 65536; d++) [counts[d], sum] = [sum, sum + counts[d]!];
  for (let i = 0; i < n; i++) {
    const r = order[i]!;
    spare[counts[(word[r]! >>> shift) & 0xffff]!++] = r;
  }
  return true;
}

/**
 * Row positions in sorted order: a least-significant-digit radix sort (stable, linear), from the last key to
 * the first. `keys[k]` sorts ascending when `ascending[k]`, else descending; missing keys (NaN) last in each.
 */
export function argsort(keys: readonly Float64Array[], ascending: readonly boolean[], n: number): Uint32Array {
  let order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let spare = new Uint32Array(n);
  const counts = new Uint32Array(65536);
  for (let k = keys.length - 1; k >= 0; k--) {
    const { hi, lo } = radixWords(keys[k]!, ascending[k]!);
    for (const [word, shift] of [
      [lo, 0],
      [lo, 16],
      [hi, 0],
      [hi, 16],
    ] as const) {
      if (radixPass(order, spare, word, shift, counts)) [order, spare] = [spare, order];
    }
  }
  return order;
}

/** The sort columns and directions, checked as danfo checks them (and a clear error for a wrong `ascending`). */
function sortSpec(frame: Frame, column: unknown, ascending: unknown): { positions: number[]; ascending: boolean[] } {
  if (!column || (Array.isArray(column) && column.length === 0))
    throw Error("ParamError: must specify a column to sort by");
  const names = Array.isArray(column) ? (column as unknown[]) : [column];
  const positions = names.map((name) => {
    const j = frame.$columns.indexOf(name as string);
    if (j === -1) throw Error(`ParamError: specified column "${String(name)}" not found in columns`);
    return j;
  });
  const directions = Array.isArray(ascending) ? ascending : names.map(() => ascending);
  if (directions.length !== names.length || directions.some((a) => typeof a !== "boolean"))
    throw Error(
      `ParamError: ascending must be true, false or one boolean per sort column (${names.length}); got ${JSON.stringify(ascending)}`,
    );
  return { positions, ascending: directions as boolean[] };
}

/** Installs sortValues on the base DataFrame prototype. */
export function installSort(cls: DanfoClasses, patch: (target: object, key: string, value: unknown) => void): void {
  patch(
    cls.frame,
    "sortValues",
    function sortValues(this: Frame, column: unknown, options?: { ascending?: unknown; inplace?: boolean }) {
      const { ascending = true, inplace = false } = options ?? {};
      const spec = sortSpec(this, column, ascending);
      const columns = columnsOf(this);
      const order = argsort(
        spec.positions.map((j) => sortKeys(columns[j]!)),
        spec.ascending,
        rowCount(this),
      );
      const sorted = takeFrame(cls.DataFrame, this, order, null);
      if (!inplace) return sorted;
      this.$data = sorted.$data;
      this.$dataIncolumnFormat = sorted.$dataIncolumnFormat;
      this.$index = sorted.$index;
      return undefined;
    },
  );
}
