/**
 * Parameters of a run as papermill takes them: from a file (`--params-file p.yaml`, JSON or YAML),
 * overridden by `--param name=value`, and a grid (`--grid currency=USD,EUR --grid horizon=1,5`) that runs
 * every combination, each into its own file named by its parameters (`params-currency=EUR,horizon=5`).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseParameterValue } from "./params";

/** Bad parameters given to `run`: the file, flag or value, and what is wrong with it. */
export class ParameterInputError extends Error {}

/**
 * The parameters in a JSON or YAML file: a mapping of names to values (`.json` is read as JSON; any
 * other name as YAML, of which JSON is a subset). Throws ParameterInputError naming the file and the cause.
 */
export async function readParamsFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ParameterInputError(`--params-file ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    if (path.extname(file).toLowerCase() === ".json") value = JSON.parse(text);
    else {
      // YAML 1.2 (the yaml package): dates stay strings, as they are in JSON; loaded only for a YAML file.
      const { parse } = await import("yaml");
      value = parse(text);
    }
  } catch (error) {
    throw new ParameterInputError(`--params-file ${file} is not valid ${kind(file)}: ${(error as Error).message}`);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value))
    throw new ParameterInputError(
      `--params-file ${file} must hold a mapping of parameter names to values (currency: EUR), got ${Array.isArray(value) ? "a list" : `a ${typeof value}`}`,
    );
  return value as Record<string, unknown>;
}

const kind = (file: string) => (path.extname(file).toLowerCase() === ".json" ? "JSON" : "YAML");

/** One `--grid` flag: a parameter and the values it takes, in order. */
export interface GridAxis {
  name: string;
  values: unknown[];
}

/**
 * `--grid name=v1,v2,…` flags as axes: values split at commas, each read as `--param` reads one
 * (`5` a number, `EUR` a string); `name=[…]` is a JSON array of values (for values with commas).
 * Throws ParameterInputError for a flag without a name or values, a name given twice, or a repeated value.
 */
export function parseGrid(flags: readonly string[]): GridAxis[] {
  const axes: GridAxis[] = [];
  for (const flag of flags) {
    const eq = flag.indexOf("=");
    const name = eq > 0 ? flag.slice(0, eq).trim() : "";
    const text = eq > 0 ? flag.slice(eq + 1) : "";
    if (!name || !text.trim())
      throw new ParameterInputError(`--grid expects name=value1,value2,…, got ${JSON.stringify(flag)}`);
    if (axes.some((a) => a.name === name)) throw new ParameterInputError(`--grid ${name} is given twice`);
    let values: unknown[];
    const json = text.trim().startsWith("[") ? parseParameterValue(text) : undefined;
    if (Array.isArray(json)) values = json;
    else values = text.split(",").map((v) => parseParameterValue(v.trim()));
    const seen = new Set<string>();
    for (const v of values) {
      const key = JSON.stringify(v);
      if (seen.has(key)) throw new ParameterInputError(`--grid ${name}: the value ${key} is given twice`);
      seen.add(key);
    }
    if (values.length === 0) throw new ParameterInputError(`--grid ${name} has no values`);
    axes.push({ name, values });
  }
  return axes;
}

/** Every combination of the axes' values (the first axis varies slowest), each as `name → value` in axis order. */
export function gridCombinations(axes: readonly GridAxis[]): [string, unknown][][] {
  let combos: [string, unknown][][] = [[]];
  for (const axis of axes)
    combos = combos.flatMap((c) => axis.values.map((v) => [...c, [axis.name, v]] as [string, unknown][]));
  return combos;
}

/** Longest name of a grid run's outputs, in bytes: file systems allow 255 with `.ipynb.html` and room to spare. */
const MAX_NAME_BYTES = 200;

/**
 * The name of a grid run's outputs: `<notebook>-name=value,name=value`. A string value is written as it
 * is, any other as JSON; a character a file name cannot safely hold (`/ \ : * ? " < > |`, `%`, `,`,
 * control characters, spaces) is percent-encoded as in a URL, so that no two runs share a name. A name
 * too long for a file system is cut and ends with a hash of the whole.
 */
export function gridRunName(base: string, combo: readonly [string, unknown][]): string {
  const part = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  const safe = (text: string) =>
    text.replace(/[^A-Za-z0-9._+@~-]/gu, (c) =>
      encodeURIComponent(c).replace(/[!'()*]/g, (x) => `%${x.charCodeAt(0).toString(16).toUpperCase()}`),
    );
  const name = `${base}-${combo.map(([k, v]) => `${safe(k)}=${safe(part(v))}`).join(",")}`;
  if (Buffer.byteLength(name) <= MAX_NAME_BYTES) return name;
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(name)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return `${name.slice(0, MAX_NAME_BYTES - 10)}~${hash.toString(16).padStart(8, "0")}`;
}

/** A run of a notebook: its file, parameters and (a grid's run) the name of its outputs. */
export interface PlannedRun {
  file: string;
  params: Record<string, unknown>;
  name?: string;
}

/**
 * The runs of `run`: each notebook with the parameters of the file, then `--param` over them, then, with a
 * grid, one run per combination (its values over those), named by {@link gridRunName}. Throws
 * ParameterInputError when a `--param` and a `--grid` name the same parameter, or two runs would share a
 * name (names that differ only in case share a file on some file systems).
 */
export function planRuns(
  files: readonly string[],
  fixed: { fromFile?: Record<string, unknown>; params?: Record<string, unknown> },
  axes: readonly GridAxis[] = [],
): PlannedRun[] {
  const base = { ...fixed.fromFile, ...fixed.params };
  const both = axes.filter((a) => fixed.params && Object.hasOwn(fixed.params, a.name)).map((a) => a.name);
  if (both.length)
    throw new ParameterInputError(`${both.join(", ")} is given both by --param and by --grid: give it once`);
  if (axes.length === 0) return files.map((file) => ({ file, params: base }));
  const combos = gridCombinations(axes);
  const runs = files.flatMap((file) =>
    combos.map((combo) => ({
      file,
      params: { ...base, ...Object.fromEntries(combo) },
      name: gridRunName(path.basename(file, ".ipynb"), combo),
    })),
  );
  const seen = new Map<string, string>();
  for (const r of runs) {
    const key = r.name.toLowerCase();
    const other = seen.get(key);
    if (other !== undefined)
      throw new ParameterInputError(`two runs would write the same file: ${other}.ipynb and ${r.name}.ipynb`);
    seen.set(key, r.name);
  }
  return runs;
}
