/**
 * groupby(…).agg(…) for sum, mean, count, min and max in one pass over the columns, and describe.
 *
 * danfo 1.2's groupby copies every row into per-group arrays of every column as soon as `groupby` is
 * called, then builds its result by concatenating arrays group after group: seconds on a million rows.
 * Here `groupby(keys)` returns danfo's Groupby built only when needed (a Proxy): `agg`, `sum`, `mean`,
 * `count`, `min`, `max` (also after `.col([...])`) compute from the columns with one group id per row;
 * everything else (std, var, apply, getGroup, cumSum, …) is danfo's own. The result is danfo's: the key
 * columns then `<column>_<op>`, groups in danfo's order, values as danfo's reductions compute them
 * (`count` counts rows; a missing value makes a sum or mean missing), dtypes inferred as danfo infers them.
 * Groups are told apart by their key values (danfo joined them with "-", so ("a-b", "c") and ("a", "b-c")
 * were one group, and two dates in the same second too).
 */
import { frameFromColumns } from "./build";
import { columnsOf, isMissing, rowCount, type DanfoClasses, type Frame } from "./types";

const FAST = new Set(["sum", "mean", "count", "min", "max"]);
const DANFO_OPS = [
  "mean",
  "sum",
  "count",
  "mode",
  "std",
  "var",
  "cumsum",
  "cumprod",
  "cummax",
  "cummin",
  "median",
  "min",
  "max",
];

interface Groups {
  /** Group id of each row. */
  ids: Int32Array;
  /** Each group's first row. */
  firstRow: number[];
}

/** A key value as a part of a group's identity (type-tagged, dates by their time). */
function keyPart(v: unknown): string {
  if (v instanceof Date) return `d${v.getTime()}`;
  return `${typeof v}:${String(v)}`;
}

/** Codes of one key column (0, 1, … by first appearance) and how many distinct values it has. */
function codesOf(column: readonly unknown[]): { codes: Int32Array; count: number } {
  const codes = new Int32Array(column.length);
  const seen = new Map<unknown, number>();
  for (let i = 0; i < column.length; i++) {
    const v = column[i];
    const key = typeof v === "string" || (typeof v === "number" && !Number.isNaN(v)) ? v : keyPart(v);
    let code = seen.get(key);
    if (code === undefined) seen.set(key, (code = seen.size));
    codes[i] = code;
  }
  return { codes, count: seen.size };
}

/** Group ids by first appearance: the codes of the key columns combined one column at a time. */
function groupRows(keyColumns: unknown[][], n: number): Groups {
  let { codes: ids, count } = codesOf(keyColumns[0]!);
  for (const column of keyColumns.slice(1)) {
    const next = codesOf(column);
    const pairs = new Map<number, number>();
    const combined = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const pair = ids[i]! * next.count + next.codes[i]!;
      let id = pairs.get(pair);
      if (id === undefined) pairs.set(pair, (id = pairs.size));
      combined[i] = id;
    }
    [ids, count] = [combined, pairs.size];
  }
  const firstRow = new Array<number>(count).fill(-1);
  for (let i = 0; i < n; i++) if (firstRow[ids[i]!] === -1) firstRow[ids[i]!] = i;
  return { ids, firstRow };
}

/**
 * The groups in danfo's order: its groups are the keys of a plain object (integer-like keys first,
 * ascending, then the others as first seen), reordered by the part before the first "-" (colKeyDict).
 */
function danfoOrder(keyColumns: unknown[][], firstRow: readonly number[]): number[] {
  const byKey: Record<string, number[]> = Object.create(null) as Record<string, number[]>;
  firstRow.forEach((row, g) => (byKey[keyColumns.map((c) => c[row]).join("-")] ??= []).push(g));
  const byFirst: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const key of Object.keys(byKey)) (byFirst[key.split("-")[0]!] ??= []).push(key);
  return Object.keys(byFirst).flatMap((first) => byFirst[first]!.flatMap((key) => byKey[key]!));
}

