/**
 * An answer's header read through node-fetch's map (src/client/response-header.ts) says what
 * `headers.get` says, for any spelling of the names, several values, and absent headers; other
 * implementations' headers are asked with `get`.
 */
import { describe, expect, it } from "vitest";
import { responseHeader } from "../../src/client/response-header";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const nodeFetch = require("node-fetch") as { Headers: typeof Headers };

const NAMES = ["content-type", "x-request-id", "retry-after", "x-absent", "set-cookie"];

function sameAsGet(headers: Headers): void {
  for (const name of NAMES) expect([name, responseHeader(headers, name)]).toEqual([name, headers.get(name)]);
}

describe("an answer's header", () => {
  it("through node-fetch's map is what get says, whatever the names' case, with several values or none", () => {
    const lower = new nodeFetch.Headers({ "content-type": "application/json", "x-request-id": "r-1" });
    const mixed = new nodeFetch.Headers({ "Content-Type": "text/html", "X-Request-ID": "r-2", "Retry-After": "3" });
    mixed.append("Set-Cookie", "a=1");
    mixed.append("set-cookie", "b=2");
    for (const headers of [lower, mixed, new nodeFetch.Headers()]) sameAsGet(headers);
    expect(responseHeader(mixed, "content-type")).toBe("text/html");
    expect(responseHeader(mixed, "set-cookie")).toBe("a=1, b=2");
    expect(responseHeader(lower, "x-absent")).toBeNull();
  });

  it("of Node's own fetch is what get says", () => {
    const headers = new Headers({ "Content-Type": "application/json", "X-Request-Id": "r-3" });
    sameAsGet(headers);
    expect(responseHeader(headers, "x-request-id")).toBe("r-3");
  });
});
