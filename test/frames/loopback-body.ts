/** A loopback HTTP server for the table routes' tests: every request is answered with one body, in chunks. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A loopback server answering every request with `body`, in chunks of `chunk` bytes (each written when the last is out). */
export async function serveBody(
  body: string | Uint8Array,
  chunk = 13,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      const bytes = Buffer.from(body);
      let at = 0;
      const next = () => {
        if (at >= bytes.length) return void res.end();
        res.write(bytes.subarray(at, at + chunk), next);
        at += chunk;
      };
      next();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
