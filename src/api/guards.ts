/** Small type guards shared by the wire model. */

/** A non-null object that is not an array (a JSON object, or any object instance). */
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
export function jsonShapeIssue(value: unknown, options: { maxDepth?: number; finite?: boolean } = {}): { path: string; message: string } | undefined {
  const maxDepth = options.maxDepth ?? MAX_BODY_DEPTH;
  const checkFinite = options.finite !== false;
  // Paths are only spelled out for the issue found: each entry knows its parent and its key.
  const values: unknown[] = [value];
  const parents: number[] = [-1];
  const keys: (string | number)[] = [""];
  const depths: number[] = [0];
  const stack: number[] = [0];
  const pathOf = (at: number) => {
    const parts: (string | number)[] = [];
    for (let i = at; i > 0; i = parents[i]!) parts.push(keys[i]!);
    let out = "";
    for (let j = parts.length - 1; j >= 0; j--) {
      const key = parts[j]!;
      out += typeof key === "number" ? `[${key}]` : out ? `.${key}` : key;
    }
    return out || "(root)";
  };
  const visit = (v: unknown, parent: number, key: string | number, depth: number) => {
    if (typeof v === "number") {
      if (checkFinite && !Number.isFinite(v)) {
        values.push(v);
        parents.push(parent);
        keys.push(key);
        depths.push(depth);
        return values.length - 1;
      }
      return -1;
    }
    if (typeof v !== "object" || v === null || v instanceof Date) return -1;
    values.push(v);
    parents.push(parent);
    keys.push(key);
    depths.push(depth);
    stack.push(values.length - 1);
    return -1;
  };
  if (typeof value === "number" && checkFinite && !Number.isFinite(value)) return { path: "(root)", message: notFinite(value) };
  while (stack.length) {
    const at = stack.pop()!;
    const v = values[at] as object;
    const depth = depths[at]!;
    if (depth >= maxDepth) return { path: pathOf(at), message: `nested deeper than ${maxDepth} levels` };
    let bad = -1;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length && bad < 0; i++) bad = visit(v[i], at, i, depth + 1);
    } else {
      for (const key in v) {
        if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
        bad = visit((v as Record<string, unknown>)[key], at, key, depth + 1);
        if (bad >= 0) break;
      }
    }
    if (bad >= 0) return { path: pathOf(bad), message: notFinite(values[bad] as number) };
  }
  return undefined;
}

function notFinite(v: number): string {
  return `${v} is not a finite number (JSON has no NaN or Infinity: it would be sent as null)`;
}
