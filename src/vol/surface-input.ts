/**
 * Reading a `surface` (the wire JSON of `GetVol`, or the same with `Date` / `Float64Array` values) into
 * checked Float64Arrays, once. Every failure is a {@link VolModelError} naming the field, the benchmark
 * index when there is one, and the condition.
 */
import { DAYS_PER_YEAR } from "../api/assumptions";
import { auditFields, dateTimeInput } from "../api/common";
import { namedDateProblem } from "../api/field-messages";
import type { VolSurface, VolSurfaceInput } from "../api/wire-types";
import { VolModelError, fmt } from "./errors";

/** The surface's per-benchmark arrays: wire name → name in {@link SurfaceArrays}. */
const ARRAY_FIELDS = {
  benchmark_maturities: "maturities",
  benchmark_fwd_factors: "fwdFactors",
  vols: "vols",
  skews: "skews",
  smiles: "smiles",
  put_wings: "putWings",
  call_wings: "callWings",
} as const satisfies Partial<Record<keyof VolSurfaceInput, string>>;

type ArrayField = keyof typeof ARRAY_FIELDS;
const SCALAR_FIELDS = ["reference_date", "spot_ref"] as const satisfies readonly (keyof VolSurfaceInput)[];
/** Fields the pages show on a surface that carry no model input: its `$type` and the audit fields (accepted, ignored). */
const IGNORED_FIELDS = ["$type", ...Object.keys(auditFields)] as ("$type" | keyof typeof auditFields)[];
/** Every model field of the wire `surface`; the compile-time check below fails if the wire schema gains or loses one. */
const ALL_FIELDS: readonly string[] = [...Object.keys(ARRAY_FIELDS), ...SCALAR_FIELDS];
type Exhaustive = Exclude<
  keyof VolSurfaceInput,
  ArrayField | (typeof SCALAR_FIELDS)[number] | (typeof IGNORED_FIELDS)[number]
>;
const exhaustive: [Exhaustive] extends [never] ? true : never = true;
void exhaustive;

/** A surface read and checked field by field (shapes and finiteness; the model's own conditions come later). */
export interface SurfaceArrays {
  /** Benchmark maturities, calendar days after `referenceDate`, strictly increasing. */
  maturities: Float64Array;
  fwdFactors: Float64Array;
  vols: Float64Array;
  skews: Float64Array;
  smiles: Float64Array;
  putWings: Float64Array;
  callWings: Float64Array;
  spotRef: number;
  referenceDate: Date;
  /** `reference_date` as the wire carries it (ISO 8601 with an offset). */
  referenceDateIso: string;
}

/** A surface as `fromSurface` accepts it: the wire JSON (`VolSurface`) or its input form (`Date`, `Float64Array`). */
export type SurfaceLike = VolSurfaceInput | VolSurface;

function bad(message: string, field: string | undefined, condition: string, benchmark?: number): never {
  throw new VolModelError(message, { field, condition, benchmark });
}

/**
 * Copies `value` into a new Float64Array, checking that it is an array (or typed array) of finite numbers.
 * `what` names it in errors (`strikes`, `vols`); with `perBenchmark`, the index is reported as a benchmark.
 */
export function toFloat64(
  value: unknown,
  what: string,
  options: { perBenchmark?: boolean; allowEmpty?: boolean; finite?: boolean } = {},
): Float64Array {
  let out: Float64Array;
  if (value instanceof Float64Array) {
    out = value;
  } else if (Array.isArray(value)) {
    out = new Float64Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const x: unknown = value[i];
      if (typeof x !== "number") {
        bad(
          `${what}[${i}] must be a number; got ${typeof x === "string" ? JSON.stringify(x) : typeof x}`,
          what,
          "number",
          options.perBenchmark ? i : undefined,
        );
      }
      out[i] = x;
    }
  } else if (
    ArrayBuffer.isView(value) &&
    !(value instanceof DataView) &&
    !(value instanceof BigInt64Array) &&
    !(value instanceof BigUint64Array)
  ) {
    out = Float64Array.from(value as unknown as ArrayLike<number>);
  } else {
    bad(
      `${what} must be an array of numbers (or a Float64Array); got ${value === null ? "null" : typeof value}`,
      what,
      "array",
    );
  }
  if (!options.allowEmpty && out.length === 0) bad(`${what} must hold at least one number`, what, "non-empty");
  if (options.finite !== false) {
    for (let i = 0; i < out.length; i++) {
      if (!Number.isFinite(out[i]!)) {
        bad(
          `${options.perBenchmark ? `benchmark ${i}: ` : ""}${what}[${i}] must be a finite number; got ${out[i]}`,
          what,
          "finite",
          options.perBenchmark ? i : undefined,
        );
      }
    }
  }
  return out;
}