/** One reduction per group, as danfo's groupMathLog computes it (a left fold over the group's rows). */
function reduce(values: readonly unknown[], ids: Int32Array, groups: number, op: string): unknown[] {
  if (op === "count" || op === "mean") {
    const count = new Float64Array(groups);
    for (let i = 0; i < ids.length; i++) count[ids[i]!]!++;
    if (op === "count") return Array.from(count);
    const sums = reduce(values, ids, groups, "sum") as number[];
    return sums.map((s, g) => s / count[g]!);
  }
  const acc = new Array<unknown>(groups);
  const started = new Uint8Array(groups);
  const fold: (a: number, v: number) => number =
    op === "sum" ? (a, v) => a + v : op === "max" ? (a, v) => (a > v ? a : v) : (a, v) => (a < v ? a : v);
  for (let i = 0; i < ids.length; i++) {
    const g = ids[i]!;
    const v = values[i] as number;
    if (started[g]) acc[g] = fold(acc[g] as number, v);
    else {
      started[g] = 1;
      acc[g] = v;
    }
  }
  return acc;
}

/** The agg spec as danfo validates it: { column: op | op[] }. */
function aggPlan(frame: Frame, ops: Record<string, unknown>): { column: string; op: string }[] {
  const plan: { column: string; op: string }[] = [];
  for (const [column, spec] of Object.entries(ops)) {
    if (!frame.$columns.includes(column)) throw new Error(`Column ${column} does not exist in groups`);
    for (const op of Array.isArray(spec) ? spec : [spec]) {
      if (!DANFO_OPS.includes(op as string))
        throw new Error(`group operation: ${String(op)} for column ${column} is not valid`);
      plan.push({ column, op: op as string });
    }
  }
  for (const { column, op } of plan) {
    if (frame.$dtypes[frame.$columns.indexOf(column)] === "string" && op !== "count")
      throw new Error(`Can't perform math operation on column ${column}`);
  }
  return plan;
}

/** danfo's groupby result for sum/mean/count/min/max, computed in one pass per column. */
function fastAgg(
  cls: DanfoClasses,
  frame: Frame,
  keys: readonly string[],
  plan: { column: string; op: string }[],
): Frame {
  const columns = columnsOf(frame);
  const keyColumns = keys.map((k) => columns[frame.$columns.indexOf(k)]!);
  const { ids, firstRow } = groupRows(keyColumns, rowCount(frame));
  const order = danfoOrder(keyColumns, firstRow);
  const names = [...keys];
  const out: unknown[][] = keyColumns.map((c) => order.map((g) => c[firstRow[g]!]));
  for (const { column, op } of plan) {
    const reduced = reduce(columns[frame.$columns.indexOf(column)]!, ids, firstRow.length, op);
    const name = `${column}_${op}`;
    const at = names.indexOf(name);
    const values = order.map((g) => reduced[g]);
    if (at === -1) {
      names.push(name);
      out.push(values);
    } else out[at] = values;
  }
  // danfo builds the result with new DataFrame({...}), which infers dtypes from the first rows only.
  const head: Record<string, unknown[]> = {};
  names.forEach((name, j) => (head[name] = out[j]!.slice(0, 20)));
  const dtypes = order.length === 0 ? names.map(() => "float32") : new cls.DataFrame(head).$dtypes;
  return frameFromColumns(cls.DataFrame, names, dtypes, out, order.length);
}

interface GroupState {
  keys: string[];
  /** The columns `col([...])` chose, or every column but the keys. */
  chosen: string[] | undefined;
}

