/** RFC 9457 problem details, the simulator's only error body (A16). */
import type { FieldIssue } from "../api/operation";

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  /** ASP.NET-style validation errors: field path → messages. */
  errors?: Record<string, string[]>;
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  408: "Request Timeout",
  413: "Content Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  417: "Expectation Failed",
  421: "Misdirected Request",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** The RFC 9110 section of each status, as ASP.NET fills `type`. */
const SECTIONS: Record<number, string> = {
  400: "15.5.1",
  401: "15.5.2",
  403: "15.5.4",
  404: "15.5.5",
  405: "15.5.6",
  408: "15.5.9",
  413: "15.5.14",
  414: "15.5.15",
  415: "15.5.16",
  417: "15.5.18",
  421: "15.5.20",
  429: "",
  500: "15.6.1",
  503: "15.6.4",
};

/** A problem for `status`, `detail` and the request path. */
export function problem(status: number, detail: string, instance: string, title?: string): Problem {
  const section = SECTIONS[status];
  return {
    type: section
      ? `https://tools.ietf.org/html/rfc9110#section-${section}`
      : status === 429
        ? "https://tools.ietf.org/html/rfc6585#section-4"
        : status === 431
          ? "https://tools.ietf.org/html/rfc6585#section-5"
          : "about:blank",
    title: title ?? TITLES[status] ?? "Error",
    status,
    detail,
    instance,
  };
}

/**
 * A 400 naming each bad field path, with `errors` grouped by path. A path is the caller's text: one named
 * `constructor` or `__proto__` is a field like any other (grouped in a Map, never looked up on an object).
 */
export function validationProblem(issues: readonly FieldIssue[], instance: string): Problem {
  const byPath = new Map<string, string[]>();
  for (const { path, message } of issues) {
    const messages = byPath.get(path);
    if (messages) messages.push(message);
    else byPath.set(path, [message]);
  }
  // fromEntries defines own properties: a `__proto__` path is a key of `errors`, not its prototype.
  const errors: Record<string, string[]> = Object.fromEntries(byPath);
  const detail = issues
    .slice(0, 20)
    .map((i) => `${i.path}: ${i.message}`)
    .join("; ");
  return {
    ...problem(
      400,
      detail + (issues.length > 20 ? ` … and ${issues.length - 20} more` : ""),
      instance,
      "One or more validation errors occurred.",
    ),
    errors,
  };
}
