/**
 * Issue 34: a hostile or broken service cannot take the notebook down. Loopback node:http servers play
 * a corporate proxy, a misconfigured gateway or an attacker on the path: compression bombs, endless
 * bodies, `__proto__` in bodies, writes answered 200 with something else, the wrong Content-Type,
 * oversized headers, invalid UTF-8.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { brotliCompressSync, constants as zlib, deflateSync, gzipSync } from "node:zlib";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  BadRequestError,
  NetworkError,
  ProtocolError,
  ResponseTooLargeError,
  ResponseValidationError,
  RiskPortalClient,
  type RiskPortalClientOptions,
} from "../../src";
import { fetchTransactionTableToParquet } from "../../src/transactions/stream";
import { startSimulator } from "../../src/sim";
import { bond } from "../helpers/samples";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const crossFetch = require("cross-fetch") as typeof fetch;
const fetches: Record<string, typeof fetch | undefined> = { "globalThis.fetch": undefined, "cross-fetch": crossFetch };

const MiB = 2 ** 20;
const API_KEY = "key-hostile-test-0123456789";

interface RawServer {
  url: string;
  /** Requests received. */
  hits: number;
  close(): Promise<void>;
}

const open: RawServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** A node:http server on 127.0.0.1 whose handler writes whatever it likes, byte for byte. */
async function rawServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<RawServer> {
  const sockets = new Set<Socket>();
  const state = { hits: 0 };
  const server = createServer((req, res) => {
    state.hits++;
    req.resume();
    req.on("end", () => handler(req, res));
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const raw: RawServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get hits() {
      return state.hits;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  open.push(raw);
  return raw;
}

/** Writes `chunk` `times` times with backpressure, stopping when the client goes away. */
function writeRepeated(res: ServerResponse, chunk: Buffer, times: number, tail?: Buffer): void {
  let i = 0;
  let gone = false;
  res.on("close", () => (gone = true));
  const next = () => {
    while (!gone && i < times) {
      i++;
      if (!res.write(chunk)) return void res.once("drain", next);
    }
    if (!gone) res.end(tail);
  };
  next();
}

const client = (url: string, extra: Partial<RiskPortalClientOptions> = {}) =>
  new RiskPortalClient({ baseUrl: url, auth: { apiKey: API_KEY }, ...extra });
const json = { "content-type": "application/json" };

describe("compression bombs and endless bodies end at the size limit", () => {
  const zeros = Buffer.alloc(64 * MiB);
  const bombs: Record<string, Buffer> = {
    gzip: gzipSync(zeros, { level: 1 }),
    br: brotliCompressSync(zeros, { params: { [zlib.BROTLI_PARAM_QUALITY]: 1 } }),
    deflate: deflateSync(zeros, { level: 1 }),
  };

  for (const [fetchName, fetchImpl] of Object.entries(fetches)) {
    for (const [encoding, bomb] of Object.entries(bombs)) {
      it(`${fetchName}: a ${encoding} body of ${Math.round(bomb.length / 1024)} KiB that expands to 64 MiB stops at 4 MiB, once`, async () => {
        const server = await rawServer((_req, res) => {
          res.writeHead(200, { ...json, "content-encoding": encoding });
          res.end(bomb);
        });
        const rp = client(server.url, { fetch: fetchImpl, maxResponseBytes: 4 * MiB });
        const error = (await rp.report.lookBacks().catch((e: unknown) => e)) as ResponseTooLargeError;
        expect(error).toBeInstanceOf(ResponseTooLargeError);
        expect(error.limit).toBe(4 * MiB);
        expect(error.message).toMatch(
          /LookBacks: the response passed its size limit of 4 MiB \(maxResponseBytes, counted decompressed\)/,
        );
        expect(error.message).toMatch(/to raise it: \{ maxResponseBytes: \d+ \} on the call or the client/);
        expect(server.hits).toBe(1);
      });
    }
  }

  it("a 1.5 GB LookBacks body ends at the default limit for a small answer (32 MiB) within a few seconds, not retried", async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(200, json);
      res.write('{"look_backs":["');
      writeRepeated(res, Buffer.alloc(MiB, "x"), 1536, Buffer.from('"]}'));
    });
    const started = Date.now();
    const error = await client(server.url)
      .report.lookBacks()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).limit).toBe(32 * MiB);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.hits).toBe(1);
  });

  it("a write stopped at the limit after a 200 has outcome unknown and says how to check", async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(200, json);
      writeRepeated(res, Buffer.alloc(MiB, " "), 64);
    });
    const error = (await client(server.url, { maxResponseBytes: MiB })
      .marketData.uploadBondPrices({ bond_data: [bond] })
      .catch((e: unknown) => e)) as ResponseTooLargeError;
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error.outcome).toBe("unknown");
    expect(error.message).toMatch(/To check:/);
  });

  it("a limit that is not a positive number is refused when the client is made", () => {
    expect(() => client("http://127.0.0.1:9", { maxResponseBytes: 0 })).toThrow(/maxResponseBytes must be/);
  });
});

