/**
 * Writes src/api/wire-types.ts: every wire type the package names (`RateAssetResponse`, …) spelled out
 * as a plain type, from the zod schemas that stay the one source of truth (`z.input`/`z.output` of each).
 *
 * Why: a notebook kernel type-checks every cell (tslab), and a type that is `z.output<typeof schema>`
 * makes the checker instantiate zod's inference at each use — about 30,000 types and 90,000
 * instantiations for one `rp.rateAsset.getCurve(…)` call, a second a cell. The same type written out is a
 * few hundred. test/api/wire-types.test.ts checks that each written type equals its schema's (both ways)
 * and that this file is what the script writes now.
 *
 *   node scripts/gen-wire-types.mjs          write the file
 *   node scripts/gen-wire-types.mjs --check  exit 1 if it is not what would be written
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ts = createRequire(import.meta.url)(path.join(root, "node_modules/typescript"));
export const OUT = path.join(root, "src/api/wire-types.ts");

/** Each written type: its name, the module and schema it comes from, and which side (input or output). */
export const WIRE_TYPES = [
  ["IdentifierInput", "common", "identifier", "input"],
  ["Identifier", "common", "identifier", "output"],
  ["OperationOutcome", "common", "operationOutcome", "output"],
  ["ProblemDetails", "common", "problemDetails", "output"],
  ["BondPriceRecordInput", "market-data", "bondPriceRecord", "input"],
  ["BondPriceRecord", "market-data", "bondPriceRecord", "output"],
  ["UploadBondPriceDataRequest", "market-data", "uploadBondPriceDataRequest", "input"],
  ["EquityVolCurveInput", "market-data", "equityVolCurve", "input"],
  ["EquityVolCurve", "market-data", "equityVolCurve", "output"],
  ["UploadEquityVolCurvesRequest", "market-data", "uploadEquityVolCurvesRequest", "input"],
  ["TransactionTableRequest", "position", "transactionTableRequest", "input"],
  ["DataTable", "position", "dataTable", "output"],
  ["TransactionTableResponse", "position", "transactionTableResponse", "output"],
  ["RateAssetRequest", "rate-asset", "rateAssetRequest", "input"],
  ["CurvePoint", "rate-asset", "curvePoint", "output"],
  ["YieldCurveModel", "rate-asset", "yieldCurveModel", "output"],
  ["RateAssetResponse", "rate-asset", "rateAssetResponse", "output"],
  ["VarLauncherItemCreateRequest", "report-launcher", "varLauncherItemCreateRequest", "input"],
  ["RiskLauncherItemCreateRequest", "report-launcher", "riskLauncherItemCreateRequest", "input"],
  ["GetReportInfosRequest", "report", "getReportInfosRequest", "input"],
  ["ReportInfo", "report", "reportInfo", "output"],
  ["GetReportInfosResponse", "report", "getReportInfosResponse", "output"],
  ["ReportListResponse", "report", "reportListResponse", "output"],
  ["LookBacksResponse", "report", "lookBacksResponse", "output"],
  ["VolSurfaceInput", "tradable", "volSurface", "input"],
  ["VolSurface", "tradable", "volSurface", "output"],
  ["GetVolRequest", "tradable", "getVolRequest", "input"],
  ["GetVolResponse", "tradable", "getVolResponse", "output"],
  ["TradeEventInput", "tradable", "tradeEvent", "input"],
  ["PositionEffectsRequest", "tradable", "positionEffectsRequest", "input"],
  ["PositionEffectsResponse", "tradable", "positionEffectsResponse", "output"],
  ["TradableBriefQuery", "tradable", "tradableBriefQuery", "input"],
  ["TradableBriefResponse", "tradable", "tradableBriefResponse", "output"],
  ["ApiKeyEntry", "user", "apiKeyEntry", "output"],
  ["ApiKeysResponse", "user", "apiKeysResponse", "output"],
];

/** The probe file: one alias per written type, through zod's inference. */
function probeSource() {
  const lines = ['import type { z } from "zod";'];
  for (const [name, file, schema, side] of WIRE_TYPES) {
    lines.push(`import type { ${schema} as ${name}__schema } from "./${file}";`);
    lines.push(`export type ${name}__probe = z.${side}<typeof ${name}__schema>;`);
  }
  return lines.join("\n") + "\n";
}

const FLAGS =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.InTypeAlias |
  (ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType * 0) |
  (ts.TypeFormatFlags.WriteArrayAsGenericType * 0);

/** The text of src/api/wire-types.ts as the schemas say it now. */
export function render() {
  const probe = path.join(root, "src/api/__wire_probe__.ts");
  const options = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
  };
  const host = ts.createCompilerHost(options);
  const source = probeSource();
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (f) => (path.resolve(f) === probe ? source : readFile(f));
  host.fileExists = (f) => path.resolve(f) === probe || fileExists(f);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (f, v) =>
    path.resolve(f) === probe ? ts.createSourceFile(f, source, v, true) : getSourceFile(f, v);
  const program = ts.createProgram([probe], options, host);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(probe);
  const symbols = new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(file)).map((s) => [s.name, s]));
  const out = [
    "/**",
    " * The wire types, written out from the zod schemas by scripts/gen-wire-types.mjs: do not edit (run",
    " * `node scripts/gen-wire-types.mjs`). Each equals `z.input`/`z.output` of its schema (checked by",
    " * test/api/wire-types.test.ts); written out so that a kernel checking a notebook cell does not infer",
    " * them from zod's types at each use.",
    " */",
    "",
  ];
  for (const [name, file, schema, side] of WIRE_TYPES) {
    const type = checker.getDeclaredTypeOfSymbol(symbols.get(`${name}__probe`));
    const text = checker.typeToString(type, undefined, FLAGS);
    if (/__probe|__schema|\bz\.|Zod/.test(text)) throw new Error(`${name}: not written out: ${text.slice(0, 200)}`);
    out.push(`/** \`z.${side}<typeof ${schema}>\` (src/api/${file}.ts). */`);
    out.push(`export type ${name} = ${text};`, "");
  }
  const text = out.join("\n");
  // Aliases the checker names rather than spells out come from assumptions.ts.
  const body = text.slice(text.indexOf(" */\n") + 4);
  const used = ASSUMPTION_TYPES.filter((t) => new RegExp(`\\b${t}\\b`).test(body));
  const head = used.length ? `import type { ${used.join(", ")} } from "./assumptions";\n` : "";
  return text.replace(" */\n", ` */\n${head}`);
}

/** The type aliases of src/api/assumptions.ts a written type may name. */
const ASSUMPTION_TYPES = ["PortfolioType", "StrikeType", "StrikeTypeName", "IdentifierType", "TradeEventName"];

/** `text` as prettier formats it with the project's settings (the file is checked by format:check too). */
export async function formatted(text) {
  const prettier = await import("prettier");
  const config = (await prettier.resolveConfig(OUT)) ?? {};
  return prettier.format(text, { ...config, parser: "typescript" });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = await formatted(render());
  if (process.argv.includes("--check")) {
    const now = fs.existsSync(OUT) ? fs.readFileSync(OUT, "utf8") : "";
    if (now !== text) {
      console.error(`${path.relative(root, OUT)} is stale: run node scripts/gen-wire-types.mjs`);
      process.exit(1);
    }
  } else {
    fs.writeFileSync(OUT, text);
    console.log(`wrote ${path.relative(root, OUT)} (${WIRE_TYPES.length} types)`);
  }
}
