/**
 * The one pass over a rows array's bytes as they stream (RowsProfile behind JsonRowScanner): whatever the
 * chunks (a boundary inside a multi-byte character, an escape, a number, a key, a row longer than a
 * chunk), it finds the same rows, columns, kinds, detour and errors as when the body comes whole; its
 * kinds are the adapter's; its date check is parseIsoDate's, byte for byte.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dateFacts, RowsProfile, textDateFacts } from "../../src/columnar/json-load";
import { JsonRowScanner } from "../../src/columnar/json-rows";
import { transactionTableColumns } from "../../src/transactions/table";
import { parseIsoDate } from "../../src/table/iso-date";
import { chunked, utf8 } from "./chunked";

/** What the pass makes of a body in these chunks: its findings, or the error it threw (message and byte). */
function profile(chunks: Uint8Array[]) {
  const rows = new RowsProfile();
  const scanner = new JsonRowScanner(20_000, { rows });
  try {
    for (const chunk of chunks) scanner.push(chunk);
    const body = scanner.end();
    const plan = rows.plan();
    return { names: rows.names, plan, rows: rows.rows, detour: rows.detour, maxRowBytes: rows.maxRowBytes, body };
  } catch (error) {
    return { error: (error as Error).message, offset: (error as { offset?: number }).offset };
  }
}

const body = (rows: string) => utf8(`{"$type": "T", "data_table": ${rows}, "n": 1}`);

const text = fc.string({
  unit: fc.constantFrom("a", "1", "-", ":", "T", '"', "\\", "{", "]", ",", " ", "é", "€", "𝄞", "\n", "\u0000"),
});
const cell = fc.oneof(
  text,
  fc.constantFrom("2026-01-02", "2026-01-02T03:04:05.123+01:00", "2026-01-02t03:04z", "1969-12-31T23:59:59,5Z"),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(text, fc.integer()), { maxLength: 2 }),
);
const keys = fc.constantFrom("id", "when", "note", "x y", "é", 'q"', "n");
const row = fc.oneof(
  { weight: 9, arbitrary: fc.dictionary(keys, cell, { maxKeys: 5 }) },
  { weight: 1, arbitrary: cell },
);

