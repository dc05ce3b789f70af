/**
 * The plotly.js browser bundle, as text to embed in HTML. Never `require`d: the bundle is for
 * browsers (it throws in Node). Resolved, not loaded, so importing the package keeps it out of the
 * module cache; read from disk once, on first use.
 */
import { readFileSync } from "node:fs";

/** The bundles looked for, smallest first: `plotly.js-dist-min` (~4.8 MB), then `plotly.js-dist` (~10 MB). */
const BUNDLES = ["plotly.js-dist-min/plotly.min.js", "plotly.js-dist/plotly.js"] as const;

export interface PlotlySource {
  /** The file embedded. */
  path: string;
  /** `4.1.1`, from the bundle's banner (`unknown` when it has none). */
  version: string;
  text: string;
}

let cached: PlotlySource | undefined;

/** Where the plotly.js bundle is; throws naming the packages to install when neither is. */
export function plotlyBundlePath(resolve: (id: string) => string = require.resolve): string {
  const tried: string[] = [];
  for (const id of BUNDLES) {
    try {
      return resolve(id);
    } catch {
      tried.push(id);
    }
  }
  throw new Error(
    `plotly.js is not installed: none of ${tried.join(", ")} resolves. Install it with \`npm install plotly.js-dist-min\`.`,
  );
}

/**
 * The plotly.js bundle's text (read once, then cached for the process).
 * @example
 * ```ts
 * import { plotlySource } from "risk-portal-lab/plot";
 * const { version, path } = plotlySource(); // the plotly.js bundle show and toHtml embed
 * ```
 */
export function plotlySource(): PlotlySource {
  if (cached) return cached;
  const path = plotlyBundlePath();
  const text = readFileSync(path, "utf8");
  const version = /plotly\.js v(\d+\.\d+\.\d+[^\s*]*)/.exec(text.slice(0, 400))?.[1] ?? "unknown";
  cached = { path, version, text };
  return cached;
}
