/** Test helpers for byte streams cut anywhere. */

/** UTF-8 bytes of `text`. */
export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Splits the bytes at the given cut points (a fresh buffer per chunk, as a network would give). */
export function chunked(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const p of [...points, bytes.length]) {
    if (p > at) out.push(bytes.slice(at, p));
    at = Math.max(at, p);
  }
  return out;
}
