/**
 * The simulator's HTTP layer on fastify: content types, body limit, auth, rate limit, faults, one route
 * per operation declaration (validated with the client's own schemas), problem details for every error,
 * and `/openapi.json`. The server answers every request: malformed input gets a 4xx, never a crash.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable, type Duplex } from "node:stream";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { z } from "zod";
import { BRIEF_QUERY_PARAM, HEADERS, PROBLEM_CONTENT_TYPE } from "../api/assumptions";
import { OPERATIONS } from "../api";
import { brandOf, toBrand, type Brand } from "../api/brand";
import { decodeRequest, formatPath, isRecord, type FieldIssue } from "../api/operation";
import { jsonShapeIssue } from "../api/guards";
import type { Authenticator } from "./auth";
import { TOKEN_PATH } from "./auth";
import { isAllowedHost, pathIssue, PUBLIC_ROUTES } from "./gate";
import type { FaultInjector, RateLimiter } from "./limits";
import { buildOpenApi } from "./openapi";
import { problem, validationProblem, type Problem } from "./problem";
import { SimError, type SimService } from "./service";

export interface AppDeps {
  service: SimService;
  auth: Authenticator;
  rateLimiter?: RateLimiter;
  faults?: FaultInjector;
  bodyLimitBytes: number;
  /** The service's brand: requests are read in its spelling (or the neutral one), answers written in it. */
  brand: string;
  /** Host names served besides the loopback ones (see `gate.ts`). */
  extraHosts?: readonly string[];
}

/** JSON media types the spec accepts for bodies: application/json, text/json, application/*+json (incl. json-patch+json). */
const JSON_TYPES = /^(application\/json|text\/json|application\/[^\s;/]+\+json)\s*(;.*)?$/i;

declare module "fastify" {
  interface FastifyRequest {
    principal?: string;
    truncate?: boolean;
  }
}

export function buildApp(deps: AppDeps): FastifyInstance {
  let requestCounter = 0;
  const app = Fastify({
    logger: false,
    bodyLimit: deps.bodyLimitBytes,
    genReqId: () => `sim-${(++requestCounter).toString(36).padStart(6, "0")}`,
    return503OnClosing: true,
    // close() ends every connection, not only idle ones: a client may leave a connection open that
    // never carried a request (Node 22's fetch after a body it cut short: the size limit), and
    // waiting on it would hang close() for good.
    forceCloseConnections: true,
    // Transport-level refusals (headers too large, bad framing) are problem details too, not Node's bare answer.
    clientErrorHandler: (error, socket) => answerClientError(error as NodeJS.ErrnoException, socket),
    // Node would answer a request without Host with a bare 400 of its own; the gate answers it instead.
    http: { requireHostHeader: false },
    // A URL that does not decode (`/api/%ZZ`) is refused before routing; fastify's own answer is no problem details.
    frameworkErrors: (error, req, reply) => {
      void reply.header(HEADERS.requestId, req.id);
      const detail =
        error.code === "FST_ERR_BAD_URL"
          ? `the URL ${JSON.stringify(req.url)} is not valid percent-encoding (a % must be followed by two hex digits)`
          : error.message;
      return sendProblem(reply, problem(error.statusCode ?? 400, detail, req.url));
    },
  });
  answerNodeRefusals(app);
  const brand = brandOf(deps.brand);
  registerParsers(app);
  registerGate(app, deps);
  registerErrorHandlers(app, deps);
  registerTokenEndpoint(app, deps.auth);
  const openapi = buildOpenApi(deps.brand);
  app.get("/openapi.json", async () => openapi);
  app.get("/health", async () => ({ status: "ok" }));
  for (const route of SIM_ROUTES)
    app.route({ method: route.method, url: route.url, handler: async (req) => route.answer(deps.service, req, brand) });
  for (const op of OPERATIONS) registerOperation(app, op, deps, brand);
  return app;
}

