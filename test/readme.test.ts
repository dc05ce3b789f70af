/**
 * Every ```ts block of the README and of the guides in docs/*.md runs, as written, against the simulator — so
 * the docs cannot drift from the package. A block may use what an earlier block or the surrounding prose set up (`rp`,
 * `surface`, `req`, …): the harness provides those names (unless the block declares them), imports
 * from "risk-portal-lab" come from this checkout, and the files a block writes or reads by relative path
 * are moved to a temporary directory or the repository's fixtures.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as pkg from "../src";
import * as api from "../src/subpath/api";
import * as curves from "../src/subpath/curves";
import * as frames from "../src/subpath/frames";
import * as internals from "../src/subpath/internals";
import * as plot from "../src/subpath/plot";
import * as vol from "../src/subpath/vol";

/** The package's subpaths (package.json "exports"): `import { … } from "risk-portal-lab/frames"` reads these. */
const SUBPATHS: Record<string, unknown> = { api, curves, frames, internals, plot, vol };

const ROOT = path.resolve(__dirname, "..");
/** The pages whose blocks run: the README, then each guide in docs/ by name. */
const PAGES = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];
/** Each ```ts block with its page and its number there (1-based), as the test names it. */
const BLOCKS = PAGES.flatMap((page) =>
  [...readFileSync(path.join(ROOT, page), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((m, i) => ({
    page,
    n: i + 1,
    code: m[1]!,
  })),
);

let sim: pkg.Simulator;
let tmp: string;
let context: Record<string, unknown>;
beforeAll(async () => {
  sim = await pkg.startSimulator({ rateLimit: false });
  tmp = mkdtempSync(path.join(tmpdir(), "rpl-readme-"));
  // The fixtures keep bad rows on purpose (notebook 05 shows them reported); the README's uploads are of clean files.
  for (const [fixture, file] of [
    ["bond-prices.csv", "prices.csv"],
    ["equity-vol-curves.csv", "vols.csv"],
  ]) {
    const lines = readFileSync(path.join(ROOT, "fixtures", fixture!), "utf8").split("\n");
    writeFileSync(path.join(tmp, file!), lines.slice(0, 4).join("\n") + "\n");
  }
  process.env.RISK_PORTAL_BASE_URL = sim.url;
  process.env.RISK_PORTAL_API_KEY = sim.credentials.apiKey;
  const baseUrl = sim.url;
  const apiKey = sim.credentials.apiKey;
  const rp = new pkg.RiskPortalClient({ baseUrl, auth: { apiKey } });
  const surface = await (await fetch(`${baseUrl}/sim/surface?asset=SPX`, { headers: { "x-api-key": apiKey } })).json();
  const req = { surface, maturity: 90, strikes: [4800, 5000, 5200], strike_type: pkg.STRIKE_TYPE.Absolute };
  const request = {
    tradable_id: "AAPL.XNAS",
    pricing_date: "2026-11-20",
    next_trade_event: { $type: "BuyEvent", unit_price: 189.5, quantity: 100 },
  };
  const bond = {
    date: "2026-11-20",
    bond_identifier: { code: "DE0001102580", identifier_type: "ISIN" },
    currency: "EUR",
    traded_price: 97.5,
    is_percentage_of_par: true,
    is_currency_per_bond_unit: false,
  };
  context = {
    ...pkg,
    baseUrl,
    apiKey,
    rp,
    surface,
    req,
    res: await rp.tradable.getVol(req),
    request,
    body: { bond_data: [bond] },
    curve: await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" }),
    localGrid: pkg.vol.fromSurface(surface).grid([30, 91, 365], [4800, 5000, 5200], pkg.STRIKE_TYPE.Absolute),
    replay: true,
  };
});
afterAll(async () => {
  await pkg.closeAllConnections();
  await sim?.close();
  delete process.env.RISK_PORTAL_BASE_URL;
  delete process.env.RISK_PORTAL_API_KEY;
  rmSync(tmp, { recursive: true, force: true });
});

/** The block as a function body: imports of the package become reads of it, relative paths are moved. */
function asFunctionBody(code: string): { body: string; declared: Set<string> } {
  let body = code.replace(/^import \{([^}]*)\} from "risk-portal-lab";$/gm, "const {$1} = __pkg;");
  body = body.replace(/^import \{([^}]*)\} from "risk-portal-lab\/(\w+)";$/gm, (_, names: string, sub: string) => {
    if (!(sub in SUBPATHS))
      throw new Error(`the block imports risk-portal-lab/${sub}, which package.json does not export`);
    return `const {${names}} = __subpaths.${sub};`;
  });
  body = body
    .replaceAll('"fixtures/cassettes/study.json"', JSON.stringify(path.join(tmp, "study.json")))
    .replaceAll('".rpl-cache"', JSON.stringify(path.join(tmp, "cache")))
    .replaceAll('"../fixtures/', `"${ROOT}/fixtures/`)
    .replaceAll('"prices.csv"', JSON.stringify(path.join(tmp, "prices.csv")))
    .replaceAll('"vols.csv"', JSON.stringify(path.join(tmp, "vols.csv")))
    .replaceAll('"report.xlsx"', JSON.stringify(path.join(tmp, "report.xlsx")))
    .replaceAll('"data/trades"', JSON.stringify(path.join(tmp, "trades")))
    .replaceAll('"data/panel"', JSON.stringify(path.join(tmp, "panel")))
    .replaceAll('"data/rates-eu.parquet"', JSON.stringify(path.join(tmp, "rates-eu.parquet")));
  const declared = new Set<string>();
  for (const m of body.matchAll(/\b(?:const|let)\s+(?:\{([^}]*)\}|(\w+))/g)) {
    for (const name of (m[1] ?? m[2]!).split(",")) declared.add(name.split(":").pop()!.trim());
  }
  return { body, declared };
}

describe("the TypeScript blocks of the README and docs/*.md", () => {
  it("there are blocks to run, in the README and in the guides", () => {
    expect(BLOCKS.filter((b) => b.page === "README.md").length).toBeGreaterThanOrEqual(5);
    expect(BLOCKS.filter((b) => b.page !== "README.md").length).toBeGreaterThanOrEqual(5);
  });

  it.each(
    BLOCKS.map(
      ({ page, n, code }) =>
        [
          page,
          n,
          code
            .split("\n")
            .find((l) => l.trim() && !l.startsWith("//"))!
            .slice(0, 70),
          code,
        ] as const,
    ),
  )(
    "%s block %i (%s) runs against the simulator",
    async (_page, _n, _first, code) => {
      const { body, declared } = asFunctionBody(code);
      const names = Object.keys(context).filter((n) => !declared.has(n) && /^[A-Za-z_$][\w$]*$/.test(n));
      const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
        ...args: string[]
      ) => (...values: unknown[]) => Promise<unknown>;
      const run = new AsyncFunction("__pkg", "__subpaths", ...names, body);
      await expect(run(pkg, SUBPATHS, ...names.map((n) => context[n]))).resolves.toBeUndefined();
    },
    60_000,
  );
});
