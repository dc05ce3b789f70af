/**
 * A parameter reaches the notebook as the value the run's metadata records, whatever its keys: an object
 * `--param` with a `"__proto__"` key keeps it as an own key (an object literal's `"__proto__": v` would
 * set the prototype instead), and a parameter named `__proto__` is a parameter like any other (here
 * one the notebook does not declare), not dropped.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import vm from "node:vm";
import { afterAll, describe, expect, it } from "vitest";
import { injectParameters, sourceLiteral } from "../../src/notebook/params";
import { Executed, runCli } from "./executed";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-params-proto-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VALUE = '{"__proto__":{"polluted":true},"k":2,"nested":[{"__proto__":null,"a":"\\"__proto__\\":"}]}';

/** What JavaScript makes of `source` (an expression). */
const evaluate = (source: string): unknown => vm.runInNewContext(`(${source})`);

describe("a parameter with a __proto__ key", () => {
  it("is written as source that gives back the same own keys, at every depth", () => {
    const value = JSON.parse(VALUE) as unknown;
    const back = evaluate(sourceLiteral(value)) as Record<string, unknown>;
    expect(JSON.stringify(back)).toBe(VALUE);
    expect(Object.keys(back)).toEqual(["__proto__", "k", "nested"]);
    expect(Object.getPrototypeOf(Object.getPrototypeOf(back))).toBeNull(); // the context's Object.prototype
    expect((back as { polluted?: unknown }).polluted).toBeUndefined();
    // A string holding "__proto__": is text, not a key.
    expect(sourceLiteral('"__proto__":')).toBe(String.raw`"\"__proto__\":"`);
  });

  it("is injected so that the notebook gets what the metadata records", () => {
    const nb = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [{ cell_type: "code" as const, id: "p", metadata: { tags: ["parameters"] }, source: "const o = {};" }],
    };
    const source = injectParameters(nb, { o: JSON.parse(VALUE) }, "x.ipynb").cells[1]!.source as string;
    const line = source.split("\n").find((l) => l.startsWith("const o = "))!;
    expect(JSON.stringify(evaluate(line.slice("const o = ".length, -1)))).toBe(VALUE);
  });

  it("reaches a tslab run as the value its metadata records", async () => {
    const out = path.join(dir, "tslab");
    const run = await runCli(["run", "test/notebook/runner-proto.ipynb", "-p", `o=${VALUE}`, "--out", out], 120_000);
    expect(run.code, run.stderr).toBe(0);
    const nb = Executed.read(path.join(out, "runner-proto.ipynb"));
    const recorded = (nb.nb.metadata.risk_portal_lab as { parameters: { o: unknown } }).parameters.o;
    expect(JSON.stringify(recorded)).toBe(VALUE);
    expect(JSON.parse(nb.stdout("show"))).toEqual({
      json: VALUE,
      own: ["__proto__", "k", "nested"],
      plainPrototype: true,
    });
  });

  it("named __proto__ is a parameter, refused when the notebook does not declare it", async () => {
    const run = await runCli(
      ["run", "test/notebook/runner-proto.ipynb", "-p", "__proto__=1", "--out", path.join(dir, "named")],
      60_000,
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("unknown parameter __proto__; its parameters cell declares o");
  });
});
