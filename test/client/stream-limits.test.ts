/**
 * Issue 44, item 14: the stream to Parquet gets the in-memory path's default size limit and UTF-8 check,
 * and the token endpoint's broken HTTP and invalid UTF-8 are handled as an API call's are. Real loopback
 * servers that write whatever they like, byte for byte.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  NetworkError,
  ProtocolError,
  ResponseTooLargeError,
  ResponseValidationError,
  RiskPortalClient,
  type RiskPortalClientOptions,
} from "../../src";
import { brandOf } from "../../src/api/brand";
import { getTransactionTable } from "../../src/api/position";
import { createAuthProvider } from "../../src/client/auth";
import { resolveRetry } from "../../src/client/retry";
import { Utf8Checker, InvalidUtf8 } from "../../src/client/body";
import { defaultMaxResponseBytes, PreparedCall, type PipelineConfig } from "../../src/client/pipeline";
import { Redactor } from "../../src/record/redact";
import { fetchTransactionTableToParquet } from "../../src/transactions/stream";

const MiB = 2 ** 20;
const json = { "content-type": "application/json" };
const dir = mkdtempSync(path.join(tmpdir(), "rpl-stream-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface RawServer {
  url: string;
  hits: Record<string, number>;
  close(): Promise<void>;
}
const open: RawServer[] = [];
afterEach(async () => void (await Promise.all(open.splice(0).map((s) => s.close()))));

/** A node:http server on 127.0.0.1 whose handler writes whatever it likes; it counts requests by path. */
async function rawServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options: { maxHeaderSize?: number } = {},
): Promise<RawServer> {
  const sockets = new Set<Socket>();
  const hits: Record<string, number> = {};
  const server = createServer(options, (req, res) => {
    const where = new URL(req.url ?? "/", "http://x").pathname;
    hits[where] = (hits[where] ?? 0) + 1;
    req.resume();
    req.on("end", () => handler(req, res));
  });
  server.on("connection", (s) => (sockets.add(s), s.on("close", () => sockets.delete(s))));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const raw: RawServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  open.push(raw);
  return raw;
}

const request = { portfolio_name: "GLOBAL-MACRO" };
const leftovers = (target: string) => readdirSync(path.dirname(target)).filter((n) => n.includes(".partial-"));
let files = 0;
const target = () => path.join(dir, `t-${++files}`, "trades.parquet");

describe("the stream to Parquet: the default limit and UTF-8 check of the in-memory path", () => {
  it("a call without a limit streams under the operation's default (512 MiB for a table), or the client's when higher; a call's own wins", () => {
    const config = (maxResponseBytes?: number): PipelineConfig => {
      const redactor = new Redactor();
      const auth = createAuthProvider(
        { apiKey: "key-stream-limits-0123" },
        { fetch, redactor, timeoutMs: 5_000, now: Date.now },
      );
      return {
        baseUrl: "http://127.0.0.1:9",
        fetch,
        auth,
        redactor,
        timeoutMs: 5_000,
        retry: resolveRetry({}),
        brand: brandOf(),
        unknownFields: "refuse",
        headers: {},
        now: Date.now,
        ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
      };
    };
    const limit = (client?: number, call?: number) =>
      new PreparedCall(
        config(client),
        getTransactionTable,
        request,
        call === undefined ? {} : { maxResponseBytes: call },
      ).streamBytes;
    expect(defaultMaxResponseBytes(getTransactionTable)).toBe(512 * MiB);
    expect(limit()).toBe(512 * MiB);
    // A client limit set low spares memory; a stream holds no body, so it keeps the operation's default.
    expect(limit(64 * 1024)).toBe(512 * MiB);
    expect(limit(2048 * MiB)).toBe(2048 * MiB);
    expect(limit(64 * 1024, MiB)).toBe(MiB);
    expect(limit(undefined, Infinity)).toBe(Infinity);
  });

  it("a streamed body past the limit ends with ResponseTooLargeError saying how to raise it on the call, and leaves no spool", async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(200, json);
      res.write('{"data_table":[');
      const row = Buffer.from('{"trade_id":"T-000001","notional":1000000.5,"currency":"USD"},'.repeat(1000));
      for (let i = 0; i < 40; i++) res.write(row); // ~2.5 MiB
      res.end('{"trade_id":"last"}]}');
    });
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: "key-stream-limits-0123" } });
    const out = target();
    const error = await fetchTransactionTableToParquet(rp, request, out, { maxResponseBytes: MiB }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toMatch(
      /^GetTransactionTable: the response passed its size limit of 1 MiB \(maxResponseBytes, counted decompressed\): reading stopped after [\d.]+ MiB\. If the answer is meant to be this large, to raise it: \{ maxResponseBytes: \d+ \} on the call\.$/,
    );
    expect(server.hits["/api/Position/GetTransactionTable"]).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(leftovers(out)).toEqual([]);
  });

  it("a table held whole past the limit says how to raise it, or which verb streams it into Parquet instead", async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(200, json);
      res.end(`{"data_table":[${'{"trade_id":"T-000001","notional":1000000.5},'.repeat(30_000)}{"trade_id":"last"}]}`);
    });
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: "key-stream-limits-0123" } });
    const error = await rp.position.transactionTable(request, { maxResponseBytes: MiB }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toMatch(
      /\{ maxResponseBytes: \d+ \} on the call or the client, or stream the table into Parquet: frames\.fetchTransactionTableToParquet\(rp, request, "trades\.parquet"\)\.$/,
    );
  });

  it("invalid UTF-8 in a streamed table is refused with its byte offset, as in memory, not written as U+FFFD", async () => {
    const head = Buffer.from('{"data_table":[{"trade_id":"T-1","counterparty":"Soci');
    const server = await rawServer((_req, res) => {
      res.writeHead(200, json);
      res.end(Buffer.concat([head, Buffer.from([0xe9]), Buffer.from('t\\u00e9 G\\u00e9n\\u00e9rale"}]}')]));
    });
    const rp = new RiskPortalClient({ baseUrl: server.url, auth: { apiKey: "key-stream-limits-0123" } });
    const out = target();
    const streamed = await fetchTransactionTableToParquet(rp, request, out).catch((e: unknown) => e);
    const whole = await rp.position.transactionTable(request).catch((e: unknown) => e);
    for (const error of [streamed, whole]) {
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect((error as Error).message).toBe(
        `GetTransactionTable: the response is not valid UTF-8 at byte ${head.length}: refused, not read with replacement characters.`,
      );
    }
    expect(existsSync(out)).toBe(false);
    expect(leftovers(out)).toEqual([]);
  });

  it("Utf8Checker: sequences split across chunks are whole; offsets count from the body's start", () => {
    const text = Buffer.from('{"a":"é€😀 plain"}');
    for (let cut = 0; cut <= text.length; cut++) {
      const checker = new Utf8Checker();
      checker.push(text.subarray(0, cut));
      checker.push(text.subarray(cut));
      expect(() => checker.end()).not.toThrow();
    }
    const at = (chunks: number[][]) => {
      const checker = new Utf8Checker();
      try {
        for (const c of chunks) checker.push(Uint8Array.from(c));
        checker.end();
      } catch (error) {
        return (error as InvalidUtf8).offset;
      }
      return -1;
    };
    expect(at([[0x61, 0x62], [0xff]])).toBe(2); // a stray byte in the second chunk
    expect(at([[0x61, 0xe2, 0x82], [0x61]])).toBe(1); // a sequence broken by the next chunk
    expect(at([[0x61, 0x62, 0xe2, 0x82]])).toBe(2); // cut off at the end of the body
    expect(at([[0xc0, 0xaf]])).toBe(0); // overlong
    expect(at([[0x61], [0xf0, 0x9f], [0x98], [0x80, 0x62]])).toBe(-1);
  });
});

