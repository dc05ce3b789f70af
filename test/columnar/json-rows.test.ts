import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonRowScanner, JsonScanError } from "../../src/columnar/json-rows";
import { chunked, utf8 } from "./chunked";

function scan(text: string, batchRows: number, cuts: number[] = []) {
  const scanner = new JsonRowScanner(batchRows);
  const batches: unknown[][] = [];
  for (const chunk of chunked(utf8(text), cuts)) batches.push(...scanner.push(chunk));
  return { batches, body: scanner.end() };
}

// Values a row may hold: text with quotes, backslashes, escapes, brackets and characters of 1–4 UTF-8 bytes.
const text = fc.string({
  unit: fc.constantFrom("a", '"', "\\", "{", "}", "[", "]", ",", ":", " ", "é", "€", "𝄞", "\n", "\u0000"),
});
const cell = fc.oneof(
  text,
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(text, fc.integer()), { maxLength: 3 }),
);
const row = fc.oneof(
  { weight: 8, arbitrary: fc.dictionary(text, cell, { maxKeys: 4 }) },
  { weight: 1, arbitrary: cell },
);

describe("JsonRowScanner: a response's rows in batches, as its bytes arrive", () => {
  it("gives exactly the rows and fields JSON.parse gives, whatever the chunking, spacing and batch size", () => {
    fc.assert(
      fc.property(
        fc.array(row, { maxLength: 30 }),
        fc.dictionary(
          text.filter((k) => k !== "data_table"),
          cell,
          { maxKeys: 3 },
        ),
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.boolean(),
        fc.boolean(),
        (rows, fields, batchRows, cuts, pretty, tableFirst) => {
          const response = tableFirst ? { data_table: rows, ...fields } : { ...fields, data_table: rows };
          const json = JSON.stringify(response, null, pretty ? 2 : undefined);
          const { batches, body } = scan(json, batchRows, cuts);
          expect(batches.flat()).toEqual(JSON.parse(json).data_table);
          for (const b of batches.slice(0, -1)) expect(b).toHaveLength(batchRows);
          expect(body.fields).toEqual(JSON.parse(JSON.stringify(fields)));
          expect(body).toMatchObject({ hasDataTable: true, rows: rows.length, bytes: utf8(json).length });
          expect(body.dataTable).toBeUndefined();
        },
      ),
      { numRuns: 400 },
    );
  });

  it("keeps a data_table in another layout whole, and says when there is none", () => {
    const columns = { data_table: { columns: ["a"], rows: [[1], [2]] }, n: 2 };
    expect(scan(JSON.stringify(columns), 1, [3, 17]).body).toMatchObject({
      hasDataTable: true,
      dataTable: columns.data_table,
      fields: { n: 2 },
      rows: 0,
    });
    expect(scan('{"data_table": null}', 5).body).toMatchObject({ hasDataTable: true, dataTable: null });
    expect(scan('{"error": "none"}', 5).body).toMatchObject({ hasDataTable: false, fields: { error: "none" } });
    expect(scan("\ufeff{}", 5).body).toMatchObject({ hasDataTable: false, rows: 0 });
  });

  it("refuses what is not one JSON object, saying where", () => {
    const bad: [string, RegExp][] = [
      ["", /the body is empty/],
      ["  ", /holds no JSON value/],
      ["[1,2]", /expected a JSON object, found "\["/],
      ['{"data_table": [{"a": 1},', /ended before its JSON was complete/],
      ['{"data_table": [{"a": 1},]}', /data_table rows 0… are not JSON/],
      ['{"data_table": [{"a": 1}}', /unexpected "}" in data_table/],
      ['{"data_table": []} x', /unexpected "x" after the end/],
      ['{"a" 1}', /expected ":" after "a"/],
      ['{"a": 1 "b": 2}', /expected "," or "}" after the value of "a"/],
      ['{"a": tru}', /the value of "a" is not JSON/],
      ['{"a": 1,}', /expected a field name, found "}"/],
    ];
    for (const [body, message] of bad) {
      let error: unknown;
      try {
        scan(body, 2, [1, 5, 9]);
      } catch (e) {
        error = e;
      }
      expect(error, body).toBeInstanceOf(JsonScanError);
      expect((error as Error).message, body).toMatch(message);
    }
  });

  it("refuses bytes that are not UTF-8 instead of replacing them", () => {
    const bytes = new Uint8Array([...utf8('{"data_table": [{"a": "'), 0xff, ...utf8('"}]}')]);
    const scanner = new JsonRowScanner(10);
    expect(() => {
      scanner.push(bytes);
    }).toThrow(/the body is not valid UTF-8/);
  });
});
