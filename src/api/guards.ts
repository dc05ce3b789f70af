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
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: "", depth: 0 }];
  while (stack.length) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === "number") {
      if (options.finite !== false && !Number.isFinite(v)) return { path: path || "(root)", message: `${v} is not a finite number (JSON has no NaN or Infinity: it would be sent as null)` };
      continue;
    }
    if (typeof v !== "object" || v === null) continue;
    if (depth >= maxDepth) return { path: path || "(root)", message: `nested deeper than ${maxDepth} levels` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: `${path}[${i}]`, depth: depth + 1 });
    } else if (!(v instanceof Date)) {
      const entries = Object.entries(v as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], path: path ? `${path}.${entries[i]![0]}` : entries[i]![0], depth: depth + 1 });
    }
  }
  return undefined;
}
