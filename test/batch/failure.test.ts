import { describe, expect, it } from "vitest";
import { NotFoundError, NetworkError } from "../../src";
import { dateText, describeFailure } from "../../src/batch/failure";

describe("describeFailure(reason)", () => {
  it("keeps a client error's message and HTTP status", () => {
    expect(
      describeFailure(new NotFoundError("RateAsset failed: HTTP 404", { operation: "RateAsset", status: 404 })),
    ).toEqual({
      error: "RateAsset failed: HTTP 404",
      status: 404,
    });
  });

  it("has no status when the server never answered", () => {
    expect(describeFailure(new NetworkError("RateAsset failed: could not reach", { operation: "RateAsset" }))).toEqual({
      error: "RateAsset failed: could not reach",
    });
  });

  it("takes any error or value", () => {
    expect(describeFailure(new TypeError("boom"))).toEqual({ error: "boom" });
    expect(describeFailure("plain")).toEqual({ error: "plain" });
  });
});

describe("dateText(date)", () => {
  it("names a Date by its ISO string and keeps text as given", () => {
    expect(dateText(new Date("2026-11-20T00:00:00Z"))).toBe("2026-11-20T00:00:00.000Z");
    expect(dateText("2026-11-20")).toBe("2026-11-20");
    expect(dateText(new Date(NaN))).toBe("Invalid Date");
  });
});

describe("a local fault in a batch", () => {
  it("is thrown (the first one), not listed as one failed date among others", async () => {
    const { throwReplayMiss } = await import("../../src/batch/failure");
    const { ConfigurationError, CassetteError } = await import("../../src");
    const local = new CassetteError(
      "the cassette x.json holds an exchange that cannot be replayed",
      { operation: "RateAsset" },
      "x.json",
      3,
    );
    expect(() =>
      throwReplayMiss([
        { status: "fulfilled", value: 1 },
        { status: "rejected", reason: local },
      ]),
    ).toThrow(local);
    expect(local).toBeInstanceOf(ConfigurationError);
    const remote = new NetworkError("RateAsset failed: could not reach", { operation: "RateAsset" });
    expect(() => throwReplayMiss([{ status: "rejected", reason: remote }])).not.toThrow();
  });
});
