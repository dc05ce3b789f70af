/**
 * A column as a Series (`df[col]`, `df.column(col)`) and a Series compared (`lt`, `gt`, `le`, `ge`, `eq`, `ne`)
 * without danfo's checks of what is already known. danfo 1.2 builds each such Series through its public
 * constructor, which makes a Set of every index label to check they are distinct (they are: they are the
 * frame's own, or the compared Series') and infers the dtype again: at a million rows that was most of a
 * `query` after a sort. Here the Series is made empty with its dtype, columns and config (danfo validates
 * those), then given the values and labels exactly as danfo's constructor would. A self-check falls back
 * to the constructor if this danfo keeps its state differently. Values, index, dtypes and errors are danfo's.
 */
import { rowsPending } from "./build";
import { rowCount, type DanfoClasses, type Frame, type FrameConfig } from "./types";

/**
 * A Series of `values` labelled `index` (distinct labels, one per value: not checked again), of danfo's
 * `dtype`; `columns` as danfo's Series takes them (undefined: `["0"]`).
 */
export function seriesFrom(
  cls: DanfoClasses,
  values: unknown[],
  index: unknown[],
  dtype: string,
  columns: string[] | undefined,
  config: FrameConfig,
): Frame {
  const options: Record<string, unknown> = { dtypes: [dtype], config: { ...config } };
  if (columns) options.columns = columns;
  const n = values.length;
  if (n > 0 && index.length === n && flat(values[0])) {
    const s = new cls.Series([], { ...options, columns: columns ?? ["0"] });
    if (Array.isArray(s.$data) && Array.isArray(s.$index) && s.$isSeries) {
      s.$data = values;
      s.$dataIncolumnFormat = s.$config.isLowMemoryMode ? [] : values;
      s.$index = index;
      if (s.shape[0] === n && s.$dtypes.length === 1 && s.$dtypes[0] === dtype) return s;
    }
  }
  return new cls.Series(values, { ...options, index });
}

/**
 * Whether danfo's constructor keeps values starting with `first` as they are (one value per row): a number,
 * text, a boolean, null or a Date. It reads other first values as rows or records, or refuses them.
 */
function flat(first: unknown): boolean {
  const type = typeof first;
  return type === "number" || type === "string" || type === "boolean" || first === null || first instanceof Date;
}

type Compare = (a: unknown, b: unknown) => boolean;

/* eslint-disable @typescript-eslint/no-explicit-any -- danfo compares any values with JS's operators, as here */
const COMPARE: Record<string, Compare> = {
  lt: (a: any, b: any) => a < b,
  gt: (a: any, b: any) => a > b,
  le: (a: any, b: any) => a <= b,
  ge: (a: any, b: any) => a >= b,
  ne: (a, b) => a !== b,
  eq: (a, b) => a === b,
};
/* eslint-enable @typescript-eslint/no-explicit-any */

/** The other side of a comparison, one value per row, checked as danfo's boolOps checks it. */
function otherValues(cls: DanfoClasses, self: Frame, other: unknown, op: string): unknown[] | unknown {
  if (typeof other === "number" || (typeof other === "string" && (op === "eq" || op === "ne"))) return other;
  let values: unknown[];
  if (other instanceof cls.Series) values = other.values;
  else if (Array.isArray(other)) values = other;
  else throw new Error("ParamError: value for other not supported. It must be either a scalar, Array or Series");
  if (self.values.length !== values.length)
    throw new Error("LengthError: length of other must be equal to length of Series");
  return values;
}

/**
 * Installs the column accessor's Series and the Series comparisons on danfo's base prototypes, and a `shape`
 * that does not build the rows of a frame that has not built them yet (build.ts).
 */
export function installSeries(
  cls: DanfoClasses,
  patch: (target: object, key: string, value: unknown, accessor?: boolean) => void,
): void {
  const shape = Object.getOwnPropertyDescriptor(cls.ndframe, "shape")?.get;
  if (!shape) throw new Error("danfo has no shape getter to correct: is vendor/danfo danfojs 1.2?");
  patch(
    cls.ndframe,
    "shape",
    function (this: Frame) {
      return rowsPending(this) ? [rowCount(this), this.$columns.length] : shape.call(this);
    },
    true,
  );
  const columnData = cls.upstream(cls.frame, "$getColumnData");
  const upstreamBoolOps = cls.upstream(cls.series, "boolOps");
  patch(cls.frame, "$getColumnData", function $getColumnData(this: Frame, column: string, returnSeries = true) {
    const j = this.$columns.indexOf(column);
    // Not found (danfo's error) or the bare values: danfo's own.
    if (j === -1 || !returnSeries) return columnData.call(this, column, returnSeries);
    let values: unknown[];
    if (this.$config.isLowMemoryMode) {
      const rows = this.$data as unknown[][];
      values = new Array<unknown>(rows.length);
      for (let i = 0; i < rows.length; i++) values[i] = rows[i]![j];
    } else {
      const cached = this.$dataIncolumnFormat[j];
      if (!Array.isArray(cached)) return columnData.call(this, column, returnSeries); // an empty frame has none
      values = cached;
    }
    return seriesFrom(cls, values, this.$index.slice(), this.$dtypes[j]!, [column], this.$config);
  });
  patch(cls.series, "boolOps", function boolOps(this: Frame, other: unknown, op: string) {
    const compare = COMPARE[op];
    if (!compare) return upstreamBoolOps.call(this, other, op); // not one of danfo's six: danfo's own outcome
    const left = this.values;
    const right = otherValues(cls, this, other, op);
    const n = left.length;
    const out = new Array<boolean>(n);
    if (Array.isArray(right)) for (let i = 0; i < n; i++) out[i] = compare(left[i], right[i]);
    else for (let i = 0; i < n; i++) out[i] = compare(left[i], right);
    // danfo labels the result by inference: "boolean" for any non-empty result of a known operation.
    if (n === 0) return new cls.Series(out, { index: this.index, config: { ...this.config } });
    return seriesFrom(cls, out, this.index, "boolean", undefined, this.config);
  });
}
