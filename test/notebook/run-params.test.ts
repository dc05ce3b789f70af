/**
 * Parameters like papermill's (issue 43, item 4): `--params-file` (JSON or YAML; `--param` wins over it),
 * `--grid name=v1,v2` runs every combination, each into its own file named by its parameters and listed
 * with them in index.html; `run NB --inspect` prints each parameter's name, type and default, runs
 * nothing and writes nothing. The parsing and naming directly; then the built CLI on a tiny notebook.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { notebookParameters } from "../../src/notebook/inspect";
import {
  gridCombinations,
  gridRunName,
  parseGrid,
  planRuns,
  readParamsFile,
  ParameterInputError,
} from "../../src/notebook/run-params";
import { runCli } from "./executed";

const CLI_TIMEOUT_MS = 120_000;
const dir = mkdtempSync(path.join(tmpdir(), "rpl-run-params-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => (writeFileSync(path.join(dir, name), text), path.join(dir, name));

const nbFile = write(
  "params.ipynb",
  JSON.stringify({
    nbformat: 4,
    nbformat_minor: 4,
    metadata: { kernelspec: { name: "tslab", display_name: "TypeScript", language: "typescript" } },
    cells: [
      {
        cell_type: "code",
        metadata: { tags: ["parameters"] },
        source: 'const currency: string = "USD";\nconst horizon = 37; // days\nlet tenors: number[] = [1, 2];',
        outputs: [],
        execution_count: null,
      },
      {
        cell_type: "code",
        metadata: {},
        source: 'console.log("currency=" + currency + " horizon=" + horizon);',
        outputs: [],
        execution_count: null,
      },
    ],
  }),
);

describe("parameters from a file, a grid, and inspect", () => {
  it("readParamsFile reads JSON and YAML mappings (dates stay strings, __proto__ an own key) and names a bad file", async () => {
    expect(await readParamsFile(write("p.json", '{"currency":"EUR","horizon":5}'))).toEqual({
      currency: "EUR",
      horizon: 5,
    });
    const yaml = await readParamsFile(
      write("p.yaml", "currency: GBP\nasOf: 2026-11-20\ntenors: [1, 5]\n__proto__: 1\n"),
    );
    expect(yaml).toEqual({ currency: "GBP", asOf: "2026-11-20", tenors: [1, 5], ["__proto__"]: 1 });
    expect(Object.hasOwn(yaml, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(yaml)).toBe(Object.prototype);
    await expect(readParamsFile(write("list.yml", "- 1\n- 2\n"))).rejects.toThrow(
      /list\.yml must hold a mapping of parameter names to values \(currency: EUR\), got a list/,
    );
    await expect(readParamsFile(write("bad.json", "{currency:"))).rejects.toThrow(/bad\.json is not valid JSON/);
    await expect(readParamsFile(path.join(dir, "missing.yaml"))).rejects.toThrow(/missing\.yaml: ENOENT/);
  });

  it("parseGrid reads values as --param does; gridCombinations varies the first axis slowest", () => {
    const axes = parseGrid(["currency=USD,EUR", "horizon=1, 5", "tenors=[[1,2],[3]]"]);
    expect(axes).toEqual([
      { name: "currency", values: ["USD", "EUR"] },
      { name: "horizon", values: [1, 5] },
      { name: "tenors", values: [[1, 2], [3]] },
    ]);
    expect(gridCombinations(axes.slice(0, 2))).toEqual([
      [
        ["currency", "USD"],
        ["horizon", 1],
      ],
      [
        ["currency", "USD"],
        ["horizon", 5],
      ],
      [
        ["currency", "EUR"],
        ["horizon", 1],
      ],
      [
        ["currency", "EUR"],
        ["horizon", 5],
      ],
    ]);
    expect(() => parseGrid(["currency"])).toThrow(ParameterInputError);
    expect(() => parseGrid(["currency=USD", "currency=EUR"])).toThrow(/given twice/);
    expect(() => parseGrid(["currency=USD,USD"])).toThrow(/"USD" is given twice/);
  });

  it("gridRunName is a safe file name: other characters percent-encoded, a long one cut with a hash", () => {
    expect(gridRunName("params", [["currency", "EUR"]])).toBe("params-currency=EUR");
    expect(
      gridRunName("nb", [
        ["x", "a/b c,d%"],
        ["n", 1.5],
        ["t", [1, 2]],
      ]),
    ).toBe("nb-x=a%2Fb%20c%2Cd%25,n=1.5,t=%5B1%2C2%5D");
    expect(gridRunName("nb", [["x", "../../etc"]])).toBe("nb-x=..%2F..%2Fetc");
    const long = gridRunName("nb", [["x", "é".repeat(300)]]);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(200);
    expect(long).not.toBe(gridRunName("nb", [["x", `${"é".repeat(299)}e`]]));
  });

  it("planRuns: the file's values under --param's, a grid's over both; a name in --param and --grid is refused", () => {
    const runs = planRuns(["a/nb.ipynb"], { fromFile: { currency: "GBP", horizon: 1 }, params: { horizon: 9 } }, [
      { name: "currency", values: ["USD", "EUR"] },
    ]);
    expect(runs).toEqual([
      { file: "a/nb.ipynb", params: { currency: "USD", horizon: 9 }, name: "nb-currency=USD" },
      { file: "a/nb.ipynb", params: { currency: "EUR", horizon: 9 }, name: "nb-currency=EUR" },
    ]);
    expect(planRuns(["nb.ipynb"], { fromFile: { currency: "GBP" }, params: { currency: "JPY" } })).toEqual([
      { file: "nb.ipynb", params: { currency: "JPY" } },
    ]);
    expect(() =>
      planRuns(["nb.ipynb"], { params: { currency: "JPY" } }, [{ name: "currency", values: ["USD"] }]),
    ).toThrow(/currency is given both by --param and by --grid/);
    expect(() => planRuns(["nb.ipynb"], {}, [{ name: "c", values: ["eur", "EUR"] }])).toThrow(/the same file/);
  });

  it("notebookParameters reads each declaration's type (declared, else from its default) and default", () => {
    expect(
      notebookParameters(
        'const currency: string = "USD";\nconst horizon = 37; // days\nlet f: (x: number) => number = (x) => x;\nconst t = [\n  1,\n  2\n];',
      ),
    ).toEqual([
      { name: "currency", type: "string", declared: true, default: '"USD"' },
      { name: "horizon", type: "number", declared: false, default: "37" },
      { name: "f", type: "(x: number) => number", declared: true, default: "(x) => x" },
      { name: "t", type: "number[]", declared: false, default: "[\n  1,\n  2\n]" },
    ]);
  });

  it("run --inspect prints name, type and default of each parameter and writes nothing", async () => {
    const before = readdirSync(dir).sort();
    const r = await runCli(["run", nbFile, "--inspect", "--out", path.join(dir, "never")], CLI_TIMEOUT_MS);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('3 parameters (cell 1, tagged "parameters"');
    expect(r.stdout).toMatch(/currency\s+string\s+"USD"/);
    expect(r.stdout).toMatch(/horizon\s+number \(from the default\)\s+37/);
    expect(r.stdout).toMatch(/tenors\s+number\[\]\s+\[1, 2\]/);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it("--grid of 3 with --jobs 2 and a YAML --params-file: three notebooks with their own parameters, all in index.html", async () => {
    const out = path.join(dir, "grid");
    mkdirSync(out);
    const pfile = write("grid.yaml", "horizon: 5\ncurrency: JPY\n");
    const r = await runCli(
      ["run", nbFile, "--params-file", pfile, "--grid", "currency=USD,EUR,a/b", "--jobs", "2", "--out", out],
      CLI_TIMEOUT_MS,
    );
    expect(r.code, r.stderr).toBe(0);
    const names = ["params-currency=USD", "params-currency=EUR", "params-currency=a%2Fb"];
    for (const [i, name] of names.entries()) {
      const nb = JSON.parse(readFileSync(path.join(out, `${name}.ipynb`), "utf8")) as {
        metadata: { papermill: { parameters: unknown } };
        cells: { outputs: { text?: string }[] }[];
      };
      const currency = ["USD", "EUR", "a/b"][i];
      expect(nb.metadata.papermill.parameters).toEqual({ horizon: 5, currency });
      expect(
        nb.cells
          .flatMap((c) => c.outputs)
          .map((o) => o.text ?? "")
          .join(""),
      ).toContain(`currency=${currency} horizon=5`);
      expect(existsSync(path.join(out, `${name}.html`))).toBe(true);
    }
    const index = readFileSync(path.join(out, "index.html"), "utf8");
    expect(index).toContain('href="./params-currency%3DUSD.html"');
    expect(index).toContain('href="./params-currency%3Da%252Fb.html"');
    expect(index).toContain("<code>currency=&quot;EUR&quot;</code>");
    expect(r.stdout).toContain("3 notebooks passed");
  }, 150_000);
});
