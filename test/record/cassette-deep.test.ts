/**
 * A cassette nested too deep to walk (issue 44, item 10): a request or response body nested thousands of
 * levels deep is a CassetteError naming the file, the exchange and the depth, when the cassette is opened;
 * never a bare RangeError from deep inside a JSON walk.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CassetteError } from "../../src";
import { Cassette } from "../../src/internals";
import { CASSETTE_MAX_DEPTH } from "../../src/record/cassette";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-cassette-deep-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** JSON text nested `depth` objects deep (written as text: JSON.stringify itself overflows on it). */
const nested = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);

/** A cassette whose second exchange carries `requestBody` and `responseBody` (JSON text). */
function cassette(name: string, requestBody: string, responseBody = "{}"): string {
  const exchange = (body: string, answer: string) =>
    `{"operation":"X","request":{"method":"POST","path":"/x","body":${body}},"response":{"status":200,"headers":{},"body":${answer}},"receivedAt":"2026-11-20T10:00:00Z"}`;
  const file = path.join(dir, `${name}.json`);
  writeFileSync(
    file,
    `{"format":"risk-portal-lab cassette","version":1,"baseUrl":"http://127.0.0.1:9","recordedAt":"","meta":{},"exchanges":[${exchange("{}", "{}")},${exchange(requestBody, responseBody)}]}`,
  );
  return file;
}

function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("a cassette nested too deep", () => {
  it("a request body 5,000 deep is a CassetteError naming the file and the exchange, in every mode that reads it", () => {
    const file = cassette("deep-request", nested(5_000));
    for (const open of [
      () => new Cassette({ path: file, mode: "replay", baseUrl: "" }),
      () => new Cassette({ path: file, mode: "auto", baseUrl: "" }),
      () => Cassette.read(file),
    ]) {
      const error = thrown(open);
      expect(error).toBeInstanceOf(CassetteError);
      expect(error).toMatchObject({ file, exchange: 1 });
      expect((error as Error).message).toBe(
        `the cassette ${file} is corrupt: exchange 1: request.body is nested deeper than ${CASSETTE_MAX_DEPTH} levels; record it again`,
      );
    }
  });

  it("so is a response body, and one 100,000 deep", () => {
    const file = cassette("deep-response", "{}", nested(100_000));
    const error = thrown(() => new Cassette({ path: file, mode: "replay", baseUrl: "" }));
    expect(error).toBeInstanceOf(CassetteError);
    expect((error as Error).message).toContain("exchange 1: response.body is nested deeper than");
  });

  it("a body as deep as the limit opens", () => {
    const file = cassette("as-deep-as-allowed", nested(CASSETTE_MAX_DEPTH - 1), nested(CASSETTE_MAX_DEPTH - 1));
    expect(new Cassette({ path: file, mode: "replay", baseUrl: "" }).size).toBe(2);
  });
});
