/** Small type guards shared by the wire model. */

/**
 * A non-null object that is not an array (a JSON object, or any object instance).
 * @example
 * ```ts
 * import { isRecord } from "risk-portal-lab/api";
 * isRecord({ a: 1 }); // true; false for null and arrays
 * ```
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deepest nesting of objects and arrays a request body may have (the spec's deepest is under 10). */
export const MAX_BODY_DEPTH = 64;

/**
 * The first thing in a JSON-bound value that JSON cannot carry faithfully: nesting deeper than
 * `maxDepth`, or a number that is NaN or infinite (`JSON.stringify` would write `null`). Iterative, so
 * a value nested 10,000 deep is reported, not a stack overflow. `path` uses the wire's field notation.
 */
export function jsonShapeIssue(
  value: unknown,
  options: { maxDepth?: number; finite?: boolean } = {},
): { path: string; message: string } | undefined {
  const maxDepth = options.maxDepth ?? MAX_BODY_DEPTH;
  const checkFinite = options.finite !== false;
  if (typeof value === "number" && checkFinite && !Number.isFinite(value))
    return { path: "(root)", message: notFinite(value) };
  // Paths are only spelled out for the issue found: each entry knows its parent and its key. Module-level
  // helpers over this state, not closures: the bundle (keepNames) names every closure it makes, per call.
  const w: Walk = { values: [value], parents: [-1], keys: [""], depths: [0], stack: [0], checkFinite };
  while (w.stack.length) {
    const at = w.stack.pop()!;
    const v = w.values[at] as object;
    const depth = w.depths[at]!;
    if (depth >= maxDepth) return { path: pathOf(w, at), message: `nested deeper than ${maxDepth} levels` };
    let bad = -1;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length && bad < 0; i++) bad = visit(w, v[i], at, i, depth + 1);
    } else {
      for (const key in v) {
        if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
        bad = visit(w, (v as Record<string, unknown>)[key], at, key, depth + 1);
        if (bad >= 0) break;
      }
    }
    if (bad >= 0) return { path: pathOf(w, bad), message: notFinite(w.values[bad] as number) };
  }
  return undefined;
}

/** The state of one {@link jsonShapeIssue} walk: every object, array or bad number met, with its parent, key and depth. */
interface Walk {
  values: unknown[];
  parents: number[];
  keys: (string | number)[];
  depths: number[];
  /** Entries still to look into. */
  stack: number[];
  checkFinite: boolean;
}

/** The wire's field notation of entry `at` (`surface.vols[3]`). */
function pathOf(w: Walk, at: number): string {
  const parts: (string | number)[] = [];
  for (let i = at; i > 0; i = w.parents[i]!) parts.push(w.keys[i]!);
  let out = "";
  for (let j = parts.length - 1; j >= 0; j--) {
    const key = parts[j]!;
    out += typeof key === "number" ? `[${key}]` : out ? `.${key}` : key;
  }
  return out || "(root)";
}

/** Notes one value: an object or array to look into, or a bad number (its entry, returned); -1 otherwise. */
function visit(w: Walk, v: unknown, parent: number, key: string | number, depth: number): number {
  if (typeof v === "number") {
    if (w.checkFinite && !Number.isFinite(v)) return add(w, v, parent, key, depth);
    return -1;
  }
  if (typeof v !== "object" || v === null || v instanceof Date) return -1;
  w.stack.push(add(w, v, parent, key, depth));
  return -1;
}

function add(w: Walk, v: unknown, parent: number, key: string | number, depth: number): number {
  w.values.push(v);
  w.parents.push(parent);
  w.keys.push(key);
  w.depths.push(depth);
  return w.values.length - 1;
}

function notFinite(v: number): string {
  return `${v} is not a finite number (JSON has no NaN or Infinity: it would be sent as null)`;
}
