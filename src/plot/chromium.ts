/**
 * Which Chromium the package drives and with which flags, and the error that says what is missing: no
 * playwright-core types here, so the public declarations that name these do not make a notebook's
 * type-check read playwright-core's (`launchChromium`, which needs them, has a module of its own).
 */
import { existsSync } from "node:fs";
import { RiskPortalError } from "../errors";

/** Where a Chromium is looked for, after `options.chromiumPath` and `$RISK_PORTAL_LAB_CHROMIUM`. */
export const CHROMIUM_CANDIDATES = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/snap/bin/chromium",
] as const;

/** Chromium flags: headless, no sandbox (containers, root), no GPU, and nothing that reaches out. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
] as const;

export interface BrowserOptions {
  /** The Chromium (or Chrome) executable. Default: `$RISK_PORTAL_LAB_CHROMIUM`, else the first of `CHROMIUM_CANDIDATES` that exists. */
  chromiumPath?: string;
  /** Time allowed for launching Chromium and for each render, ms. Default 60,000. */
  timeoutMs?: number;
}

/** Something toPng needs is not installed: `missing` names it, the message says how to install it. */
export class PngExportError extends RiskPortalError {
  constructor(
    message: string,
    readonly missing: "chromium" | "playwright-core" | "render",
    options?: { cause?: unknown },
  ) {
    super(message, { operation: "toPng", cause: options?.cause });
  }
}

/**
 * The Chromium `toPng` would use, or `undefined` (with what was tried) when there is none.
 * @example
 * ```ts
 * import { findChromium } from "risk-portal-lab/plot";
 * const { path, tried } = findChromium(); // path undefined when none of tried exists
 * ```
 */
export function findChromium(explicit?: string): { path?: string; tried: string[] } {
  const tried: string[] = [];
  const candidates = [explicit, process.env.RISK_PORTAL_LAB_CHROMIUM, ...CHROMIUM_CANDIDATES].filter(
    (p): p is string => typeof p === "string" && p !== "",
  );
  for (const candidate of candidates) {
    tried.push(candidate);
    if (existsSync(candidate)) return { path: candidate, tried };
    if (candidate === explicit) break; // an explicit path that does not exist is an error, not a hint
  }
  return { tried };
}