describe("streaming to Parquet is not bound by the limit (it never holds the body)", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rpl-hostile-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a table larger than maxResponseBytes streams into Parquet; read whole it is refused", async () => {
    const sim = await startSimulator({ transactionRows: 3_000 });
    try {
      const rp = new RiskPortalClient({
        baseUrl: sim.url,
        auth: { apiKey: sim.credentials.apiKey },
        maxResponseBytes: 64 * 1024,
      });
      const request = { portfolio_name: "GLOBAL-MACRO" };
      const written = await fetchTransactionTableToParquet(rp, request, path.join(dir, "t.parquet"));
      expect(written.rows).toBeGreaterThan(2_500);
      expect(written.bytes).toBeGreaterThan(64 * 1024);
      // Refusals under cross-fetch: Node 20's fetch leaves the socket of a cancelled body open, and the
      // simulator's close() would wait for it.
      const refusing = new RiskPortalClient({
        baseUrl: sim.url,
        auth: { apiKey: sim.credentials.apiKey },
        maxResponseBytes: 64 * 1024,
        fetch: crossFetch,
      });
      await expect(refusing.position.transactionTable(request)).rejects.toBeInstanceOf(ResponseTooLargeError);
      // A streamed call is limited only by a limit given to the call itself.
      const limited = fetchTransactionTableToParquet(refusing, request, path.join(dir, "u.parquet"), {
        maxResponseBytes: 64 * 1024,
      });
      await expect(limited).rejects.toBeInstanceOf(ResponseTooLargeError);
    } finally {
      await sim.close();
    }
  });
});

describe("server JSON never pollutes a prototype", () => {
  it("__proto__, constructor and prototype keys in an error body stay data", async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(400, json);
      res.end(
        `{"title":"bad","__proto__":{"polluted":"yes"},"nested":[{"__proto__":{"polluted":"yes"}}],"constructor":{"prototype":{"polluted":"yes"}}}`,
      );
    });
    const error = (await client(server.url)
      .report.lookBacks()
      .catch((e: unknown) => e)) as BadRequestError;
    expect(error).toBeInstanceOf(BadRequestError);
    const body = error.body as Record<string, unknown> & { nested: Record<string, unknown>[] };
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(body.polluted).toBeUndefined();
    expect(body.nested[0]!.polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(body)).toContain("__proto__");
  });
});

