/**
 * The package's public surface, pinned: a change to what the root exports is deliberate (this list is
 * edited with it, and the README's list of the surface with both).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as root from "../../src";

const ROOT_EXPORTS = [
  "ASSUMPTIONS",
  "AbortError",
  "AuthenticationError",
  "BadRequestError",
  "CassetteError",
  "CassetteMissError",
  "ConfigurationError",
  "DEFAULT_BRAND",
  "DEFAULT_TYPE_NAMESPACE",
  "HttpError",
  "IDENTIFIER_TYPES",
  "NetworkError",
  "NotFoundError",
  "NotebookDiffError",
  "NotebookError",
  "OperationFailedError",
  "PORTFOLIO_TYPES",
  "PUBLISHED_BRAND",
  "PUBLISHED_PORTFOLIO_TYPES",
  "PermissionError",
  "ProtocolError",
  "REPORT_END_STATUSES",
  "REPORT_STATUSES",
  "RateLimitError",
  "RedirectError",
  "RequestValidationError",
  "ResponseTooLargeError",
  "ResponseValidationError",
  "RiskPortalClient",
  "RiskPortalError",
  "SERVICE_DEFAULTS",
  "STRIKE_TYPE",
  "ServerError",
  "TRADE_EVENT_NAMES",
  "TimeoutError",
  "api",
  "closeAllConnections",
  "connect",
  "curves",
  "diffFigures",
  "diffNotebookFiles",
  "diffNotebooks",
  "formatProvenance",
  "frames",
  "internals",
  "manualClock",
  "plot",
  "provenanceOf",
  "runNotebook",
  "startSimulator",
  "vol",
  "writeDiffReport",
];

/** The pipeline's parts, for tools built on the package: out of the root, under one clearly named namespace. */
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

  it("internals are exactly the pinned list, and none of them is also at the root", () => {
    expect(Object.keys(root.internals).sort()).toEqual([...INTERNALS].sort());
    expect(INTERNALS.filter((name) => name in root)).toEqual([]);
  });

  it("the README lists every runtime name of the root", () => {
    const readme = readFileSync(path.resolve(__dirname, "../../README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## What the package exports"), readme.indexOf("## Layout"));
    expect(ROOT_EXPORTS.filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
  });
});