describe("RowsProfile: one pass over the rows as their bytes arrive", () => {
  it("finds the same rows, columns, kinds and detour whatever the chunks; the kinds the adapter gives", () => {
    fc.assert(
      fc.property(
        fc.array(row, { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.boolean(),
        (rows, cuts, pretty) => {
          const bytes = body(JSON.stringify(rows, null, pretty ? 1 : undefined));
          const whole = profile([bytes]);
          expect(profile(chunked(bytes, cuts))).toEqual(whole);
          expect(whole.rows).toBe(rows.length);
          if (whole.detour === undefined && rows.length > 0) {
            const table = transactionTableColumns({ data_table: rows });
            expect(whole.names).toEqual(table.columns);
            expect(Object.fromEntries(whole.plan!.map((c) => [c.name, c.kind]))).toEqual(table.kinds);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses the same bytes with the same words whatever the chunks", () => {
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 6 }),
        fc.nat(),
        fc.constantFrom("", "x", ",", "}", "]", "\\", '"', "NaN", "\u0001", "-", "1e", "tru"),
        fc.array(fc.nat(), { maxLength: 20 }),
        (rows, at, insert, cuts) => {
          const good = JSON.stringify(rows);
          const i = 1 + (at % (good.length - 1));
          const bytes = body(good.slice(0, i) + insert + good.slice(i + (insert === "" ? 1 : 0)));
          expect(profile(chunked(bytes, cuts))).toEqual(profile([bytes]));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("every cut of a body with multi-byte characters, escapes, numbers and dates: the same as whole", () => {
    const rows =
      '[{"id": -12.5e3, "t": "é𝄞\\"\\\\\\u0041\\n", "when": "2026-01-02T03:04:05.123456+01:00", "ok": true, "n": null},' +
      ' {"id": 0, "t": "€", "when": "2026-01-0\\u0033", "ok": false, "n": null}]';
    const bytes = body(rows);
    const whole = profile([bytes]);
    expect(whole).toMatchObject({ rows: 2, detour: undefined, names: ["id", "t", "when", "ok", "n"] });
    expect(whole.plan!.map((c) => c.kind)).toEqual(["number", "string", "date", "boolean", "empty"]);
    for (let cut = 1; cut < bytes.length; cut++) expect(profile(chunked(bytes, [cut])), `cut at ${cut}`).toEqual(whole);
    expect(profile(chunked(bytes, [...bytes.keys()]))).toEqual(whole); // a byte at a time
  });

  it('a row whose nesting is wrong too is an unexpected "}", as before the one pass, however cut', () => {
    const bytes = body('[{"a": 1}, {"a": 2]}');
    const said = { error: 'unexpected "}" in data_table', offset: 48 };
    expect(profile([bytes])).toEqual(said);
    for (let cut = 1; cut < bytes.length; cut++) expect(profile(chunked(bytes, [cut])), `cut at ${cut}`).toEqual(said);
    expect(profile([body('[{"a": 1}, {"a": 2]]')])).toMatchObject({
      error: 'data_table rows 1… are not JSON: expected "," or "}" in a row, found "]"',
    });
  });

  it("a comma after the last row: a row was expected, as before the one pass", () => {
    expect(profile([body('[{"a": 1}, {"a": 2},]')])).toEqual({
      error: "data_table rows 2… are not JSON: expected a row, found the end of the rows",
      offset: 49,
    });
  });

  it("refuses a raw control character, and only that, anywhere in a string as JSON.parse does (read four bytes at a time)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "Z", " ", "~", "!", "#", "[", "{", ":", ",", "é") }),
        fc.nat(),
        fc.integer({ min: 0, max: 0x7f }),
        (text, at, code) => {
          const i = at % (text.length + 1);
          const cell = text.slice(0, i) + String.fromCharCode(code) + text.slice(i);
          const json = `[{"id": 1, "t": "${cell}", "n": 2}]`;
          const parsed = (() => {
            try {
              return JSON.parse(json) as unknown;
            } catch {
              return undefined;
            }
          })();
          const found = profile([body(json)]);
          if (parsed === undefined) expect(found, JSON.stringify(json)).toHaveProperty("error");
          else expect(found, JSON.stringify(json)).toMatchObject({ rows: 1, names: ["id", "t", "n"] });
          if (code < 0x20) expect(found.error).toMatch(/a control character in a string/);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("a row longer than many chunks: read whole, once it has come", () => {
    const long = "x".repeat(300_000);
    const bytes = body(`[{"a": 1, "t": "y"}, {"a": 2, "t": "${long}"}, {"a": 3, "t": "z"}]`);
    const found = profile(
      chunked(
        bytes,
        Array.from({ length: 400 }, (_, i) => i * 1000),
      ),
    );
    expect(found).toEqual(profile([bytes]));
    expect(found).toMatchObject({ rows: 3, detour: undefined });
    expect(found.maxRowBytes).toBeGreaterThan(300_000);
  });
});

describe("dateFacts: parseIsoDate's reading of a date, byte by byte", () => {
  it("agrees with parseIsoDate and with the reading of the text on every string near a date", () => {
    const forms = [
      "2026-01-02",
      "2026-01-02T03:04",
      "2026-01-02T03:04:05",
      "2024-02-29T23:59:59.1234567Z",
      "2026-01-02t03:04:05,5z",
      "2026-12-31T00:00:00+01:00",
      "0001-01-01T00:00:00-0130",
    ];
    const units = "0123456789-:T tZz+.,é".split("");
    fc.assert(
      fc.property(
        fc.constantFrom(...forms),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...units), fc.constantFrom(0, 1, 2)), { maxLength: 3 }),
        (form, edits) => {
          let s = form;
          for (const [at, unit, how] of edits) {
            const i = at % (s.length + 1);
            s =
              how === 0
                ? s.slice(0, i) + unit + s.slice(i + 1)
                : how === 1
                  ? s.slice(0, i) + unit + s.slice(i)
                  : s.slice(0, i) + s.slice(i + 1);
          }
          const bytes = utf8(`"${s}"`);
          const facts = dateFacts(bytes, 1, bytes.length - 1);
          expect(facts & 1, s).toBe(Number.isNaN(parseIsoDate(s)) ? 0 : 1);
          expect(facts, s).toBe(textDateFacts(s));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