/** Benchmark maturities: > 0 days and strictly increasing, also in years. */
function checkMaturities(mats: Float64Array): void {
  const n = mats.length;
  for (let i = 0; i < n; i++) {
    const d = mats[i]!;
    if (!(d > 0))
      bad(
        `benchmark ${i}: benchmark_maturities[${i}] must be > 0 days; got ${fmt(d)}`,
        "benchmark_maturities",
        "T > 0",
        i,
      );
    if (i > 0 && !(d > mats[i - 1]!)) {
      const what =
        d === mats[i - 1]
          ? `repeats the maturity of benchmark ${i - 1} (${fmt(d)} d)`
          : `${fmt(d)} d comes after ${fmt(mats[i - 1]!)} d (benchmark ${i - 1})`;
      bad(
        `benchmark ${i}: benchmark_maturities must be strictly increasing; benchmark ${i} ${what}`,
        "benchmark_maturities",
        "strictly increasing",
        i,
      );
    }
    // Distinct in days but equal in years would make the interpolation divide by zero.
    if (i > 0 && !(d / DAYS_PER_YEAR > mats[i - 1]! / DAYS_PER_YEAR)) {
      bad(
        `benchmark ${i}: maturity ${d} d is indistinguishable from ${mats[i - 1]} d in years`,
        "benchmark_maturities",
        "strictly increasing",
        i,
      );
    }
  }
}

/**
 * Reads and checks a surface: every field present and no unknown one, arrays of one finite number per
 * benchmark, `spot_ref` finite and > 0, `reference_date` a valid date-time (ISO with offset, date-only, or
 * a `Date`), maturities finite, > 0 and strictly increasing (a repeated maturity is an error).
 */
export function readSurface(surface: SurfaceLike): SurfaceArrays {
  if (surface === null || typeof surface !== "object" || Array.isArray(surface)) {
    bad(
      `surface must be an object with fields ${ALL_FIELDS.join(", ")}; got ${surface === null ? "null" : Array.isArray(surface) ? "an array" : typeof surface}`,
      undefined,
      "object",
    );
  }
  const record = surface as unknown as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (
      !ALL_FIELDS.includes(key) &&
      !(IGNORED_FIELDS as string[]).includes(key) &&
      !/^[a-z]+_(created|modified|modified_by)$/.test(key)
    )
      bad(
        `surface has an unknown field ${JSON.stringify(key)}; the fields are ${ALL_FIELDS.join(", ")}`,
        key,
        "known field",
      );
  }
  for (const key of ALL_FIELDS) {
    if (record[key] === undefined) bad(`surface.${key} is missing`, key, "present");
  }
  const arrays = {} as Record<(typeof ARRAY_FIELDS)[ArrayField], Float64Array>;
  for (const [wire, name] of Object.entries(ARRAY_FIELDS) as [ArrayField, (typeof ARRAY_FIELDS)[ArrayField]][]) {
    // A copy, so a caller mutating their Float64Array later cannot change a validated model.
    const a = toFloat64(record[wire], wire, { perBenchmark: true });
    arrays[name] = a === record[wire] ? a.slice() : a;
  }
  const n = arrays.maturities.length;
  for (const wire of Object.keys(ARRAY_FIELDS) as ArrayField[]) {
    const len = arrays[ARRAY_FIELDS[wire]].length;
    if (len !== n) {
      bad(
        `${wire} has ${len} values but benchmark_maturities has ${n}; every surface array needs one value per benchmark`,
        wire,
        "same length",
      );
    }
  }
  const spot = record.spot_ref;
  if (typeof spot !== "number" || !Number.isFinite(spot) || !(spot > 0)) {
    bad(
      `spot_ref must be a finite number > 0; got ${typeof spot === "number" ? fmt(spot) : JSON.stringify(spot)}`,
      "spot_ref",
      "spot_ref > 0",
    );
  }
  const date = dateTimeInput.safeParse(record.reference_date);
  if (!date.success) {
    const shown = record.reference_date instanceof Date ? "Invalid Date" : JSON.stringify(record.reference_date);
    const why = namedDateProblem(record.reference_date);
    bad(
      why
        ? `reference_date: ${why}`
        : `reference_date must be a Date or an ISO 8601 date-time with an offset (or a date YYYY-MM-DD); got ${shown}`,
      "reference_date",
      "date-time",
    );
  }
  checkMaturities(arrays.maturities);
  return { ...arrays, spotRef: spot, referenceDate: new Date(date.data), referenceDateIso: date.data };
}