/** JSON bodies (nesting checked before anything recursive reads them) and the token endpoint's form. */
function registerParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_TYPES, { parseAs: "string" }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === "") return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return done(
        Object.assign(new Error(`malformed JSON: ${(error as Error).message}`), { statusCode: 400 }),
        undefined,
      );
    }
    // Before anything recursive reads it: a body nested thousands deep is a 400, not a stack overflow.
    const issue = jsonShapeIssue(parsed, { finite: false }) ?? keyIssue(parsed, []);
    if (issue)
      return done(new SimError(400, `request body: ${issue.path}: ${issue.message}`, undefined, [issue]), undefined);
    done(null, parsed);
  });
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (req, body, done) => {
    // Only the token endpoint takes a form; everywhere else it is an unsupported media type.
    if (req.routeOptions.url !== TOKEN_PATH)
      return done(
        Object.assign(new Error("unsupported content type application/x-www-form-urlencoded"), { statusCode: 415 }),
        undefined,
      );
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
}

/** Longest field name a request may carry; the spec's longest is under 40 characters. */
const MAX_FIELD_NAME_LENGTH = 256;
/** Most fields one object of a request may have; the spec's largest object has under 40. */
const MAX_OBJECT_FIELDS = 1000;

/**
 * The first key of a parsed body no request has: `__proto__` (or `constructor.prototype`), which a copy
 * by assignment would turn into the object's prototype; a field name over {@link MAX_FIELD_NAME_LENGTH}
 * characters; an object with over {@link MAX_OBJECT_FIELDS} fields. The last two are refused before the
 * schema reports each unknown field with its closest known name, seconds of work for a hostile body.
 * Recursive: only called once the nesting is known to be within MAX_BODY_DEPTH.
 */
function keyIssue(value: unknown, path: (string | number)[]): FieldIssue | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const issue = typeof item === "object" && item !== null ? keyIssue(item, [...path, i]) : undefined;
      if (issue) return issue;
    }
    return undefined;
  }
  const keys = Object.keys(value);
  if (keys.length > MAX_OBJECT_FIELDS)
    return {
      path: formatPath(path),
      message: `an object with ${keys.length} fields; objects have at most ${MAX_OBJECT_FIELDS}`,
    };
  for (const key of keys) {
    if (key.length > MAX_FIELD_NAME_LENGTH)
      return {
        path: formatPath(path),
        message: `a field name of ${key.length} characters; field names are at most ${MAX_FIELD_NAME_LENGTH}`,
      };
    const child = (value as Record<string, unknown>)[key];
    if (key === "__proto__")
      return {
        path: formatPath([...path, key]),
        message: "a field named __proto__ is refused: it would set the object's prototype",
      };
    if (key === "constructor" && isRecord(child) && Object.prototype.hasOwnProperty.call(child, "prototype"))
      return {
        path: formatPath([...path, key, "prototype"]),
        message: "constructor.prototype is refused: it would reach the object's prototype",
      };
    const issue = typeof child === "object" && child !== null ? keyIssue(child, [...path, key]) : undefined;
    if (issue) return issue;
  }
  return undefined;
}

/**
 * Before any route: the request id; the Host and the path's spelling (`gate.ts`); injected faults;
 * credentials on every route but the public ones; the rate limit. Each is decided on the route the
 * router matched (or, for no route, the path, which `pathIssue` has made plain). Truncation on the way out.
 */