describe("the token endpoint: broken HTTP and invalid UTF-8, as an API call's", () => {
  const oauth = (url: string, extra: Partial<RiskPortalClientOptions> = {}) =>
    new RiskPortalClient({
      baseUrl: url,
      auth: {
        clientId: "client-stream-limits",
        clientSecret: "secret-stream-limits-0123",
        tokenUrl: `${url}/oauth2/token`,
      },
      retry: { baseDelayMs: 1, maxDelayMs: 1 },
      ...extra,
    });

  it("a token reply whose headers overflow the parser is a ProtocolError, sent once, never a retried NetworkError", async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(200, { ...json, "x-big": "a".repeat(100_000) });
      res.end('{"access_token":"tok-0123456789","token_type":"Bearer","expires_in":3600}');
    });
    const error = await oauth(server.url)
      .report.lookBacks()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).not.toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(
      /^token request: the answer from http:\/\/127\.0\.0\.1:\d+ broke HTTP: its headers are larger than the client accepts \((UND_ERR_HEADERS_OVERFLOW|HPE_HEADER_OVERFLOW)\); not retried/,
    );
    expect(server.hits["/oauth2/token"]).toBe(1);
    expect(server.hits["/api/Report/LookBacks"] ?? 0).toBe(0);
  });

  it("a corrupt compressed token reply is a ProtocolError too", async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(200, { ...json, "content-encoding": "gzip" });
      res.end(Buffer.from("this is not gzip at all, whatever the header says"));
    });
    const error = await oauth(server.url)
      .report.lookBacks()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toMatch(
      /^token request: the answer from .* broke HTTP: its compressed body is corrupt/,
    );
    expect(server.hits["/oauth2/token"]).toBe(1);
  });

  it("a token reply that is not valid UTF-8 is refused with its byte offset, not read with replacement characters", async () => {
    const head = Buffer.from('{"access_token":"tok-');
    const server = await rawServer((_req, res) => {
      res.writeHead(200, json);
      res.end(
        Buffer.concat([head, Buffer.from([0xff]), Buffer.from('0123456789","token_type":"Bearer","expires_in":3600}')]),
      );
    });
    const error = await oauth(server.url)
      .report.lookBacks()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toBe(
      `token request: the token endpoint's reply is not valid UTF-8 at byte ${head.length}: refused, not read with replacement characters`,
    );
    expect(server.hits["/oauth2/token"]).toBe(1);
    expect(server.hits["/api/Report/LookBacks"] ?? 0).toBe(0);
  });
});
