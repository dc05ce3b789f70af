/**
 * Notebook parameters, papermill style: the cell tagged `parameters` declares defaults; the runner adds
 * a cell right after it (tagged `injected-parameters`) that redeclares the given ones.
 *
 * Declare each parameter on its own line at the top level of that cell, with a simple value:
 * `const currency: string = "USD";` (or `let`). The injected cell keeps the declared type
 * (`const currency: string = "EUR";`), so a value of the wrong type fails right there, in the injected
 * cell, naming the parameter.
 */
import { sourceOf, type Cell, type Notebook } from "./ipynb";

export const PARAMETERS_TAG = "parameters";
export const INJECTED_TAG = "injected-parameters";

/** A top-level declaration of the parameters cell: its name, and its type annotation when it has one. */
export interface ParameterDeclaration {
  name: string;
  type?: string;
}

/** `const x = …`, `let y: T = …` (a type may contain `=>`, not a bare `=`). */
const DECLARATION = /^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::\s*((?:[^=]|=>)+?))?\s*=(?!>)/gm;

/** The declarations at the top level of the parameters cell, in order. */
export function parameterDeclarations(cell: Cell): ParameterDeclaration[] {
  const out: ParameterDeclaration[] = [];
  for (const m of sourceOf(cell).matchAll(DECLARATION))
    out.push(m[2] ? { name: m[1]!, type: m[2].trim() } : { name: m[1]! });
  return out;
}

/** Names declared at the top level of the parameters cell (`const x = …`, `let y: T = …`). */
export function declaredParameters(cell: Cell): string[] {
  return parameterDeclarations(cell).map((d) => d.name);
}

/**
 * `"EUR"` stays a string; `42`, `true`, `[1,2]`, `{"a":1}` and `"\"quoted\""` are read as JSON, so
 * numbers, booleans and arrays keep their type; anything else is a string.
 */
export function parseParameterValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * `value` as a literal in TypeScript source: its JSON, with U+2028 and U+2029 escaped. JSON leaves them
 * raw (only since ES2019 may a JavaScript string hold them), and TypeScript's scanner, which tslab
 * compiles each cell with, ends a string literal at either ("Unterminated string literal"). The other
 * characters JSON leaves raw are none that a string literal cannot hold (control characters and lone
 * surrogates it escapes). A `"__proto__"` key is written computed, `["__proto__"]: …`: in an object
 * literal `"__proto__": v` sets the prototype, so the notebook would get another value than the one the
 * run's metadata records (in JSON.stringify's text a key's opening quote follows `{` or `,` unescaped,
 * which a quote inside a string never does).
 */
export function sourceLiteral(value: unknown): string {
  return (
    JSON.stringify(value)
      ?.replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`)
      .replace(/([{,])"__proto__":/g, '$1["__proto__"]:') ?? "undefined"
  );
}

/** The index of the cell tagged `parameters`, or -1. */
export function parametersCellIndex(nb: Notebook): number {
  return nb.cells.findIndex((c) => c.cell_type === "code" && c.metadata?.tags?.includes(PARAMETERS_TAG));
}

/**
 * A copy of the notebook with the parameters injected after the `parameters` cell (replacing a cell
 * injected by an earlier run, when the notebook is an executed one). Throws naming the unknown
 * parameter, or when there is no `parameters` cell but parameters were given.
 */
export function injectParameters(original: Notebook, params: Record<string, unknown>, file: string): Notebook {
  const names = Object.keys(params);
  if (names.length === 0) return original;
  const nb = { ...original, cells: original.cells.filter((c) => !c.metadata?.tags?.includes(INJECTED_TAG)) };
  const index = parametersCellIndex(nb);
  if (index < 0)
    throw new Error(
      `${file} has no cell tagged "${PARAMETERS_TAG}", so it takes no parameters (got ${names.join(", ")})`,
    );
  const declared = parameterDeclarations(nb.cells[index]!);
  const unknown = names.filter((n) => !declared.some((d) => d.name === n));
  if (unknown.length)
    throw new Error(
      `${file}: unknown parameter ${unknown.join(", ")}; its parameters cell declares ${declared.map((d) => d.name).join(", ") || "nothing"}`,
    );
  const lines = names.map((n) => {
    const type = declared.find((d) => d.name === n)?.type;
    return `const ${n}${type ? `: ${type}` : ""} = ${sourceLiteral(params[n])};`;
  });
  const source = ["// Parameters injected by risk-portal-lab run", ...lines].join("\n");
  const injected: Cell = {
    cell_type: "code",
    id: INJECTED_TAG,
    source,
    metadata: { tags: [INJECTED_TAG] },
    outputs: [],
    execution_count: null,
  };
  const cells = [...nb.cells];
  cells.splice(index + 1, 0, injected);
  return { ...nb, cells };
}
