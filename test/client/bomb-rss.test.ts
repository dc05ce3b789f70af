/**
 * Issue 34's figure: a 3.5 GB gzip bomb (56 gzip members of 64 MiB of zeros, about 3.6 MB on the wire)
 * against a small operation ends with the size-limit error within seconds, and the process's peak RSS
 * stays under 300 MB. A file of its own: the peak is the whole process's (vitest runs each file in a
 * fork of its own), so nothing else may have grown it.
 */
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { expect, it } from "vitest";
import { ResponseTooLargeError, RiskPortalClient } from "../../src";

const MiB = 2 ** 20;

it("a 3.5 GB gzip bomb ends at the size limit in seconds, peak RSS under 300 MB", async () => {
  const member = gzipSync(Buffer.alloc(64 * MiB), { level: 9 });
  const members = 56; // 3.5 GiB decompressed
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    let i = 0;
    let gone = false;
    res.on("close", () => (gone = true));
    const next = () => {
      while (!gone && i < members) {
        i++;
        if (!res.write(member)) return void res.once("drain", next);
      }
      if (!gone) res.end();
    };
    next();
  });
  server.on("connection", (s) => (sockets.add(s), s.on("close", () => sockets.delete(s))));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    const rp = new RiskPortalClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      auth: { apiKey: "key-bomb-0123456789" },
    });
    const started = Date.now();
    const error = await rp.report.lookBacks().catch((e: unknown) => e);
    const elapsedMs = Date.now() - started;
    peak = Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
    console.info(
      `3.5 GB gzip bomb (${((member.length * members) / 1e6).toFixed(1)} MB compressed): ${(error as Error).constructor.name} after ${elapsedMs} ms, peak RSS ${(peak / MiB).toFixed(0)} MiB`,
    );
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(elapsedMs).toBeLessThan(10_000);
    expect(peak).toBeLessThan(300 * MiB);
  } finally {
    clearInterval(sampler);
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
