/** Error mapping: HTTP status classes, problem details, outcomes, response validation, timeouts, aborts. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  AbortError,
  AuthenticationError,
  BadRequestError,
  HttpError,
  NetworkError,
  NotFoundError,
  OperationFailedError,
  PermissionError,
  RateLimitError,
  ResponseValidationError,
  RiskPortalClient,
  RiskPortalError,
  ServerError,
  TimeoutError,
} from "../../src";
import { bond } from "../helpers/samples";
import { startLoopback, type Loopback } from "../helpers/loopback";
import { FAKE_TIME, until } from "../helpers/wait";

const BRIEF = "/api/Tradable/GetTradableBrief";
const UPLOAD = "/api/MarketData/UploadBondPriceData";
const LOOKBACKS = "/api/Report/LookBacks";

let server: Loopback;
let rp: RiskPortalClient;
beforeEach(async () => {
  server = await startLoopback();
  rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: "tok-errors-0001" }, retry: false });
});
afterEach(async () => {
  vi.useRealTimers();
  await server.close();
});

describe("HTTP failures map to one class per status family", () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionError],
    [404, NotFoundError],
    [429, RateLimitError],
    [500, ServerError],
    [503, ServerError],
    [409, HttpError],
  ] as const)("HTTP %i → %o", async (status, Class) => {
    server.on(LOOKBACKS, { status, body: { title: `status ${status}` } });
    const error = await rp.report.lookBacks().catch((e) => e);
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(RiskPortalError);
    expect(error).toMatchObject({ operation: "LookBacks", status, method: "GET", body: { title: `status ${status}` } });
  });

  it("an unknown tradable is a NotFoundError carrying the problem details and the request id", async () => {
    const problem = {
      type: "https://tools.ietf.org/html/rfc9110#section-15.5.5",
      title: "Tradable not found",
      status: 404,
      detail: "No tradable with id 'NOPE.XX'",
      instance: "/api/Tradable/GetTradableBrief",
    };
    server.on(BRIEF, {
      status: 404,
      headers: { "content-type": "application/problem+json", "x-request-id": "req-42" },
      body: problem,
    });
    const error = await rp.tradable.brief({ tradableId: "NOPE.XX" }).catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.problem).toEqual(problem);
    expect(error.requestId).toBe("req-42");
    expect(error.message).toBe(
      "GetTradableBrief failed: HTTP 404 Not Found — Tradable not found: No tradable with id 'NOPE.XX' (request id req-42)",
    );
  });

  it("a non-JSON error body is kept as text", async () => {
    server.on(LOOKBACKS, { status: 502, body: "<html>Bad gateway</html>" });
    const error = await rp.report.lookBacks().catch((e) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(error.body).toBe("<html>Bad gateway</html>");
    expect(error.problem).toBeUndefined();
  });
});

describe("operation outcomes", () => {
  const failed = {
    $type: "Service.Web.Core.MarketData.ApiUploadBondPriceDataResponse, Service.Web.Core",
    is_success: false,
    error_messages: ["bond_data[0]: unknown bond", "bond_data[2]: price <= 0"],
  };

  it("is_success false throws OperationFailedError with the server's messages", async () => {
    server.on(UPLOAD, { body: failed });
    const error = await rp.marketData.uploadBondPrices({ bond_data: [bond] }).catch((e) => e);
    expect(error).toBeInstanceOf(OperationFailedError);
    expect(error.errorMessages).toEqual(failed.error_messages);
    expect(error.status).toBe(200);
    expect(error.message).toBe(
      "UploadBondPriceData reported failure: bond_data[0]: unknown bond; bond_data[2]: price <= 0. It was not applied (without use_best_effort a write is all or nothing).",
    );
    expect(error.outcome).toBe("not-applied");
  });

  it("throwOnFailure: false returns the outcome instead", async () => {
    server.on(UPLOAD, { body: failed });
    const out = await rp.marketData.uploadBondPrices(
      { bond_data: [bond], use_best_effort: true },
      { throwOnFailure: false },
    );
    expect(out).toEqual(failed);
  });

  it("a null error_messages on success reads as an empty list", async () => {
    server.on(UPLOAD, { body: { is_success: true, error_messages: null } });
    expect(await rp.marketData.uploadBondPrices({ bond_data: [bond] })).toEqual({
      is_success: true,
      error_messages: [],
    });
  });
});

describe("responses that do not fit the schema", () => {
  it("names the field path of each problem", async () => {
    server.on("/api/Tradable/GetVol", { body: { vols: [0.2, "0.21", null], strike_type: 0 } });
    const error = await rp.tradable
      .getVol({
        surface: {
          benchmark_fwd_factors: [1],
          smiles: [0.2],
          benchmark_maturities: [30],
          vols: [0.2],
          call_wings: [1],
          put_wings: [1],
          skews: [0],
          reference_date: "2026-11-20",
          spot_ref: 100,
        },
        maturity: 30,
        strikes: [90, 100, 110],
        strike_type: 0,
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues.map((i: { path: string }) => i.path)).toEqual(["vols[1]", "vols[2]"]);
    expect(error.message).toMatch(
      /^GetVol: the server's response does not fit the schema — vols\[1\]: .*; vols\[2\]: /,
    );
  });

  it("a body that is not JSON says so", async () => {
    server.on(LOOKBACKS, { status: 200, body: "OK", headers: { "content-type": "application/json" } });
    await expect(rp.report.lookBacks()).rejects.toThrow("LookBacks: the server's response is not JSON: OK");
  });

  it("an empty success body says so", async () => {
    server.on(LOOKBACKS, { status: 200 });
    await expect(rp.report.lookBacks()).rejects.toThrow("LookBacks: the server's response is not JSON (empty body)");
  });

  it("keeps unknown extra fields a newer server adds", async () => {
    server.on(LOOKBACKS, { body: { look_backs: ["1Y"], default_look_back: "1Y" } });
    expect(await rp.report.lookBacks()).toEqual({ look_backs: ["1Y"], default_look_back: "1Y" });
  });
});

describe("timeouts and aborts", () => {
  it("a call slower than timeoutMs fails with TimeoutError", async () => {
    vi.useFakeTimers(FAKE_TIME);
    server.on(LOOKBACKS, { delayMs: 0, body: { look_backs: [] } });
    server.on("/api/Report/ReportInfos", () => new Promise(() => undefined)); // never answers
    const call = rp.report.list({ timeoutMs: 5_000 }).catch((e) => e);
    await until(() => server.to("/api/Report/ReportInfos").length === 1, "request");
    await vi.advanceTimersByTimeAsync(5_000);
    const error = await call;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.timeoutMs).toBe(5_000);
    expect(error.message).toBe("ReportInfos timed out after 5000 ms");
  });

  it("the client's timeoutMs applies when the call sets none", async () => {
    server.on(LOOKBACKS, () => new Promise(() => undefined));
    const slow = new RiskPortalClient({ baseUrl: server.url, auth: { token: "tok-errors-0001" }, timeoutMs: 50 });
    await expect(slow.report.lookBacks()).rejects.toBeInstanceOf(TimeoutError);
  });

  it("the timeout covers retries: no retry is started that would outlast it", async () => {
    server.on(LOOKBACKS, { status: 503, headers: { "retry-after": "10" }, body: {} });
    const patient = new RiskPortalClient({ baseUrl: server.url, auth: { token: "tok-errors-0001" }, timeoutMs: 2_000 });
    const error = await patient.report.lookBacks().catch((e) => e);
    expect(error).toBeInstanceOf(ServerError); // the real failure, not a timeout
    expect(server.to(LOOKBACKS)).toHaveLength(1);
  });

  it("the caller's AbortSignal aborts the call with AbortError, keeping the reason as cause", async () => {
    server.on(LOOKBACKS, () => new Promise(() => undefined));
    const controller = new AbortController();
    const call = rp.report.lookBacks({ signal: controller.signal }).catch((e) => e);
    await until(() => server.to(LOOKBACKS).length === 1, "request");
    controller.abort(new Error("user pressed stop"));
    const error = await call;
    expect(error).toBeInstanceOf(AbortError);
    expect((error.cause as Error).message).toBe("user pressed stop");
  });

  it("an already-aborted signal sends nothing", async () => {
    const error = await rp.report.lookBacks({ signal: AbortSignal.abort() }).catch((e) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(server.requests).toHaveLength(0);
  });

  it("aborting during the wait between retries stops at once", async () => {
    server.on(LOOKBACKS, { status: 503, body: {} });
    const controller = new AbortController();
    const retrying = new RiskPortalClient({
      baseUrl: server.url,
      auth: { token: "tok-errors-0001" },
      retry: { baseDelayMs: 60_000, jitter: 0, onRetry: () => controller.abort() },
    });
    const started = performance.now();
    await expect(retrying.report.lookBacks({ signal: controller.signal })).rejects.toBeInstanceOf(AbortError);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(server.to(LOOKBACKS)).toHaveLength(1);
  });
});

describe("network failures", () => {
  it("an unreachable server is a NetworkError naming the origin and the cause's code", async () => {
    const gone = await startLoopback();
    await gone.close();
    const error = await new RiskPortalClient({
      baseUrl: gone.url,
      auth: { token: "tok-errors-0001" },
      retry: false,
    }).report
      .lookBacks()
      .catch((e) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toContain(`could not reach ${gone.url}`);
    expect(error.message).toContain("ECONNREFUSED");
    expect(error.cause).toBeInstanceOf(Error);
  });
});

describe("one error family", () => {
  it("every error class the package exports (at the root and in its namespaces) extends RiskPortalError", async () => {
    const root = (await import("../../src")) as Record<string, unknown>;
    const found: string[] = [];
    const outside: string[] = [];
    const visit = (where: string, value: unknown, depth: number) => {
      if (typeof value === "function" && value.prototype instanceof Error) {
        found.push(where);
        if (value !== root.RiskPortalError && !(value.prototype instanceof (root.RiskPortalError as typeof Error)))
          outside.push(where);
        return;
      }
      if (depth < 1 && value && typeof value === "object")
        for (const [k, v] of Object.entries(value)) visit(`${where}.${k}`, v, depth + 1);
    };
    for (const [name, value] of Object.entries(root)) visit(name, value, 0);
    expect(found.length).toBeGreaterThan(15);
    expect(found).toEqual(
      expect.arrayContaining(
        ["CsvError", "TableShapeError", "VolModelError", "PngExportError", "NotebookError", "CassetteError"].map((n) =>
          expect.stringContaining(n),
        ),
      ),
    );
    expect(outside).toEqual([]);
  });
});
