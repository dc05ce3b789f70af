/**
 * Every ```ts block of the README and of the guides in docs/*.md, and every `@example` of the package's doc
 * comments (src/), runs, as written, against the simulator — so the docs cannot drift from the package. A block may use what an earlier block or the surrounding prose set up (`rp`,
 * `surface`, `req`, …): the harness provides those names (unless the block declares them), imports
 * from "risk-portal-lab" come from this checkout, and the files a block writes or reads by relative path
 * are moved to a temporary directory or the repository's fixtures.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as zod from "zod";
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

/** The `.ts` files under src/, in name order. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => {
      const p = path.join(dir, f);
      return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
    });
}

/** Files written from others (their examples are run where they are written: the resources table's). */
const GENERATED = new Set(["src/client/groups.ts", "src/api/wire-types.ts"].map((f) => path.join(ROOT, f)));

/**
 * Each `@example` of a doc comment in src/ (its ```ts block), named by its file and the declaration the comment
 * documents (`src/vol/black76.ts black76`).
 */
const EXAMPLES = sourceFiles(path.join(ROOT, "src"))
  .filter((file) => !GENERATED.has(file))
  .flatMap((file) => {
    const lines = readFileSync(file, "utf8").split("\n");
    const found: { name: string; code: string }[] = [];
    for (let i = 0; i < lines.length; i++) {
      if (!/^\s*\*\s*@example\s*$/.test(lines[i]!) || !/^\s*\*\s*```ts\s*$/.test(lines[i + 1] ?? "")) continue;
      let j = i + 2;
      const code: string[] = [];
      for (; j < lines.length && !/^\s*\*\s*```\s*$/.test(lines[j]!); j++) code.push(lines[j]!.replace(/^\s*\* ?/, ""));
      while (j < lines.length && !/\*\/\s*$/.test(lines[j]!)) j++;
      const declaration = lines[j + 1] ?? "";
      const declared =
        /(?:function\*?|const|class|let)\s+(\w+)/.exec(declaration) ??
        /^\s*(?:(?:static|async|readonly)\s+)*(\w+)\s*[(<:?]/.exec(declaration);
      found.push({
        name: `${path.relative(ROOT, file)} ${declared?.[1] ?? `line ${i + 1}`}`,
        code: code.join("\n") + "\n",
      });
    }
    return found;
  });

/**
 * The examples that are not run, and why: each needs what a test cannot give it here (a workbook of the
 * reader's own, notebooks run beforehand, Chromium, a kernel's display). The list may only get shorter.
 */
const NOT_RUN: Record<string, string> = {
  "src/kernel/display.ts notebookLine": "a sketch of a poll loop (`…`)",
  "src/frames/excel.ts readExcelColumns": "reads the reader's own workbook (marks.xlsx)",
  "src/uploads/bond-prices.ts uploadBondPrices": "uploads the reader's own workbook (marks.xlsx)",
  "src/uploads/equity-vol-curves.ts uploadEquityVolCurves": "uploads the reader's own workbook (vols.xlsx)",
  "src/notebook/run/index.ts runNotebook": "runs a whole notebook (8 s; test/notebook/ runs notebooks)",
  "src/notebook/diff/index.ts diffNotebookFiles": "compares two runs made beforehand",
  "src/notebook/diff/index.ts diffNotebooks": "compares two notebooks read beforehand",
  "src/notebook/diff/report.ts writeReport": "compares two runs made beforehand",
  "src/plot/to-png.ts pngRenderer": "draws in headless Chromium (test/plot/ does)",
  "src/plot/to-png.ts toPng": "draws in headless Chromium (test/plot/ does)",
};

let sim: pkg.Simulator;
let tmp: string;
let context: Record<string, unknown>;
beforeAll(async () => {
  sim = await pkg.startSimulator({ rateLimit: false });
  tmp = mkdtempSync(path.join(tmpdir(), "rpl-readme-"));
  mkdirSync(path.join(tmp, "out"));
  mkdirSync(path.join(tmp, "data"));
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
    // What the doc comments' examples take from their prose: a portfolio's trades, a USD curve, the local model
    // and its grid, a few dates, a history of curves, two days' curves by tenor.
    ...(await exampleContext(rp, surface, request)),
  };
});
/** The names the doc comments' examples use without declaring them. */
async function exampleContext(
  rp: pkg.RiskPortalClient,
  surface: Parameters<typeof pkg.vol.fromSurface>[0],
  request: { next_trade_event: unknown },
): Promise<Record<string, unknown>> {
  const response = await rp.position.transactionTable({ portfolio_name: "GLOBAL-MACRO" });
  const dates = ["2026-11-18", "2026-11-19", "2026-11-20"];
  const tenorsOn = async (market_date: string) =>
    pkg.frames.curveTenorsColumns(
      await Promise.all(["USD", "EUR"].map((currency) => rp.rateAsset.getCurve({ currency, market_date }))),
      ["2Y", "10Y"],
    );
  const model = pkg.vol.fromSurface(surface);
  const panel = { portfolios: ["GLOBAL-MACRO", "RATES-EU"], months: ["2026-10"] };
  return {
    response,
    trades: (await pkg.frames.fetchTransactionTablesColumns(rp, panel)).table, // with portfolio and month columns
    df: pkg.frames.yieldCurve(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" })),
    usd: pkg.curves.fromResponse(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" })),
    model,
    s: model,
    grid: model.grid([30, 91, 365], [80, 100, 120], pkg.STRIKE_TYPE.PercentForward),
    maturities: [30, 91, 365],
    strikes: [80, 100, 120],
    dates,
    marketDates: dates,
    pricingDates: dates,
    currencies: ["USD", "EUR"],
    history: (await pkg.frames.fetchYieldCurvesColumns(rp, { currencies: ["USD", "EUR"], marketDates: dates })).table,
    yesterday: await tenorsOn("2026-11-19"),
    today: await tenorsOn("2026-11-20"),
    next_trade_event: request.next_trade_event,
  };
}

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
  body = body.replace(/^import \{([^}]*)\} from "zod";$/gm, "const {$1} = __zod;");
  body = body
    .replaceAll('"out/', JSON.stringify(path.join(tmp, "out") + "/").slice(0, -1))
    .replaceAll('"fixtures/cassettes/study.json"', JSON.stringify(path.join(tmp, "study.json")))
    .replaceAll('".rpl-cache"', JSON.stringify(path.join(tmp, "cache")))
    .replaceAll('"../fixtures/', `"${ROOT}/fixtures/`)
    .replaceAll('"prices.csv"', JSON.stringify(path.join(tmp, "prices.csv")))
    .replaceAll('"vols.csv"', JSON.stringify(path.join(tmp, "vols.csv")))
    .replaceAll('"report.xlsx"', JSON.stringify(path.join(tmp, "report.xlsx")))
    .replaceAll('"data/', JSON.stringify(path.join(tmp, "data") + "/").slice(0, -1))
    .replaceAll('"trades.duckdb"', JSON.stringify(path.join(tmp, "trades.duckdb")))
    .replaceAll('"/scratch/duckdb"', JSON.stringify(path.join(tmp, "duckdb-spill")));
  const declared = new Set<string>();
  for (const m of body.matchAll(/\b(?:const|let)\s+(?:\{([^}]*)\}|(\w+))/g)) {
    for (const name of (m[1] ?? m[2]!).split(",")) declared.add(name.split(":").pop()!.trim());
  }
  return { body, declared };
}

