/**
 * isoTime (src/client/iso-time.ts): an answer's receipt time, spelled in JavaScript where V8's
 * toISOString consults the local time zone (ICU) first. It must be exactly toISOString's text.
 */
import { describe, expect, it } from "vitest";
import { isoTime } from "../../src/client/iso-time";

/** A small deterministic generator (the test is the same every run). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const iso = (ms: number) => new Date(ms).toISOString();

describe("isoTime", () => {
  it("spells every millisecond of a leap day's turn and a year's turn, and the epoch, as toISOString", () => {
    const edges = [
      0,
      Date.UTC(2024, 1, 28, 23, 59, 59),
      Date.UTC(2000, 11, 31, 23, 59, 59),
      Date.UTC(2100, 1, 28, 23, 59, 59),
    ];
    for (const start of edges) for (let ms = start; ms < start + 2_000; ms++) expect(isoTime(ms)).toBe(iso(ms));
  });

  it("spells 200,000 instants from 1970 to 9999 as toISOString", () => {
    const random = lcg(30);
    const end = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    const wrong: number[] = [];
    for (let i = 0; i < 200_000; i++) {
      const ms = Math.floor(random() * end);
      if (isoTime(ms) !== iso(ms)) wrong.push(ms);
    }
    expect(wrong).toEqual([]);
  });

  it("days on either side of every 1 March and 1 January from 1970 to 2400", () => {
    for (let y = 1970; y <= 2400; y++)
      for (const ms of [Date.UTC(y, 0, 1) - 1, Date.UTC(y, 0, 1), Date.UTC(y, 2, 1) - 1, Date.UTC(y, 2, 1)])
        expect(isoTime(ms)).toBe(iso(ms));
  });

  it("leaves times before 1970 or after 9999, and fractions of a millisecond, to toISOString", () => {
    for (const ms of [-1, -86_400_000 * 365.25 * 3000, Date.UTC(10_000, 0, 1), 8.64e15, 1_700_000_000_000.5])
      expect(isoTime(ms)).toBe(iso(ms));
  });

  it("throws as toISOString throws for a time that is not one", () => {
    for (const ms of [NaN, Infinity, 8.64e15 + 1]) expect(() => isoTime(ms)).toThrow(RangeError);
  });
});