function registerGate(app: FastifyInstance, deps: AppDeps): void {
  const { auth, rateLimiter, faults } = deps;
  app.addHook("onRequest", async (req, reply) => {
    void reply.header(HEADERS.requestId, req.id);
    const refused = requestIssue(req, deps.extraHosts ?? []);
    if (refused) return sendProblem(refused.close ? reply.header("connection", "close") : reply, refused.problem);
    const routed = req.routeOptions.url ?? req.url.split("?", 1)[0]!;
    if (faults && (routed.startsWith("/api/") || (faults.options.includeTokenEndpoint && routed === TOKEN_PATH))) {
      const delay = faults.latencyMs();
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      const fault = faults.draw();
      if (fault.kind === "drop") {
        req.raw.socket.destroy();
        return reply.hijack();
      }
      if (fault.kind === "error") return sendProblem(reply, problem(fault.status, "injected fault", req.url));
      if (fault.kind === "truncate") req.truncate = true;
    }
    if (req.routeOptions.url !== undefined && PUBLIC_ROUTES.has(req.routeOptions.url)) return;
    const who = auth.authenticate(req.headers);
    if ("refused" in who) {
      void reply.header("www-authenticate", 'Bearer realm="risk-portal-simulator"');
      return sendProblem(reply, problem(401, who.refused, req.url));
    }
    req.principal = who.principal;
    const verdict = rateLimiter?.take(who.principal);
    if (verdict && !verdict.ok) {
      void reply.header(HEADERS.retryAfter, String(verdict.retryAfterSeconds));
      return sendProblem(
        reply,
        problem(429, `rate limit exceeded for this credential; retry after ${verdict.retryAfterSeconds} s`, req.url),
      );
    }
  });

  app.addHook("onSend", async (req, reply, payload) => {
    if (!req.truncate || typeof payload !== "string" || reply.statusCode !== 200) return payload;
    // A truncated body: announce the full length, send half, cut the connection.
    const bytes = Buffer.from(payload);
    reply.hijack();
    reply.raw.writeHead(200, {
      "content-type": "application/json",
      "content-length": bytes.length,
      [HEADERS.requestId]: req.id,
    });
    reply.raw.write(bytes.subarray(0, bytes.length >> 1), () => reply.raw.socket?.destroy());
    return payload;
  });
}

/**
 * A request refused before routing: HTTP/1.1 without Host (what Node would refuse with a bare 400;
 * `requireHostHeader` is off so that this answer is a problem), a Host that is not loopback (421), a
 * path spelled so that its decoded form differs where it matters (400).
 */
function requestIssue(
  req: FastifyRequest,
  extraHosts: readonly string[],
): { problem: Problem; close?: boolean } | undefined {
  const host = req.headers.host;
  if (host === undefined) {
    if (req.raw.httpVersionMajor === 1 && req.raw.httpVersionMinor === 1)
      return {
        problem: problem(400, "an HTTP/1.1 request must carry a Host header (RFC 9112, section 3.2)", req.url),
        close: true,
      };
  } else if (!isAllowedHost(host, extraHosts)) {
    const detail =
      "the simulator answers only requests addressed to a loopback name or address (localhost, 127.0.0.0/8, [::1]) in the Host header";
    return { problem: problem(421, detail, req.url) };
  }
  const issue = pathIssue(req.url);
  return issue ? { problem: problem(400, issue, req.url) } : undefined;
}

/** Every error as problem details: the service's own (with field paths), fastify's 4xx, a 404 for no route. */
function registerErrorHandlers(app: FastifyInstance, deps: AppDeps): void {
  app.setErrorHandler((error: FastifyError, req, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
    if (error instanceof SimError) {
      const p = error.issues?.length
        ? {
            ...validationProblem(error.issues, req.url),
            status: error.status,
            ...(error.title ? { title: error.title } : {}),
          }
        : problem(error.status, error.message, req.url, error.title);
      return sendProblem(reply, p);
    }
    if (status >= 500) return sendProblem(reply, problem(500, "the simulator failed to answer this request", req.url));
    let detail = error.message;
    if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE")
      detail = `unsupported content type ${JSON.stringify(req.headers["content-type"] ?? "")}; send application/json (also accepted: text/json, application/*+json)`;
    if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE")
      detail = `request body over the limit of ${deps.bodyLimitBytes} bytes`;
    return sendProblem(reply, problem(status, detail, req.url));
  });
  app.setNotFoundHandler((req, reply) =>
    sendProblem(reply, problem(404, `no operation ${req.method} ${req.url.split("?")[0]}`, req.url)),
  );
}