/** Runs a block as the body of an async function, with the context's names it does not declare itself. */
async function runBlock(code: string): Promise<unknown> {
  const { body, declared } = asFunctionBody(code);
  const names = Object.keys(context).filter((n) => !declared.has(n) && /^[A-Za-z_$][\w$]*$/.test(n));
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
    ...args: string[]
  ) => (...values: unknown[]) => Promise<unknown>;
  const run = new AsyncFunction("__pkg", "__subpaths", "__zod", ...names, body);
  return run(pkg, SUBPATHS, zod, ...names.map((n) => context[n]));
}

/** A block's first line of code, to name its test. */
const firstLine = (code: string) =>
  code
    .split("\n")
    .find((l) => l.trim() && !l.startsWith("//"))!
    .slice(0, 70);

describe("the TypeScript blocks of the README and docs/*.md", () => {
  it("there are blocks to run, in the README and in the guides", () => {
    expect(BLOCKS.filter((b) => b.page === "README.md").length).toBeGreaterThanOrEqual(5);
    expect(BLOCKS.filter((b) => b.page !== "README.md").length).toBeGreaterThanOrEqual(5);
  });

  it.each(BLOCKS.map(({ page, n, code }) => [page, n, firstLine(code), code] as const))(
    "%s block %i (%s) runs against the simulator",
    async (_page, _n, _first, code) => {
      await expect(runBlock(code)).resolves.toBeUndefined();
    },
    60_000,
  );
});

describe("the @example of every doc comment in src/", () => {
  it("there are examples, and every one not run is one there is (the list only gets shorter)", () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(200);
    const names = new Set(EXAMPLES.map((e) => e.name));
    expect(Object.keys(NOT_RUN).filter((n) => !names.has(n))).toEqual([]);
  });

  it.each(EXAMPLES.filter((e) => !(e.name in NOT_RUN)).map((e) => [e.name, e.code] as const))(
    "%s: its example runs against the simulator",
    async (_name, code) => {
      await expect(runBlock(code)).resolves.toBeUndefined();
    },
    60_000,
  );
});
