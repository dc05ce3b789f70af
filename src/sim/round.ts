/** `round(0.123456, 4)` → 0.1235: the simulator's data carries sensible decimals, like a real feed. */
export function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
