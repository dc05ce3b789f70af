/** `risk-portal-lab sim`: starts, prints one JSON line with the URL and credentials, and they work. */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import path from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { raw } from "./helpers";

const cli = path.resolve(__dirname, "../../dist/cli.js");

/** The banner a `sim` child prints, up to its "Ctrl-C stops it." line. */
function readBanner(child: ChildProcessByStdio<null, Readable, Readable>): Promise<string[]> {
  const lines = createInterface({ input: child.stdout });
  const banner: string[] = [];
  return new Promise((resolve) =>
    lines.on("line", (line) => {
      banner.push(line);
      if (line.startsWith("Ctrl-C")) resolve(banner);
    }),
  );
}

describe("risk-portal-lab sim --json", () => {
  it("prints exactly one JSON line whose credentials authenticate, and stops on SIGTERM", async () => {
    const child = spawn(process.execPath, [cli, "sim", "--port", "0", "--json"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const lines = createInterface({ input: child.stdout });
    const first = await new Promise<string>((resolve, reject) => {
      lines.once("line", resolve);
      child.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    const { url, credentials } = JSON.parse(first) as { url: string; credentials: Record<string, string> };
    expect(Object.keys(credentials).sort()).toEqual(["apiKey", "bearerToken", "clientId", "clientSecret", "tokenUrl"]);
    expect((await raw(`${url}/api/Report/LookBacks`, { headers: { "x-api-key": credentials.apiKey! } })).status).toBe(
      200,
    );
    expect(
      (await raw(`${url}/api/Report/LookBacks`, { headers: { authorization: `Bearer ${credentials.bearerToken}` } }))
        .status,
    ).toBe(200);
    const extra: string[] = [];
    lines.on("line", (l) => extra.push(l));
    const code = await new Promise<number | null>((resolve) => {
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
    expect(code).toBe(0);
    expect(extra).toEqual([]);
    expect(stderr).toBe("");
  });

  it("--rows N gives N trades per portfolio (with include_zero_quantities), and the banner says why a plain request returns fewer", async () => {
    const child = spawn(process.execPath, [cli, "sim", "--port", "0", "--rows", "1200"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const banner = await readBanner(child);
      expect(banner).toContain(
        "transaction tables: 1,200 trades per portfolio over two years; about 3% have quantity 0 and are returned only with include_zero_quantities: true",
      );
      const url = /listening on (\S+)/.exec(banner[0]!)![1]!;
      const apiKey = /API key\s+(\S+)/.exec(banner.join("\n"))![1]!;
      const rows = async (body: object) => {
        const res = await raw(`${url}/api/Position/GetTransactionTable`, {
          method: "POST",
          headers: { "x-api-key": apiKey, "content-type": "application/json" },
          body: JSON.stringify({ portfolio_name: "GLOBAL-MACRO", ...body }),
        });
        return (JSON.parse(res.text) as { data_table: unknown[] }).data_table.length;
      };
      expect(await rows({ include_zero_quantities: true })).toBe(1200);
      const plain = await rows({});
      expect(plain).toBeLessThan(1200);
      expect(plain).toBeGreaterThan(1200 * 0.94);
    } finally {
      await new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      });
    }
  });

  it("--brand (or RISK_PORTAL_BRAND) makes it speak the published brand", async () => {
    for (const [args, env] of [
      [["--brand", "Derivitec"], {}],
      [[], { RISK_PORTAL_BRAND: "Derivitec" }],
    ] as const) {
      const child = spawn(process.execPath, [cli, "sim", "--port", "0", "--json", ...args], {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, ...env },
      });
      const first = await new Promise<string>((resolve) =>
        createInterface({ input: child.stdout }).once("line", resolve),
      );
      const { url, brand, credentials } = JSON.parse(first) as {
        url: string;
        brand: string;
        credentials: Record<string, string>;
      };
      expect(brand).toBe("Derivitec");
      const res = await raw(`${url}/api/Report/LookBacks`, { headers: { "x-api-key": credentials.apiKey! } });
      expect((res.body as { $type: string }).$type).toBe(
        "Derivitec.Web.Core.Reports.ApiGetReportLookBacksResponse, Derivitec.Web.Core",
      );
      await new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      });
    }
  });

  it("rejects a bad flag with usage and exit code 2", async () => {
    const child = spawn(process.execPath, [cli, "sim", "--port", "x"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--port must be a whole number >= 0, got "x"');
    expect(stderr).toContain("usage: risk-portal-lab");
  });

  it("--faults 1 fails every API request (500/503, dropped or cut off); --token-ttl sets the tokens' lifetime", async () => {
    const child = spawn(
      process.execPath,
      [cli, "sim", "--port", "0", "--json", "--faults", "1", "--latency", "1-3", "--token-ttl", "60"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      const first = await new Promise<string>((resolve) =>
        createInterface({ input: child.stdout }).once("line", resolve),
      );
      const { url, credentials, faults, tokenTtlSeconds } = JSON.parse(first) as {
        url: string;
        credentials: Record<string, string>;
        faults: object;
        tokenTtlSeconds: number;
      };
      expect(faults).toEqual({ errorRate: 0.5, dropRate: 0.25, truncateRate: 0.25, latencyMs: [1, 3] });
      expect(tokenTtlSeconds).toBe(60);
      let ok = 0;
      for (let i = 0; i < 20; i++) {
        const res = await raw(`${url}/api/Report/LookBacks`, { headers: { "x-api-key": credentials.apiKey! } }).catch(
          () => undefined,
        );
        if (res?.status === 200 && typeof res.body === "object") ok++;
      }
      expect(ok).toBe(0);
      const basic = Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString("base64");
      const token = await raw(credentials.tokenUrl!, {
        method: "POST",
        headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
      });
      expect((token.body as { expires_in: number }).expires_in).toBe(60);
    } finally {
      await new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      });
    }
  });

  it("--fault-seed N repeats the same faults run after run, whatever --seed is", async () => {
    const statuses = async (args: string[]) => {
      const child = spawn(process.execPath, [cli, "sim", "--port", "0", "--json", "--faults", "0.5", ...args], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      try {
        const first = await new Promise<string>((resolve) =>
          createInterface({ input: child.stdout }).once("line", resolve),
        );
        const { url, credentials, faultSeed } = JSON.parse(first) as {
          url: string;
          credentials: Record<string, string>;
          faultSeed: number;
        };
        const seen: string[] = [];
        for (let i = 0; i < 24; i++) {
          // One connection per request: a dropped one must not take the next request with it.
          const res = await raw(`${url}/api/Report/LookBacks`, {
            headers: { "x-api-key": credentials.apiKey!, connection: "close" },
          }).catch(() => undefined);
          seen.push(res === undefined ? "drop" : typeof res.body === "object" ? String(res.status) : "cut");
        }
        return { seen: seen.join(" "), faultSeed };
      } finally {
        await new Promise((resolve) => {
          child.once("exit", resolve);
          child.kill("SIGTERM");
        });
      }
    };
    const a = await statuses(["--fault-seed", "7", "--seed", "1"]);
    const b = await statuses(["--fault-seed", "7", "--seed", "2"]);
    const c = await statuses(["--fault-seed", "8"]);
    expect(a.faultSeed).toBe(7);
    expect(b.seen).toBe(a.seen);
    expect(c.seen).not.toBe(a.seen);
    expect(a.seen).toMatch(/200/);
    expect(a.seen).toMatch(/50[03]|drop|cut/);
  });

  it("prints the active faults in the banner", async () => {
    const child = spawn(
      process.execPath,
      [cli, "sim", "--port", "0", "--faults", "0.2", "--latency", "250", "--fault-seed", "9", "--token-ttl", "60"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      const banner = await readBanner(child);
      expect(banner.find((l) => l.startsWith("a bad day:"))).toBe(
        "a bad day: 10% of API requests answered 500/503, 5% dropped, 5% cut off (fault seed 9); latency 250 ms; tokens live 60 s",
      );
      // --rows N: N trades, and why a plain request returns fewer.
      expect(banner.find((l) => l.startsWith("transaction tables:"))).toBe(
        "transaction tables: 5,000 trades per portfolio over two years; about 3% have quantity 0 and are returned only with include_zero_quantities: true",
      );
    } finally {
      await new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      });
    }
  });

  it.each([
    [["--faults", "1.5"], "--faults must be a share between 0 and 1"],
    [["--faults", ""], "--faults must be a share between 0 and 1"],
    [["--latency=-5"], "--latency must be milliseconds (250) or a range MIN-MAX"],
    [["--latency", "99999999999"], "--latency must be at most 600000 ms"],
    [["--faults", "0.1", "--fault-seed", "x"], "--fault-seed must be a whole number >= 0"],
    [["--fault-seed", "3"], "--fault-seed only applies with --faults or --latency"],
    [["--port", "70000"], "--port must be at most 65535"],
    [["--token-ttl", "31536001"], "--token-ttl must be at most 31536000 seconds"],
    [["--token-ttl", "1e300"], "--token-ttl must be a whole number >= 0"],
    [["--faults", "x"], "--faults must be a share between 0 and 1"],
    [["--latency", "5-2"], "--latency must be milliseconds (250) or a range MIN-MAX"],
    [["--token-ttl", "0"], "--token-ttl must be at least 1 second"],
    [["--token-ttl", "1.5"], "--token-ttl must be a whole number >= 0"],
  ])("rejects %j with a usage error naming the flag", async (args, message) => {
    const child = spawn(process.execPath, [cli, "sim", "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    // A flag taken by mistake starts the simulator: stop it rather than wait for the test's timeout.
    const started = setTimeout(() => child.kill("SIGTERM"), 10_000);
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    clearTimeout(started);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});
