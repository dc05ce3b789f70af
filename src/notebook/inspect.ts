/**
 * `run NB --inspect`: a notebook's parameters (papermill's `--help-notebook`), read from the cell tagged
 * `parameters` without running anything: each one's name, type and default.
 */
import { readFile } from "node:fs/promises";
import { parseNotebook, sourceOf } from "./ipynb";
import { PARAMETERS_TAG, parameterDeclarations, parametersCellIndex } from "./params";

/** One parameter as the parameters cell declares it. */
export interface ParameterInfo {
  name: string;
  /** The declared type, else the one its default shows (`number` for `37`), else undefined. */
  type?: string;
  /** Whether {@link type} was declared (`const x: number = 1`) or read from the default. */
  declared: boolean;
  /** The default as written in the cell (`"USD"`, `37`, `[1, 2]`). */
  default: string;
}

/** The expression after `=` from `at`: up to a `;` or line end outside brackets and strings. */
function expressionAt(source: string, at: number): string {
  let depth = 0;
  let quote: string | undefined;
  let i = at;
  for (; i < source.length; i++) {
    const c = source[i]!;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'" || c === "`") quote = c;
    else if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) depth--;
    else if ((c === ";" || c === "\n") && depth <= 0) break;
  }
  return source.slice(at, i).trim();
}

/** `number`, `string`, `boolean`, `number[]`… as a literal default shows it; undefined for other expressions. */
function literalType(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^'(.*)'$/s, (_m, s: string) => JSON.stringify(s)));
  } catch {
    return /^`[^`$]*`$/.test(text) ? "string" : undefined;
  }
  if (Array.isArray(value)) {
    const kinds = [...new Set(value.map((v) => (v === null ? "null" : typeof v)))];
    return kinds.length === 1 ? `${kinds[0]}[]` : "array";
  }
  return value === null ? "null" : typeof value;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The parameters a notebook's `parameters` cell declares, in order; none when it has no such cell. */
export function notebookParameters(source: string): ParameterInfo[] {
  const out: ParameterInfo[] = [];
  for (const d of parameterDeclarations({ cell_type: "code", source, metadata: {} })) {
    const head = new RegExp(
      `^(?:export\\s+)?(?:const|let|var)\\s+${escapeRegExp(d.name)}\\s*(?::\\s*(?:[^=]|=>)+?)?\\s*=(?!>)`,
      "m",
    ).exec(source);
    const text = head ? expressionAt(source, head.index + head[0].length) : "";
    const type = d.type ?? literalType(text);
    out.push({ name: d.name, ...(type ? { type } : {}), declared: d.type !== undefined, default: text });
  }
  return out;
}

/**
 * What `run NB --inspect` prints for one notebook: its parameters as a table (name, type, default), or
 * that it takes none. Reads the file; runs nothing and writes nothing.
 */
export async function inspectNotebook(file: string): Promise<string> {
  const nb = parseNotebook(await readFile(file, "utf8"), file);
  const index = parametersCellIndex(nb);
  if (index < 0) return `${file}: no cell tagged "${PARAMETERS_TAG}", so it takes no parameters\n`;
  const params = notebookParameters(sourceOf(nb.cells[index]!));
  if (params.length === 0) return `${file}: its "${PARAMETERS_TAG}" cell declares no parameters\n`;
  const rows = params.map((p) => [
    p.name,
    p.type ? (p.declared ? p.type : `${p.type} (from the default)`) : "",
    p.default,
  ]);
  const head = ["name", "type", "default"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    `  ${r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]!) : c)).join("  ")}`.trimEnd();
  const count = `${params.length} parameter${params.length === 1 ? "" : "s"}`;
  return `${file}: ${count} (cell ${index + 1}, tagged "${PARAMETERS_TAG}"; set with --param name=value)\n${[head, ...rows].map(line).join("\n")}\n`;
}
