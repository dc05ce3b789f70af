/**
 * What a bare `require("risk-portal-lab")` does besides defining names (issue 46, item 4: the import at
 * ≤ 2.5× the CPU of `node -e 0`; bench/import-time.mjs keeps the time, this file keeps the work from
 * creeping back, with counts instead of a clock):
 * - no zod schema is built and zod's own modules are not evaluated: the wire model's schemas (src/api)
 *   are built on their first use, zod with them (before: 558 schemas at every import);
 * - none of Node's heavier built-in modules (crypto and the streams it pulls in, child_process, net,
 *   worker_threads, …) is loaded: the first request, simulator or notebook run loads what it needs.
 * A control shows each count can move: the first use of a schema builds schemas and evaluates zod.
 * Each case is a real `node` child that requires the package by name (dist/ is built by
 * test/global-setup.ts).
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(__dirname, "../..");
const env = { ...process.env, NODE_OPTIONS: "" };

/** Built-in modules a bare import must not load (each costs a share of `node -e 0`'s own start-up). */
const LAZY_BUILTINS = [
  "crypto",
  "stream",
  "child_process",
  "net",
  "worker_threads",
  "fs/promises",
  "timers/promises",
  "http",
  "https",
  "zlib",
];

// Runs in the child: counts zod schemas as zod makes them (each gets its `_zod` internals through
// Object.defineProperty), and lists the built-in modules loaded by the require; argv[1] "use" then
// parses one value with a schema of risk-portal-lab/api.
const CHILD = `
let schemas = 0;
const define = Object.defineProperty;
Object.defineProperty = function (o, key, d) { if (key === "_zod") schemas++; return define(o, key, d); };
const before = new Set(process.moduleLoadList);
const pkg = require("risk-portal-lab");
const report = (extra) => ({
  connect: typeof pkg.connect,
  schemas,
  zodEvaluated: "__zod_globalRegistry" in globalThis,
  builtins: process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith("NativeModule ")).map((m) => m.slice(13)),
  ...extra,
});
const bare = report({});
let used;
if (process.argv[1] === "use") {
  const api = require("risk-portal-lab/api");
  const parsed = api.identifier.safeParse({ code: "" });
  used = report({ success: parsed.success, message: parsed.error?.issues[0]?.message });
}
process.stdout.write(JSON.stringify({ bare, used }));
`;

interface Report {
  connect: string;
  schemas: number;
  zodEvaluated: boolean;
  builtins: string[];
  success?: boolean;
  message?: string;
}

async function child(mode: "bare" | "use"): Promise<{ bare: Report; used?: Report }> {
  const { stdout } = await run(process.execPath, ["-e", CHILD, mode], {
    cwd: root,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  return JSON.parse(stdout) as { bare: Report; used?: Report };
}

describe('a bare require("risk-portal-lab")', () => {
  it("builds no zod schema and does not evaluate zod", async () => {
    const { bare } = await child("bare");
    expect(bare.connect).toBe("function");
    expect(bare.schemas, "zod schemas built by the require").toBe(0);
    expect(bare.zodEvaluated, "zod's modules evaluated by the require").toBe(false);
  });

  it("loads none of Node's heavier built-in modules", async () => {
    const { bare } = await child("bare");
    expect(bare.builtins.filter((m) => LAZY_BUILTINS.includes(m))).toEqual([]);
  });

  it("builds the schemas (and zod) on the first use of one, which checks as before", async () => {
    const { used } = await child("use");
    expect(used?.zodEvaluated).toBe(true);
    expect(used?.schemas).toBeGreaterThan(0);
    expect(used?.success).toBe(false);
    expect(used?.message).toBe("must not be empty or blank");
  });
});
