/**
 * Shared setup of the store tests: temporary data directories and simulator child processes, both
 * removed after each test; a stored bond price; the built simulator started on a data directory.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { vi } from "vitest";
import type { StoredBondPrice } from "../../src/sim/store";
import { RiskPortalClient } from "../../src";

const dirs: string[] = [];
const children: ChildProcess[] = [];
/**
 * Kills the children and removes the directories made since the last call, and restores mocks: each test file
 * that uses these helpers calls it after each test (`afterEach(cleanUp)`). Not a hook here: when test files
 * share a process, this module is evaluated once, and its hook would be registered in the first file only.
 */
export function cleanUp(): void {
  vi.restoreAllMocks();
  for (const c of children.splice(0)) c.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A new temporary directory, removed after the test. */
export function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), "rpl-store-"));
  dirs.push(d);
  return d;
}

/** A bootstrapped Bund price of 2026-11-20 (unless `extra` says otherwise), its price varying with `i`. */
export function price(i: number, extra: Partial<StoredBondPrice> = {}): StoredBondPrice {
  return {
    code: "DE0001102580",
    market_identification_code: "XETR",
    identifier_type: "ISIN",
    date: "2026-11-20",
    currency: "EUR",
    traded_price: 95 + (i % 100) / 100,
    is_percentage_of_par: true,
    is_currency_per_bond_unit: false,
    bootstrapped: true,
    ...extra,
  };
}

/** The built simulator (`dist/cli.js sim`) on `dir`, as a child process killed after the test, and a client of it. */
export async function startChild(dir: string): Promise<{ child: ChildProcess; rp: RiskPortalClient }> {
  const cli = path.resolve(__dirname, "../../dist/cli.js");
  const child = spawn(process.execPath, [cli, "sim", "--port", "0", "--json", "--no-rate-limit", "--data-dir", dir], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once("line", resolve));
  const { url, credentials } = JSON.parse(line) as { url: string; credentials: { apiKey: string } };
  return { child, rp: new RiskPortalClient({ baseUrl: url, auth: { apiKey: credentials.apiKey }, retry: false }) };
}
