/** No token, client secret or API key in any error, whatever the server or the network does. */
import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RiskPortalClient } from "../../src";
import { REDACTED, Redactor } from "../../src/internals";
import { apiKeysReply } from "../helpers/samples";
import { startLoopback, type Loopback } from "../helpers/loopback";

const TOKEN = "tok-SECRET-9f8e7d6c5b4a";
const API_KEY = "rpk_live_SECRET_1a2b3c4d5e";
const CLIENT_SECRET = "cs-SECRET-0a9b8c7d6e5f";
const SECRETS = [TOKEN, API_KEY, CLIENT_SECRET];

/** Everything an error could show: message, stack, inspect (with cause), JSON of its fields. */
function everything(error: unknown): string {
  const e = error as Error & Record<string, unknown>;
  return [
    String(e),
    e.stack,
    inspect(e, { depth: 10, showHidden: true }),
    JSON.stringify({ ...e, cause: String(e.cause) }),
  ].join("\n");
}

function expectNoSecret(text: string) {
  for (const s of SECRETS) expect(text).not.toContain(s);
  expect(text).not.toContain(Buffer.from(`quant:${CLIENT_SECRET}`).toString("base64"));
}

let server: Loopback;
beforeEach(async () => {
  server = await startLoopback();
});
afterEach(() => server.close());

describe("errors never contain a secret", () => {
  it("a server echoing the Authorization header in a 500 body", async () => {
    server.on("/api/Report/LookBacks", (req) => ({
      status: 500,
      body: {
        title: "boom",
        detail: `header was ${req.headers.authorization}`,
        authorization: req.headers.authorization,
      },
    }));
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: TOKEN }, retry: false });
    const error = await rp.report.lookBacks().catch((e) => e);
    expect(error.message).toContain(REDACTED);
    expectNoSecret(everything(error));
  });

  it("a server echoing the API key in a text body", async () => {
    server.on("/api/Report/LookBacks", (req) => ({ status: 403, body: `key ${req.headers["x-api-key"]} lacks scope` }));
    const error = await new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: API_KEY } }).report
      .lookBacks()
      .catch((e) => e);
    expect(error.body).toBe(`key ${REDACTED} lacks scope`);
    expectNoSecret(everything(error));
  });

  it("a token endpoint echoing the client secret, and a token in flight when the API fails", async () => {
    server.on("/token", (req) => ({
      status: 400,
      body: { error: "invalid_request", error_description: `bad form ${req.text} auth ${req.headers.authorization}` },
    }));
    const rp = new RiskPortalClient({
      baseUrl: server.url,
      auth: { clientId: "quant", clientSecret: CLIENT_SECRET, tokenUrl: `${server.url}/token` },
    });
    expectNoSecret(everything(await rp.report.lookBacks().catch((e) => e)));

    server.on("/token", { body: { access_token: TOKEN, token_type: "Bearer", expires_in: 3600 } });
    server.on("/api/Report/LookBacks", (req) => ({
      status: 400,
      body: { title: "bad", detail: `you sent ${req.headers.authorization}` },
    }));
    expectNoSecret(everything(await rp.report.lookBacks().catch((e) => e)));
  });

  it("a response-validation error on ApiKeys masks the key values", async () => {
    server.on("/api/User/me/ApiKeys", { body: [{ ...apiKeysReply[0], id: 42, exposed_value: API_KEY }] });
    const error = await new RiskPortalClient({ baseUrl: server.url, auth: { token: TOKEN } }).user
      .apiKeys()
      .catch((e) => e);
    expect(error.name).toBe("ResponseValidationError");
    expect(error.body[0].exposed_value).toBe(REDACTED);
    expectNoSecret(everything(error));
  });

  it("a request-validation error quoting an input that holds the token", async () => {
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { token: TOKEN } });
    const error = await rp.rateAsset
      .getCurve({ currency: "USD", market_date: `2026-11-20T10:00:00 ${TOKEN}` })
      .catch((e) => e);
    expect(error.name).toBe("RequestValidationError");
    expect(error.message).toContain(`market_date: date-time "2026-11-20T10:00:00 ${REDACTED}" has no offset`);
    expectNoSecret(everything(error));
  });

  it("a network failure with the token in the base URL's user-info", async () => {
    const gone = await startLoopback();
    await gone.close();
    const url = gone.url.replace("http://", `http://user:${TOKEN}@`);
    const rp = new RiskPortalClient({ baseUrl: url, auth: { token: TOKEN }, retry: false });
    expectNoSecret(everything(await rp.report.lookBacks().catch((e) => e)));
  });

  it("printing the client shows no secret", () => {
    const rp = new RiskPortalClient({
      baseUrl: server.url,
      auth: { clientId: "quant", clientSecret: CLIENT_SECRET, tokenUrl: `${server.url}/token` },
    });
    const shown = inspect(rp, { depth: 10, showHidden: true }) + JSON.stringify(rp);
    expect(shown).toContain("OAuth2 client credentials (client id quant)");
    expectNoSecret(shown);
  });
});

describe("Redactor", () => {
  const r = new Redactor([TOKEN]);
  it("scrubs known secrets, their URL-encoded form, credential schemes and URL user-info", () => {
    expect(r.text(`a ${TOKEN} b`)).toBe(`a ${REDACTED} b`);
    expect(r.text("Authorization: Basic ZGVzazpzM2NyM3QtcGFzc3dvcmQ=")).toBe(`Authorization: Basic ${REDACTED}`);
    expect(r.text("Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJxIn0.sig")).toBe(`Bearer ${REDACTED}`);
    expect(r.text("Basic validation failed")).toBe("Basic validation failed");
    expect(r.text("see https://bob:pw@example.com/x")).toBe(`see https://${REDACTED}@example.com/x`);
  });
  it("masks secret-named fields at any depth and keeps the rest", () => {
    expect(r.value({ a: 1, nested: [{ access_token: "x", client_secret: "y", keep: "z" }] })).toEqual({
      a: 1,
      nested: [{ access_token: REDACTED, client_secret: REDACTED, keep: "z" }],
    });
  });
  it("ignores secrets too short to scrub safely", () => {
    const short = new Redactor(["ab"]);
    expect(short.text("abc abd")).toBe("abc abd");
  });
});