/** danfo's Groupby, with the fast reductions in front (see the module comment). */
function fastGroupby(cls: DanfoClasses, frame: Frame, state: GroupState, slow: () => Record<string, unknown>): object {
  const keys = state.keys;
  const all = (op: string): Frame | undefined => {
    const chosen = state.chosen ?? frame.$columns.filter((c) => !keys.includes(c));
    return fastAgg(cls, frame, keys, aggPlan(frame, Object.fromEntries(chosen.map((c) => [c, op]))));
  };
  const own: Record<string, unknown> = {
    agg(ops: Record<string, unknown>) {
      const simple = Object.values(ops).every((s) =>
        (Array.isArray(s) ? s : [s]).every((op) => FAST.has(op as string)),
      );
      if (!simple) return (slow().agg as (o: unknown) => unknown)(ops);
      return fastAgg(cls, frame, keys, aggPlan(frame, ops));
    },
    col(names: string[] | undefined) {
      const upstream = () => (slow().col as (c: unknown) => Record<string, unknown>)(names);
      if (names !== undefined)
        for (const c of names) if (!frame.$columns.includes(c)) throw new Error(`Column ${c} does not exist in groups`);
      return fastGroupby(cls, frame, { keys, chosen: names }, upstream);
    },
  };
  for (const op of FAST) own[op] = () => all(op);
  return new Proxy(own, {
    get(target, key) {
      if (typeof key === "string" && key in target) return target[key];
      const value = slow()[key as string];
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(slow()) : value;
    },
  });
}

/** The k-th smallest of `a` (0-based; Hoare's quickselect, reorders `a`). */
function select(a: Float64Array, k: number): number {
  let [lo, hi] = [0, a.length - 1];
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]!;
    let [i, j] = [lo, hi];
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i++] = a[j]!;
        a[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k]!;
  }
  return a[k]!;
}

/** count, mean, std, min, median, max, variance of the values present (std and variance with n − 1, as mathjs). */
function columnStats(column: readonly unknown[]): number[] {
  const present = new Float64Array(column.length);
  let n = 0;
  for (const v of column) if (!isMissing(v)) present[n++] = v as number;
  let [sum, min, max] = [0, Infinity, -Infinity];
  for (let i = 0; i < n; i++) {
    const v = present[i]!;
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (present[i]! - mean) * (present[i]! - mean);
  const variance = squares / (n - 1);
  const values = present.subarray(0, n);
  const median =
    n === 0 ? NaN : n % 2 ? select(values, (n - 1) / 2) : (select(values, n / 2 - 1) + select(values, n / 2)) / 2;
  return [n, mean, Math.sqrt(variance), n ? min : NaN, median, n ? max : NaN, variance];
}

/** describe over the number columns (float32 and int32): count of values present, then mean … variance of those. */
function describe(cls: DanfoClasses, frame: Frame): Frame {
  const columns = columnsOf(frame);
  const stats: Record<string, number[]> = {};
  frame.$columns.forEach((name, j) => {
    if (frame.$dtypes[j] === "float32" || frame.$dtypes[j] === "int32") stats[name] = columnStats(columns[j]!);
  });
  return new cls.DataFrame(stats, { index: ["count", "mean", "std", "min", "median", "max", "variance"] });
}

/** Installs groupby and describe on the base DataFrame prototype. */
export function installAggregates(
  cls: DanfoClasses,
  patch: (target: object, key: string, value: unknown) => void,
): void {
  const upstreamGroupby = cls.upstream(cls.frame, "groupby");
  patch(cls.frame, "groupby", function groupby(this: Frame, keys: string[]) {
    if (!Array.isArray(keys) || keys.length === 0) return upstreamGroupby.call(this, keys);
    for (const k of keys)
      if (!this.$columns.includes(k))
        throw new Error(`ParamError: groupby column "${String(k)}" not found in columns (${this.$columns.join(", ")})`);
    let built: Record<string, unknown> | undefined;
    return fastGroupby(
      cls,
      this,
      { keys, chosen: undefined },
      () => (built ??= upstreamGroupby.call(this, keys) as Record<string, unknown>),
    );
  });
  patch(cls.frame, "describe", function (this: Frame) {
    return describe(cls, this);
  });
}