describe("a write answered 200 with something else: outcome unknown, and how to check", () => {
  const answers: Record<string, [Record<string, string>, string]> = {
    "an HTML page": [{ "content-type": "text/html" }, "<!doctype html><title>Sign in</title>"],
    '{"ok":true}': [json, '{"ok":true}'],
    '{"is_success":"yes"}': [json, '{"is_success":"yes"}'],
    "a body that is not JSON": [json, "OK"],
  };
  for (const [name, [headers, body]] of Object.entries(answers)) {
    it(`${name}`, async () => {
      const server = await rawServer((_req, res) => {
        res.writeHead(200, headers);
        res.end(body);
      });
      const error = (await client(server.url)
        .marketData.uploadBondPrices({ bond_data: [bond] })
        .catch((e: unknown) => e)) as ResponseValidationError;
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect(error.outcome).toBe("unknown");
      expect(error.message).toMatch(/HTTP 200.*may have applied it\. To check: once bootstrapped/);
      expect(server.hits).toBe(1);
    });
  }
});

describe("the Content-Type of a JSON operation's answer", () => {
  it("200 text/html whose body parses as JSON is refused, the type named and the first bytes shown, redacted", async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`{"look_backs":["1Y"],"echo":"${API_KEY}"}`);
    });
    const error = (await client(server.url)
      .report.lookBacks()
      .catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toContain(
      "LookBacks: the server answered HTTP 200 with Content-Type text/html; charset=utf-8, not JSON",
    );
    expect(error.message).toContain('{"look_backs":["1Y"],"echo":"[REDACTED]"}');
    expect(error.message).not.toContain(API_KEY);
  });

  it("application/problem+json, application/json with a charset, and no Content-Type at all are read", async () => {
    for (const type of ["application/json; charset=utf-8", "application/vnd.service+json", undefined]) {
      const server = await rawServer((_req, res) => {
        res.writeHead(200, type ? { "content-type": type } : {});
        res.end('{"look_backs":["1Y"]}');
      });
      expect(await client(server.url).report.lookBacks()).toEqual({ look_backs: ["1Y"] });
    }
  });
});

describe("oversized headers are a protocol error, not a retried NetworkError", () => {
  const cases: Record<string, Record<string, string>> = {
    "a 100 KB header": { "x-big": "a".repeat(100_000) },
    "10,000 headers": Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`x-h${i}`, "v"])),
  };
  for (const [fetchName, fetchImpl] of Object.entries(fetches)) {
    for (const [name, headers] of Object.entries(cases)) {
      it(`${fetchName}: ${name}`, async () => {
        const server = await rawServer((_req, res) => {
          res.writeHead(200, { ...json, ...headers });
          res.end('{"look_backs":["1Y"]}');
        });
        const error = (await client(server.url, { fetch: fetchImpl })
          .report.lookBacks()
          .catch((e: unknown) => e)) as ProtocolError;
        expect(error).toBeInstanceOf(ProtocolError);
        expect(error).not.toBeInstanceOf(NetworkError);
        expect(error.message).toMatch(
          /LookBacks: the answer from http:\/\/127\.0\.0\.1:\d+ broke HTTP: its headers are larger than the client accepts/,
        );
        expect(server.hits).toBe(1);
      });
    }
  }
});

describe("invalid UTF-8 is refused with its byte offset", () => {
  for (const [fetchName, fetchImpl] of Object.entries(fetches)) {
    it(`${fetchName}: a stray 0xFF, a cut-off sequence, an overlong encoding`, async () => {
      const bodies: [Buffer, number][] = [
        [Buffer.concat([Buffer.from('{"look_backs":["1Y'), Buffer.from([0xff]), Buffer.from('"]}')]), 18],
        [Buffer.concat([Buffer.from('{"look_backs":["é€'), Buffer.from([0xe2, 0x82])]), 21],
        [Buffer.concat([Buffer.from('{"look_backs":["'), Buffer.from([0xc0, 0xaf]), Buffer.from('"]}')]), 16],
      ];
      for (const [body, offset] of bodies) {
        const server = await rawServer((_req, res) => {
          res.writeHead(200, json);
          res.end(body);
        });
        const error = await client(server.url, { fetch: fetchImpl })
          .report.lookBacks()
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ResponseValidationError);
        expect((error as Error).message).toContain(`LookBacks: the response is not valid UTF-8 at byte ${offset}`);
      }
    });
  }
});
