import { describe, expect, it } from "vitest";
import { dateLabel, isIsoDate, parseIsoDate, toDate } from "../../src/table/iso-date";

describe("parseIsoDate(text)", () => {
  it("reads a date alone as midnight UTC", () => {
    expect(parseIsoDate("2026-11-20")).toBe(Date.UTC(2026, 10, 20));
  });

  it("applies the offset, so the same instant written with different offsets is one value", () => {
    const utc = parseIsoDate("2026-11-20T08:00:00Z");
    expect(parseIsoDate("2026-11-20T10:00:00+02:00")).toBe(utc);
    expect(parseIsoDate("2026-11-20T03:00:00-05:00")).toBe(utc);
    expect(parseIsoDate("2026-11-20T10:00:00+0200")).toBe(utc);
    expect(parseIsoDate("2026-11-20t08:00:00z")).toBe(utc);
  });

  it("reads a date-time without offset as UTC, never in the machine's time zone", () => {
    expect(parseIsoDate("2026-11-20T08:00:00")).toBe(Date.UTC(2026, 10, 20, 8));
    expect(parseIsoDate("2026-11-20T08:00")).toBe(Date.UTC(2026, 10, 20, 8));
  });

  it("keeps milliseconds and truncates .NET's seven fractional digits", () => {
    expect(parseIsoDate("2026-11-20T06:31:12.512+00:00")).toBe(Date.UTC(2026, 10, 20, 6, 31, 12, 512));
    expect(parseIsoDate("2026-11-20T06:31:12.5123456+00:00")).toBe(Date.UTC(2026, 10, 20, 6, 31, 12, 512));
    expect(parseIsoDate("2026-11-20T06:31:12.5+00:00")).toBe(Date.UTC(2026, 10, 20, 6, 31, 12, 500));
  });

  it("agrees with Date.parse on well-formed ISO strings", () => {
    for (const s of [
      "2024-02-29T23:59:59.999Z",
      "1999-12-31T00:00:00+14:00",
      "2026-03-29T01:30:00-09:30",
      "2000-01-01",
    ]) {
      expect(parseIsoDate(s)).toBe(Date.parse(s));
    }
  });

  it("keeps years below 100 literal", () => {
    expect(new Date(parseIsoDate("0050-06-01")).getUTCFullYear()).toBe(50);
  });

  it("is NaN for anything that is not an ISO date, including what Date.parse would guess at", () => {
    for (const s of [
      "",
      "1",
      "March 7",
      "2026/11/20",
      "20-11-2026",
      "2026-13-01",
      "2026-02-30",
      "2025-02-29",
      "2026-11-20T25:00:00Z",
      "2026-11-20T10:00:00+2",
      "2026-11-20T10:00:00Q",
      "2026-11-20 extra",
      "T0001",
      "abc",
    ]) {
      expect(parseIsoDate(s), s).toBeNaN();
    }
  });
});

describe("isIsoDate, toDate and dateLabel", () => {
  it("isIsoDate says whether a text reads as a date", () => {
    expect(isIsoDate("2026-11-20")).toBe(true);
    expect(isIsoDate("GS")).toBe(false);
  });

  it("toDate gives a Date or undefined", () => {
    expect(toDate("2026-11-20T00:00:00+01:00")?.toISOString()).toBe("2026-11-19T23:00:00.000Z");
    expect(toDate("nope")).toBeUndefined();
  });

  it("dateLabel writes midnight UTC as the date alone and anything else in full", () => {
    expect(dateLabel(new Date("2026-11-20T00:00:00Z"))).toBe("2026-11-20");
    expect(dateLabel(new Date("2026-11-20T00:00:00+01:00"))).toBe("2026-11-19T23:00:00.000Z");
  });
});
