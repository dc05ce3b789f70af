/**
 * `round(0.123456, 4)` → 0.1235: the simulator's data carries sensible decimals, like a real feed. A value
 * too large to scale (1e308 · 10⁸ is Infinity) has no decimals to round: it is returned as it is, never
 * turned into Infinity (which JSON would write as null).
 */
export function round(x: number, digits: number): number {
  const f = 10 ** digits;
  const scaled = x * f;
  if (!Number.isFinite(scaled) || Math.abs(scaled) >= Number.MAX_SAFE_INTEGER) return x;
  return Math.round(scaled) / f;
}
