/**
 * The package's public surface, pinned: a change to what the root exports is deliberate (this list is
 * edited with it, and docs/exports.md's list of the surface with both). How many runtime names that is, with
 * the namespaces' keys, is test/lint/surface.test.ts's.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as root from "../../src";
import * as internals from "../../src/subpath/internals";

const ROOT_EXPORTS = [
  "AbortError",
  "AuthenticationError",
  "BadRequestError",
  "CassetteError",
  "CassetteMissError",
  "ConfigurationError",
  "DateMismatchError",
  "HttpError",
  "NetworkError",
  "NotFoundError",
  "NotebookDiffError",
  "NotebookError",
  "OperationFailedError",
  "PermissionError",
  "ProtocolError",
  "RateLimitError",
  "RedirectError",
  "RequestValidationError",
  "ResponseTooLargeError",
  "ResponseValidationError",
  "RiskPortalClient",
  "RiskPortalError",
  "STRIKE_TYPE",
  "ServerError",
  "TimeoutError",
  "closeAllConnections",
  "connect",
  "curves",
  "diffFigures",
  "diffNotebookFiles",
  "diffNotebooks",
  "formatProvenance",
  "frames",
  "manualClock",
  "plot",
  "provenanceOf",
  "runNotebook",
  "startSimulator",
  "vol",
  "writeDiffReport",
];

/** The pipeline's parts, for tools built on the package: out of the root, in `risk-portal-lab/internals`. */
const INTERNALS = [
  "CASSETTE_MODES",
  "Cassette",
  "DEFAULT_CACHE_ENTRIES",
  "DEFAULT_CACHE_TTL_MS",
  "DEFAULT_RETRY",
  "DEFAULT_TIMEOUT_MS",
  "MASK",
  "REDACTED",
  "Redactor",
  "ResponseCache",
  "attachProvenance",
  "backoffDelayMs",
  "canonicalRequest",
  "canonicalValue",
  "describeDifferences",
  "errorFromResponse",
  "formatIssues",
  "maskSecret",
  "optionsFromEnv",
  "parseRetryAfterMs",
  "replayResponse",
  "requestKey",
];

describe("the root exports", () => {
  it("are exactly the pinned list (change both together, on purpose)", () => {
    expect(Object.keys(root).sort()).toEqual([...ROOT_EXPORTS].sort());
  });

  it("risk-portal-lab/internals is exactly the pinned list, and none of them is also at the root", () => {
    expect(Object.keys(internals).sort()).toEqual([...INTERNALS].sort());
    expect(INTERNALS.filter((name) => name in root)).toEqual([]);
  });

  it("docs/exports.md lists every runtime name of the root", () => {
    const page = readFileSync(path.resolve(__dirname, "../../docs/exports.md"), "utf8");
    expect(ROOT_EXPORTS.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  });
});
