/**
 * Writes src/api/wire-types.ts: every wire type the package names (`RateAssetResponse`, …) spelled out
 * as a plain type, from the zod schemas that stay the one source of truth (`z.input`/`z.output` of each);
 * and src/client/groups.ts, the client's method groups typed with them, from the resources table
 * (src/api/resources.ts: the groups, their methods and doc comments, and the operation each sends).
 *
 * Why: a notebook kernel type-checks every cell (tslab), and a type that is `z.output<typeof schema>`
 * makes the checker instantiate zod's inference at each use — about 30,000 types and 90,000
 * instantiations for one `rp.rateAsset.getCurve(…)` call, a second a cell. The same type written out is a
 * few hundred. test/api/wire-types.test.ts checks that each written type equals its schema's (both ways)
 * and that this file is what the script writes now.
 *
 *   node scripts/gen-wire-types.mjs          write the files
 *   node scripts/gen-wire-types.mjs --check  exit 1 if one is not what would be written
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ts = createRequire(import.meta.url)(path.join(root, "node_modules/typescript"));
export const OUT = path.join(root, "src/api/wire-types.ts");
export const GROUPS_OUT = path.join(root, "src/client/groups.ts");

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
  for (const [name, , schema, side] of WIRE_TYPES) {
    const type = checker.getDeclaredTypeOfSymbol(symbols.get(`${name}__probe`));
    const text = checker.typeToString(type, undefined, FLAGS);
    if (/__probe|__schema|\bz\.|Zod/.test(text)) throw new Error(`${name}: not written out: ${text.slice(0, 200)}`);
    out.push(`/** \`z.${side}<typeof ${schema}>\`. */`);
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

/** A TypeScript module of src/api, parsed (no type checking). */
function parseApi(file) {
  const name = path.join(root, "src/api", `${file}.ts`);
  return ts.createSourceFile(name, fs.readFileSync(name, "utf8"), ts.ScriptTarget.ES2022, true);
}

/** The doc comment before a node, as written (`/** … *\/`), or "". */
function docOf(node, source) {
  const ranges = ts.getLeadingCommentRanges(source.text, node.pos) ?? [];
  const doc = ranges.map((r) => source.text.slice(r.pos, r.end)).filter((t) => t.startsWith("/**"));
  return doc.at(-1) ?? "";
}

/** An object literal's properties: name, value's identifier (shorthand or not), the node. */
function properties(literal) {
  return literal.properties.map((p) => ({
    name: p.name.text,
    value: ts.isShorthandPropertyAssignment(p) ? p.name : p.initializer,
    node: p,
  }));
}

/** The `export const name = …` initializer of a parsed module. */
function exported(source, name) {
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) if (d.name.text === name) return d.initializer;
  }
  throw new Error(`${source.fileName}: no export const ${name}`);
}

/** The modules a parsed module imports each name from (`./common` → `common`). */
function importsOf(source) {
  const from = new Map();
  for (const statement of source.statements.filter(ts.isImportDeclaration)) {
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings))
      for (const element of bindings.elements) from.set(element.name.text, statement.moduleSpecifier.text.slice(2));
  }
  return from;
}

/** An operation's declaration (`defineOperation({ … })` in `file`): where its request goes, its schemas' names and modules. */
function operationOf(file, name) {
  const source = parseApi(file);
  const fields = Object.fromEntries(properties(exported(source, name).arguments[0]).map((p) => [p.name, p.value]));
  const home = (schema) => importsOf(source).get(schema) ?? file;
  const [request, response] = [fields.request.text, fields.response.text];
  return { requestIn: fields.requestIn.text, request: [home(request), request], response: [home(response), response] };
}

/** The wire type written for a schema (its module and name) on one side, by {@link WIRE_TYPES}. */
function wireType([file, schema], side) {
  const found = WIRE_TYPES.find(([, f, s, d]) => f === file && s === schema && d === side);
  if (!found) throw new Error(`no wire type for ${side} of ${file}.${schema}: add it to WIRE_TYPES`);
  return `wire.${found[0]}`;
}

/** The text of src/client/groups.ts as the resources table says it now. */
export function renderGroups() {
  const source = parseApi("resources");
  const from = importsOf(source);
  const out = [
    "/**",
    " * The client's resource groups, written out from the resources table (`RESOURCES`) with the",
    " * wire types by scripts/gen-wire-types.mjs: do not edit (run `node scripts/gen-wire-types.mjs`). The",
    " * table is what the client runs; this is how its methods are typed, so that a kernel checking a notebook",
    " * cell does not infer each call's types from zod's at every use (test/api/wire-types.test.ts checks that",
    " * each method's types equal the table's).",
    " */",
    'import type * as wire from "../api/wire-types";',
    'import type { CallOptions } from "./pipeline";',
    "",
    "/** A call that sends `I` and answers `O`. */",
    "export type Call<I, O> = (input: I, options?: CallOptions) => Promise<O>;",
    "/** A call that sends nothing and answers `O`. */",
    "export type CallWithoutInput<O> = (options?: CallOptions) => Promise<O>;",
    "",
    "/** Every resource group of the client. */",
    "export interface ClientGroups {",
  ];
  for (const group of properties(exported(source, "RESOURCES").expression)) {
    out.push(docOf(group.node, source), `readonly ${group.name}: {`);
    for (const method of properties(group.value)) {
      const op = operationOf(from.get(method.value.text), method.value.text);
      const answer = wireType(op.response, "output");
      const type =
        op.requestIn === "none" ? `CallWithoutInput<${answer}>` : `Call<${wireType(op.request, "input")}, ${answer}>`;
      out.push(docOf(method.node, source), `readonly ${method.name}: ${type};`);
    }
    out.push("};");
  }
  out.push("}", "");
  return out.join("\n");
}

/** Each generated file and its text now. */
async function generated() {
  return [
    [OUT, await formatted(render())],
    [GROUPS_OUT, await formatted(renderGroups())],
  ];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const [file, text] of await generated()) {
    if (process.argv.includes("--check")) {
      const now = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
      if (now !== text) {
        console.error(`${path.relative(root, file)} is stale: run node scripts/gen-wire-types.mjs`);
        process.exitCode = 1;
      }
    } else {
      fs.writeFileSync(file, text);
      console.log(`wrote ${path.relative(root, file)}`);
    }
  }
}
