/** Shared bits of the simulator tests. */
export * from "../../src";
export { TRANSACTION_COLUMNS as TRANSACTION_COLUMNS_FOR_TESTS } from "../../src/api/assumptions";

/** A raw HTTP call (no client), so a server bug cannot hide behind the client. */
export async function raw(
  url: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<{ status: number; headers: Headers; text: string; body: unknown }> {
  const { json, ...rest } = init;
  const res = await fetch(
    url,
    json === undefined
      ? rest
      : {
          ...rest,
          body: JSON.stringify(json),
          headers: { "content-type": "application/json", ...(rest.headers as Record<string, string>) },
        },
  );
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* keep the text */
  }
  return { status: res.status, headers: res.headers, text, body };
}
