/**
 * What the package corrects in danfo 1.2, applied once to danfo's prototypes when {@link loadDanfo} first
 * loads it, so that every frame is corrected: those the package returns and those danfo derives from them.
 * Each file owns one trap:
 * - indexing.ts: a boolean mask (`query`, `iloc`, `loc`) selects the rows at its true positions on any index;
 * - arithmetic.ts: frame-wide `add` … `mod`, `lt` … `ne` in doubles, not float32 tensors;
 * - dtypes.ts: `dtypes` say `float64` for number columns (danfo's code keeps its own `float32` inside);
 * - sort.ts: `sortValues` by a typed-array argsort, one or several columns, stable, missing last;
 * - aggregate.ts: `groupby(…).agg(…)` and its shortcuts for sum/mean/count/min/max in one pass, and
 *   `describe` over the number columns without mathjs (danfo's threw on a frame with a date column);
 * - copies.ts: `concat` along rows and `fillNa` of some columns no longer change their input;
 * - series.ts: a column as a Series (`df[col]`) and a Series compared (`gt`, …) without a Set of every index
 *   label (a `query` after a sort at a million rows).
 * {@link withUpstreamDanfo} runs code with danfo's own methods back (tests and bench/danfo.mjs compare).
 */
import { installAggregates } from "./aggregate";
import { installArithmetic } from "./arithmetic";
import { installCopies } from "./copies";
import { installDtypes } from "./dtypes";
import { installIndexing } from "./indexing";
import { installSeries } from "./series";
import { installSort } from "./sort";
import type { DanfoClasses, FrameClass } from "./types";

/** One replaced member: where, its descriptor as danfo had it, and ours. */
interface Replaced {
  target: object;
  key: string;
  upstream: PropertyDescriptor | undefined;
  ours: PropertyDescriptor;
}

// On the prototype itself (Symbol.for): the package's bundle and its tsc output may both load this module
// for the one vendor/danfo, and must neither correct twice nor lose what danfo had.
const REPLACED = Symbol.for("risk-portal-lab.danfo-fixes.replaced");

/** The base class a danfojs-node class extends under the same name (what danfo's own methods construct). */
function baseClass(cls: FrameClass): FrameClass {
  let proto = cls.prototype as object;
  const name = (proto.constructor as { name: string }).name;
  for (
    let up = Object.getPrototypeOf(proto) as object | null;
    up?.constructor?.name === name;
    up = Object.getPrototypeOf(up) as object | null
  )
    proto = up;
  return proto.constructor as FrameClass;
}

function replacedOf(frameProto: object): Replaced[] | undefined {
  return (frameProto as Record<symbol, Replaced[] | undefined>)[REPLACED];
}

/** Corrects danfo's prototypes (once; a second call does nothing). `danfo` is vendor/danfo's exports. */
export function applyDanfoFixes(danfo: { DataFrame: unknown; Series: unknown }): void {
  const DataFrame = baseClass(danfo.DataFrame as FrameClass);
  const Series = baseClass(danfo.Series as FrameClass);
  const frame = DataFrame.prototype as unknown as Record<string, unknown>;
  if (replacedOf(frame)) return;
  const replaced: Replaced[] = [];
  const cls: DanfoClasses = {
    DataFrame,
    Series,
    frame,
    series: Series.prototype,
    ndframe: Object.getPrototypeOf(frame) as Record<string, unknown>,
    upstream(target, key) {
      const own = replaced.find((r) => r.target === target && r.key === key)?.upstream;
      const value = (own ?? lookup(target, key))?.value as ((...args: unknown[]) => unknown) | undefined;
      if (typeof value !== "function")
        throw new Error(`danfo has no method ${key} to correct: is vendor/danfo danfojs 1.2?`);
      return value;
    },
  };
  const patch = (target: object, key: string, value: unknown, accessor = false): void => {
    const ours: PropertyDescriptor = accessor
      ? { get: value as () => unknown, enumerable: false, configurable: true }
      : { value, writable: true, enumerable: false, configurable: true };
    replaced.push({ target, key, upstream: Object.getOwnPropertyDescriptor(target, key), ours });
    Object.defineProperty(target, key, ours);
  };
  installDtypes(cls, patch);
  installIndexing(cls, patch);
  installArithmetic(cls, patch);
  installSort(cls, patch);
  installAggregates(cls, patch);
  installCopies(danfo, cls, patch);
  installSeries(cls, patch);
  Object.defineProperty(frame, REPLACED, { value: replaced, enumerable: false });
}

/** A member's descriptor, looked up the prototype chain. */
function lookup(target: object, key: string): PropertyDescriptor | undefined {
  for (let o: object | null = target; o; o = Object.getPrototypeOf(o) as object | null) {
    const d = Object.getOwnPropertyDescriptor(o, key);
    if (d) return d;
  }
  return undefined;
}

/**
 * Runs `fn` with danfo's own methods in place of the corrections (synchronously; they are back when it
 * returns or throws): what danfo 1.2 alone does, for tests and benchmarks that compare. `danfo` is
 * vendor/danfo's exports, already corrected by {@link applyDanfoFixes}.
 */
export function withUpstreamDanfo<T>(danfo: { DataFrame: unknown }, fn: () => T): T {
  const replaced = replacedOf(baseClass(danfo.DataFrame as FrameClass).prototype);
  if (!replaced) return fn();
  for (const r of replaced) {
    if (r.upstream) Object.defineProperty(r.target, r.key, r.upstream);
    else delete (r.target as Record<string, unknown>)[r.key];
  }
  try {
    return fn();
  } finally {
    for (const r of replaced) Object.defineProperty(r.target, r.key, r.ours);
  }
}
