/**
 * Frame-wide arithmetic and comparisons in doubles. danfo 1.2 computes `df.add(x)`, `df.mul(x)`, `df.gt(x)`, …
 * on float32 tensors: 51,832,906,865.2 becomes 51,832,905,728, and a comparison near a threshold can flip.
 * Here each cell is computed in JavaScript numbers, with danfo's operands (a number, a Series or an array
 * along `axis` 1 (one value per column, the default) or 0 (one per row), or a DataFrame of the same shape),
 * its checks and its results' shape (same index and columns). Missing values (NaN, null) stay missing:
 * `NaN + 1` is NaN and a comparison with a missing value is false (`ne`: true), as float32 tensors gave for NaN.
 * `mod` is the floored remainder (the sign of the divisor), as TensorFlow's `mod` that danfo used.
 */
import { frameFromColumns } from "./build";
import { columnsOf, isFrame, rowCount, type DanfoClasses, type Frame } from "./types";

type Op = (a: number, b: number) => number;
type Cmp = (a: number, b: number) => boolean;

const MATH: Record<string, Op> = {
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  div: (a, b) => a / b,
  divNoNan: (a, b) => (b === 0 ? 0 : a / b),
  pow: (a, b) => Math.pow(a, b),
  mod: (a, b) => {
    const r = a % b;
    return r !== 0 && r < 0 !== b < 0 ? r + b : r;
  },
};

const COMPARE: Record<string, Cmp> = {
  lt: (a, b) => a < b,
  gt: (a, b) => a > b,
  le: (a, b) => a <= b,
  ge: (a, b) => a >= b,
  eq: (a, b) => a === b,
  ne: (a, b) => a !== b,
};

/** A cell as a double: missing is NaN, booleans 1/0 (as danfo's tensors took them), dates their time. */
function toNumber(v: unknown): number {
  if (typeof v === "number") return v;
  if (v === null || v === undefined) return NaN;
  return Number(v);
}

/** For each column j, a function of the row giving the right operand (danfo's broadcasting rules). */
function operand(
  cls: DanfoClasses,
  frame: Frame,
  other: unknown,
  axis: number,
  name: string,
): (i: number, j: number) => number {
  const [n, m] = [rowCount(frame), frame.$columns.length];
  if (typeof other === "number") return () => other;
  if (isFrame(other, cls.DataFrame)) {
    if (rowCount(other) !== n || other.$columns.length !== m)
      throw new Error(
        `ParamError: ${name}: the DataFrame operand is ${rowCount(other)}×${other.$columns.length}; this frame is ${n}×${m}`,
      );
    const columns = columnsOf(other);
    return (i, j) => toNumber(columns[j]![i]);
  }
  let values: readonly unknown[];
  if (isFrame(other, cls.Series)) values = other.$data;
  else if (Array.isArray(other)) values = other;
  else
    throw new Error("ParamError: Invalid type for other parameter. other must be one of Series, DataFrame or number.");
  const want = axis === 0 ? n : m;
  if (values.length !== want)
    throw new Error(
      `ParamError: ${name} with axis ${axis} needs one value per ${axis === 0 ? "row" : "column"} (${want}); got ${values.length}`,
    );
  const numbers = values.map(toNumber);
  return axis === 0 ? (i) => numbers[i]! : (_i, j) => numbers[j]!;
}

function checkFrame(frame: Frame, name: string, axis: unknown): void {
  if (frame.$dtypes.some((d) => d === "string"))
    throw Error(`TypeError: ${name} operation is not supported for string dtypes`);
  if (axis !== 0 && axis !== 1) throw Error("ParamError: Axis must be 0 or 1");
}

/** The result columns of `op` cell by cell, and whether each holds only integers (an int32 column stays int32 then). */
function compute<T>(frame: Frame, right: (i: number, j: number) => number, op: (a: number, b: number) => T): T[][] {
  const columns = columnsOf(frame);
  return columns.map((column, j) => {
    const out = new Array<T>(column.length);
    for (let i = 0; i < column.length; i++) out[i] = op(toNumber(column[i]), right(i, j));
    return out;
  });
}

function mathOp(cls: DanfoClasses, name: string, op: Op) {
  return function (this: Frame, other: unknown, options?: { inplace?: boolean; axis?: number }) {
    const { inplace = false, axis = 1 } = options ?? {};
    checkFrame(this, name, axis);
    const columns = compute(this, operand(cls, this, other, axis, name), op);
    const dtypes = columns.map((c, j) =>
      this.$dtypes[j] === "int32" && c.every((v) => Number.isInteger(v)) ? "int32" : "float32",
    );
    const result = frameFromColumns(
      cls.DataFrame,
      [...this.$columns],
      dtypes,
      columns,
      rowCount(this),
      [...this.$index],
      this.config,
    );
    if (!inplace) return result;
    this.$data = result.$data;
    this.$dataIncolumnFormat = result.$dataIncolumnFormat;
    this.$dtypes = result.$dtypes;
    return undefined;
  };
}

function compareOp(cls: DanfoClasses, name: string, cmp: Cmp) {
  return function (this: Frame, other: unknown, options?: { axis?: number }) {
    const { axis = 1 } = options ?? {};
    checkFrame(this, name, axis);
    const columns = compute(this, operand(cls, this, other, axis, name), cmp);
    return frameFromColumns(
      cls.DataFrame,
      [...this.$columns],
      columns.map(() => "boolean"),
      columns,
      rowCount(this),
      [...this.$index],
      this.config,
    );
  };
}

/** Installs add, sub, mul, div, divNoNan, pow, mod and lt, gt, le, ge, eq, ne on the base DataFrame prototype. */
export function installArithmetic(
  cls: DanfoClasses,
  patch: (target: object, key: string, value: unknown) => void,
): void {
  for (const [name, op] of Object.entries(MATH)) patch(cls.frame, name, mathOp(cls, name, op));
  for (const [name, cmp] of Object.entries(COMPARE)) patch(cls.frame, name, compareOp(cls, name, cmp));
}