/** The OAuth2 token endpoint (client credentials, in the form or as HTTP Basic). */
function registerTokenEndpoint(app: FastifyInstance, auth: Authenticator): void {
  app.post(TOKEN_PATH, async (req, reply) => {
    const form = isRecord(req.body) ? (req.body as Record<string, string>) : {};
    if (form.grant_type !== "client_credentials")
      return reply.code(400).send({
        error: "unsupported_grant_type",
        error_description: "only grant_type=client_credentials is supported",
      });
    let id = form.client_id;
    let secret = form.client_secret;
    const basic = /^Basic\s+(\S+)$/i.exec(String(req.headers.authorization ?? ""));
    if (basic) {
      const decoded = Buffer.from(basic[1]!, "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon > 0) {
        id = safeDecode(decoded.slice(0, colon));
        secret = safeDecode(decoded.slice(colon + 1));
      }
    }
    const token = auth.issueToken(id, secret);
    if (!token)
      return reply
        .code(401)
        .header("www-authenticate", 'Basic realm="risk-portal-simulator"')
        .send({ error: "invalid_client", error_description: "client authentication failed" });
    return reply.header("cache-control", "no-store").send(token);
  });
}

/** A simulator-only route for notebooks (not part of the service's interface). */
interface SimRoute {
  method: "GET" | "POST";
  url: string;
  answer(service: SimService, req: FastifyRequest, brand: Brand): unknown;
}

/**
 * The simulator's own routes, declared like the operations (the client side: `simHelpers`).
 * They need the simulator's credentials like every API route: `POST /sim/batch` runs every saved item.
 */
const SIM_ROUTES: readonly SimRoute[] = [
  {
    method: "GET",
    url: "/sim/tradables",
    answer: (service) =>
      [...service.universe.tradables.values()].map((t) => ({
        id: t.id,
        kind: t.kind,
        name: t.name,
        currency: t.currency,
        next_trade_event: service.universe.nextEvent(t),
      })),
  },
  {
    method: "GET",
    url: "/sim/portfolios",
    answer: (service, _req, brand) =>
      toBrand(
        service.portfolios.map((p) => ({
          name: p.name,
          portfolio_type: p.type,
          description: p.description,
          reporting_currency: p.reportingCurrency,
        })),
        brand,
      ),
  },
  // Runs every saved launcher item now, as the daily batch would (a create only saves an item: A21).
  { method: "POST", url: "/sim/batch", answer: (service) => service.runBatch() },
  {
    // The surface an equity is priced with (`/sim/surface?asset=SPX`).
    method: "GET",
    url: "/sim/surface",
    answer: (service, req) => {
      const { asset } = req.query as { asset?: unknown };
      const name = typeof asset === "string" ? asset.trim() : "";
      if (!name) throw new SimError(400, "the query parameter asset is required: /sim/surface?asset=SPX");
      return service.surfaceOf(name);
    },
  },
];

type Operation = (typeof OPERATIONS)[number];
type OperationName = Operation["name"];
type InputOf<N extends OperationName> = z.output<Extract<Operation, { name: N }>["request"]>;

/**
 * The service's (neutral) answer to each operation's decoded request: one handler per declared operation,
 * typed so that a missing or an extra handler does not compile. A handler that streams (the transaction
 * table) sends on the reply itself and returns it.
 */
const HANDLERS: {
  readonly [N in OperationName]: (input: InputOf<N>, service: SimService, reply: FastifyReply) => unknown;
} = {
  UploadBondPriceData: (input, service) => service.uploadBondPriceData(input),
  UploadEquityVolCurves: (input, service) => service.uploadEquityVolCurves(input),
  GetVol: (input, service) => service.getVol(input),
  RateAsset: (input, service) => service.rateAsset(input),
  GetTradeEventPositionEffects: (input, service) => service.positionEffects(input),
  GetTradableBrief: (input, service) => service.brief(input[BRIEF_QUERY_PARAM]),
  VarReportLauncherItemCreate: (input, service) => service.launch("var", input),
  RiskReportLauncherItemCreate: (input, service) => service.launch("risk", input),
  GetReportInfos: (input, service) => service.reportInfos(input),
  ReportInfos: (_input, service) => service.reportList(),
  LookBacks: (_input, service) => service.lookBacks(),
  GetTransactionTable: (input, service, reply) =>
    reply.type("application/json").send(Readable.from(streamTable(service.transactionRows(input)))),
  ApiKeys: (_input, service) => service.listApiKeys(),
};

