/**
 * An answer the client returns carries its provenance and nothing else of the exchange: the body's text
 * (which a table answer may make hundreds of MB) must be collectable once the answer is decoded, whether
 * or not its provenance is ever read. Measured with the engine's own collector, over loopback HTTP.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { provenanceOf, RiskPortalClient } from "../../src";
import { startLoopback, type Loopback } from "../helpers/loopback";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** 4 MB of whitespace around a small answer: its text is large, what it decodes to is not. */
const PADDED = `{"look_backs": ["1Y"]${" ".repeat(4 * 2 ** 20)}}`;

let server: Loopback;
beforeAll(async () => {
  server = await startLoopback({
    "/api/Report/LookBacks": { body: PADDED, headers: { "content-type": "application/json", "x-request-id": "r-1" } },
  });
});
afterAll(() => server.close());

/** The heap and the memory outside it that the engine accounts for (a long text is held there, by Node). */
function heldAfterCollecting(): number {
  gc();
  gc();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

it("keeps no answer's text alive through the answer it returns", async () => {
  const rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "t-retention-0001" } });
  await rp.report.lookBacks();
  const before = heldAfterCollecting();
  const kept = [];
  for (let i = 0; i < 5; i++) kept.push(await rp.report.lookBacks());
  const grown = heldAfterCollecting() - before;
  expect(kept.map((answer) => answer.look_backs[0])).toEqual(["1Y", "1Y", "1Y", "1Y", "1Y"]);
  // Five texts of 4 MB held would be 20 MB; the answers themselves are a few hundred bytes.
  expect(grown).toBeLessThan(4 * 2 ** 20);
  // Their provenance is whole, the request id read only now.
  expect(kept.map((answer) => provenanceOf(answer)?.requestId)).toEqual(["r-1", "r-1", "r-1", "r-1", "r-1"]);
});
