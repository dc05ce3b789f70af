/**
 * A real HTTP server on 127.0.0.1 for client tests: it records every request and answers with what the
 * test scripts (a fixed reply, a queue of replies, or a function). No stubbed fetch anywhere.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  /** Raw body text. */
  text: string;
  /** Body parsed as JSON when it is JSON. */
  json?: unknown;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON unless a string (then sent as is). */
  body?: unknown;
  /** Destroy the socket instead of answering (a network failure the client sees). */
  destroy?: boolean;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Announce the whole body's length, send the first half, then cut the connection. */
  truncate?: boolean;
}

export type Handler = (req: RecordedRequest) => Reply | Promise<Reply>;

export interface Loopback {
  url: string;
  requests: RecordedRequest[];
  /** Requests to one path. */
  to(path: string): RecordedRequest[];
  /** Replace the handler for one path (others keep theirs). */
  on(path: string, handler: Handler | Reply | Reply[]): void;
  close(): Promise<void>;
}

export async function startLoopback(routes: Record<string, Handler | Reply | Reply[]> = {}): Promise<Loopback> {
  const handlers = new Map<string, Handler>();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const toHandler = (h: Handler | Reply | Reply[]): Handler => {
    if (typeof h === "function") return h;
    if (Array.isArray(h)) {
      const queue = [...h];
      // The last reply repeats once the queue is down to it.
      return () => (queue.length > 1 ? queue.shift()! : queue[0]!);
    }
    return () => h;
  };
  for (const [path, h] of Object.entries(routes)) handlers.set(path, toHandler(h));

  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const recorded: RecordedRequest = {
      method: req.method ?? "",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      text,
      json,
    };
    requests.push(recorded);
    const handler = handlers.get(url.pathname);
    const reply: Reply = handler
      ? await handler(recorded)
      : { status: 404, body: { title: "no route in loopback", status: 404 } };
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (reply.destroy) {
      req.socket.destroy();
      return;
    }
    const isText = typeof reply.body === "string";
    const payload = reply.body === undefined ? "" : isText ? (reply.body as string) : JSON.stringify(reply.body);
    const headers = { "content-type": isText ? "text/plain" : "application/json", ...reply.headers };
    if (reply.truncate) {
      const bytes = Buffer.from(payload);
      res.writeHead(reply.status ?? 200, { ...headers, "content-length": String(bytes.length) });
      res.write(bytes.subarray(0, bytes.length >> 1), () => req.socket.destroy());
      return;
    }
    res.writeHead(reply.status ?? 200, headers);
    res.end(payload);
  });
  // The server runs in the test's own process: a stall of that process (a slow import) past Node's 5 s
  // keep-alive timeout makes the server's idle timer and the client's next requests fall due together, and
  // a request written on a socket being closed fails with ECONNRESET. Idle sockets stay open (close()
  // destroys them), as in bench/loopback-server.mjs; the simulator (fastify) keeps them 72 s.
  server.keepAliveTimeout = 60_000;
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    to: (path) => requests.filter((r) => r.path === path),
    on: (path, h) => handlers.set(path, toHandler(h)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A token endpoint handler (A3) that issues numbered tokens and counts its calls. */
export function tokenEndpoint(options: { expiresIn?: number; clientId?: string; clientSecret?: string } = {}) {
  let issued = 0;
  const handler: Handler = (req) => {
    const basic = String(req.headers.authorization ?? "").replace(/^Basic /, "");
    const [id, secret] = Buffer.from(basic, "base64").toString("utf8").split(":").map(decodeURIComponent);
    const form = new URLSearchParams(req.text);
    if (form.get("grant_type") !== "client_credentials")
      return { status: 400, body: { error: "unsupported_grant_type" } };
    if ((options.clientId && id !== options.clientId) || (options.clientSecret && secret !== options.clientSecret)) {
      return { status: 401, body: { error: "invalid_client" } };
    }
    issued++;
    return {
      body: {
        access_token: `tok-${issued}-${"x".repeat(12)}`,
        token_type: "Bearer",
        expires_in: options.expiresIn ?? 3600,
      },
    };
  };
  return {
    handler,
    get issued() {
      return issued;
    },
  };
}