function registerOperation(app: FastifyInstance, op: Operation, deps: AppDeps, brand: Brand): void {
  const { service } = deps;
  const handler = HANDLERS[op.name] as (input: unknown, service: SimService, reply: FastifyReply) => unknown;
  app.route({
    method: op.method,
    url: op.path,
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      const decoded = decodeRequest(op, op.requestIn === "query" ? req.query : req.body, { brand });
      if (!decoded.ok) return sendProblem(reply, validationProblem(decoded.issues, req.url));
      const answer = await handler(decoded.value, service, reply);
      // The service answers in the neutral spelling; the wire carries the brand's.
      return answer === reply ? reply : toBrand(answer, brand);
    },
  });
}

/** `{"data_table":[…]}` in chunks of rows, so a million-row table never sits in memory as one string. */
function* streamTable(rows: Iterable<unknown>): Generator<string> {
  yield '{"data_table":[';
  let chunk: string[] = [];
  let first = true;
  for (const row of rows) {
    chunk.push(JSON.stringify(row));
    if (chunk.length === 2000) {
      yield (first ? "" : ",") + chunk.join(",");
      first = false;
      chunk = [];
    }
  }
  if (chunk.length) yield (first ? "" : ",") + chunk.join(",");
  yield "]}";
}

function sendProblem(reply: FastifyReply, p: Problem): FastifyReply {
  return reply.code(p.status).type(PROBLEM_CONTENT_TYPE).send(p);
}

/**
 * Node's HTTP parser refused a request before any route saw it: answer with problem details (431 for
 * headers over the limit, 413 for a body over it, else 400 naming the parser's reason) and close.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const status =
    error.code === "HPE_HEADER_OVERFLOW"
      ? 431
      : error.code === "HPE_CHUNK_EXTENSIONS_OVERFLOW"
        ? 413
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? 408
          : 400;
  const detail =
    status === 431
      ? "the request's header fields are larger than the server accepts (16 KiB in all)"
      : status === 408
        ? "the request did not arrive in time"
        : `the request is not valid HTTP/1.1: ${error.message.replace(/^Parse Error: /, "")}${error.code ? ` (${error.code})` : ""}`;
  const p = problem(status, detail, "");
  const body = JSON.stringify(p);
  socket.end(
    `HTTP/1.1 ${status} ${p.title}\r\ncontent-type: ${PROBLEM_CONTENT_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * The requests Node answers (or drops) before fastify sees them, answered with problem details instead:
 * an `Expect` other than 100-continue (417) and CONNECT (405: the simulator is no proxy; Node would
 * close the socket without a word).
 */
function answerNodeRefusals(app: FastifyInstance): void {
  app.server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    const detail = `the simulator cannot meet the expectation ${JSON.stringify(req.headers.expect ?? "")}; only 100-continue is supported`;
    const body = JSON.stringify(problem(417, detail, req.url ?? ""));
    res.writeHead(417, {
      "content-type": PROBLEM_CONTENT_TYPE,
      "content-length": Buffer.byteLength(body),
      connection: "close",
    });
    res.end(body);
  });
  app.server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    const detail = `CONNECT ${req.url ?? ""}: the simulator is no proxy; its operations are GET and POST`;
    const body = JSON.stringify(problem(405, detail, req.url ?? ""));
    socket.end(
      `HTTP/1.1 405 Method Not Allowed\r\nallow: GET, POST\r\ncontent-type: ${PROBLEM_CONTENT_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
