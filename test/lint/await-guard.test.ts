/**
 * A Promise where an answer belongs is an error (issue 41, item 1). Under Deno no type checker catches a
 * forgotten `await`, and `frames.yieldCurve(promise)` returned a 0-row frame, `frames.transactionTable(p)`
 * a 0×0 one, `plot.yieldCurve(p)` threw about something else. Every public function now refuses a thenable
 * with one message naming itself.
 *
 * The walk below enumerates the public surface as a notebook sees it, from src/ and from the built bundle
 * (dist/index.js, what tslab's `require` and Deno load): the root's functions and every function and class
 * of its namespaces (`frames`, `plot`, `vol`, `curves`, and any namespace added later). Each is called with
 * a Promise first, as a later argument, and inside a list; each must throw (or reject, for the async ones)
 * the guard's RiskPortalError. A function neither guarded nor in {@link EXEMPT} (with its reason) fails
 * the walk, so a new export cannot skip the guard.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as src from "../../src";
import * as curvesFolder from "../../src/curves";
import * as framesFolder from "../../src/frames";
import * as plotFolder from "../../src/plot";
import * as volFolder from "../../src/vol";
import { followReports } from "../../src/notebook/follow-reports";
import { curveReply } from "../helpers/samples";

const ROOT = path.resolve(__dirname, "../..");
type Exports = Record<string, unknown>;
type Callable = (...args: unknown[]) => unknown;

/** Root functions that take no service answer, frame or figure, and why. Everything else is guarded. */
const EXEMPT: Record<string, string> = {
  RiskPortalClient: "a class constructed from options (base URL, auth): no answer",
  connect: "takes options (environment, log): no answer",
  closeAllConnections: "takes nothing",
  manualClock: "takes a start time in ms",
  startSimulator: "takes simulator options",
  runNotebook: "takes a notebook file path and run options",
  diffNotebookFiles: "takes two file paths (it reads and awaits the files itself)",
};

/** A thenable that never settles (so a function that awaited it would hang, not silently succeed). */
const pending = (): Promise<unknown> => new Promise(() => undefined);

interface Entry {
  /** How a notebook writes it: `frames.yieldCurve`, or a root name. */
  label: string;
  value: Callable;
  isClass: boolean;
}

const isClass = (f: unknown): boolean =>
  typeof f === "function" && /^class\b/.test(Function.prototype.toString.call(f));

function isNamespace(value: unknown): value is Exports {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (
    proto === Object.prototype || proto === null || (value as Record<symbol, unknown>)[Symbol.toStringTag] === "Module"
  );
}

/** Every function and class of the root and of each root namespace, errors left out (the library throws those). */
function walk(root: Exports): Entry[] {
  const entries: Entry[] = [];
  const add = (label: string, value: unknown) => {
    if (typeof value !== "function") return;
    const cls = isClass(value);
    if (cls && (value as { prototype: unknown }).prototype instanceof Error) return;
    entries.push({ label, value: value as Callable, isClass: cls });
  };
  for (const [name, value] of Object.entries(root)) {
    if (isNamespace(value)) for (const [key, member] of Object.entries(value)) add(`${name}.${key}`, member);
    else add(name, value);
  }
  return entries;
}

/** What a call does: the error it threw or rejected with, or "returned"/"hung" (a silent answer). */
async function outcome(entry: Entry, args: unknown[]): Promise<unknown> {
  try {
    const result = entry.isClass
      ? new (entry.value as unknown as new (...a: unknown[]) => unknown)(...args)
      : entry.value(...args);
    if (result && typeof (result as { then?: unknown }).then === "function") {
      const settled = (result as Promise<unknown>).then(
        () => "returned",
        (e: unknown) => e,
      );
      return await Promise.race([settled, new Promise((r) => setTimeout(() => r("hung"), 2000))]);
    }
    return "returned";
  } catch (e) {
    return e;
  }
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The calls each function must refuse, and the message each must give. */
const CASES: { arg: number; args: (p: unknown) => unknown[]; where: string }[] = [
  { arg: 0, args: (p) => [p], where: "" },
  { arg: 1, args: (p) => [{}, p], where: " as its 2nd argument" },
  { arg: 0, args: (p) => [[{}, p]], where: " at index 1 of its 1st argument" },
  { arg: 1, args: (p) => ["x", { a: 1, b: p }], where: ' at key "b" of its 2nd argument' },
];

/** The labels of the functions that did not refuse, each with what it did. */
async function unguarded(root: Exports, base: new (...a: never[]) => Error): Promise<string[]> {
  const missed: string[] = [];
  for (const entry of walk(root)) {
    if (EXEMPT[entry.label] !== undefined) continue;
    for (const c of CASES) {
      // a class checks the parameters it declares (the functions are wrapped: every argument)
      if (entry.isClass && c.arg >= entry.value.length) continue;
      const e = await outcome(entry, c.args(pending()));
      const expected = `${entry.label} got a Promise${c.where}: did you forget \`await\`?`;
      if (!(e instanceof base) || message(e) !== expected) {
        missed.push(`${entry.label}(${c.where || "first"}): ${typeof e === "string" ? e : message(e).slice(0, 80)}`);
        break;
      }
    }
  }
  return missed;
}

describe("a Promise where an answer belongs is an error", () => {
  it("every function and class of the public surface (src) refuses a Promise, naming itself", async () => {
    const entries = walk(src);
    expect(entries.length).toBeGreaterThan(90);
    const missed = await unguarded(src, src.RiskPortalError);
    expect(missed, `neither guarded nor exempt:\n${missed.join("\n")}`).toEqual([]);
  });

  it("so does the built bundle a notebook requires (dist/index.js)", async () => {
    const bundle = createRequire(path.join(ROOT, "package.json"))(path.join(ROOT, "dist", "index.js")) as Exports;
    const missed = await unguarded(bundle, bundle.RiskPortalError as new () => Error);
    expect(missed, `neither guarded nor exempt in dist/:\n${missed.join("\n")}`).toEqual([]);
  });

  it("every exemption names a root function that exists, with a reason", () => {
    const labels = new Set(walk(src as unknown as Exports).map((e) => e.label));
    for (const [name, reason] of Object.entries(EXEMPT)) {
      expect(labels.has(name), name).toBe(true);
      expect(reason.length).toBeGreaterThan(5);
    }
  });

  it("the guarded functions keep their names, lengths and the folder's own classes", () => {
    const folders: [string, Exports][] = [
      ["frames", framesFolder],
      ["plot", plotFolder],
      ["vol", volFolder],
      ["curves", curvesFolder],
    ];
    // A namespace's function from another folder, by its name there: frames.followReports draws with plot, which
    // frames/ may not import (plot/ imports frames/), so it lives in notebook/.
    const elsewhere: Record<string, unknown> = { "frames.followReports": followReports };
    for (const [name, folder] of folders) {
      const ns = (src as unknown as Record<string, Exports>)[name]!;
      for (const [key, value] of Object.entries(ns)) {
        if (typeof value !== "function") continue;
        const original = (folder[key] ?? elsewhere[`${name}.${key}`]) as Callable;
        expect(original, `${name}.${key}: in neither its folder nor the list of those from elsewhere`).toBeDefined();
        expect(value.name, `${name}.${key}`).toBe(original.name);
        expect(value.length, `${name}.${key}`).toBe(original.length);
        if (isClass(value)) expect(value, `${name}.${key}`).toBe(original);
      }
    }
  });

  it("the quant's forgotten awaits: the message says what happened", async () => {
    const answer = Promise.resolve({ yield_curve_model: {}, points: [] });
    expect(() => src.frames.yieldCurve(answer as never)).toThrow(
      new src.RiskPortalError("frames.yieldCurve got a Promise: did you forget `await`?", {
        operation: "frames.yieldCurve",
      }),
    );
    expect(() => src.frames.transactionTable(answer as never)).toThrow(/^frames\.transactionTable got a Promise/);
    expect(() => src.curves.fromResponse(answer as never)).toThrow(/^curves\.fromResponse got a Promise/);
    expect(() => src.plot.show(answer as never)).toThrow("plot.show got a Promise: did you forget `await`?");
    // a list with one Promise in it names the index
    const df = src.frames.yieldCurveColumns(curveReply);
    expect(df.rowCount).toBeGreaterThan(0);
    expect(() => src.frames.diff(df, answer as never, {} as never)).toThrow(
      "frames.diff got a Promise as its 2nd argument: did you forget `await`?",
    );
    expect(() => src.plot.curveHistory([df, answer] as never)).toThrow(
      "plot.curveHistory got a Promise at index 1 of its 1st argument: did you forget `await`?",
    );
    // a map of answers names the key
    await expect(src.frames.query("select * from t", { t: answer } as never)).rejects.toThrow(
      'frames.query got a Promise at key "t" of its 2nd argument: did you forget `await`?',
    );
    // vol.black76 (one option a call, its fields checked by itself) names a Promise in a field all the same
    const option = { forward: answer, strike: 100, maturity: 0.5, vol: 0.2, kind: "call" };
    expect(() => src.vol.black76(option as never)).toThrow(
      'vol.black76 got a Promise at key "forward" of its 1st argument: did you forget `await`?',
    );
    // the async ones reject (so `.catch` sees it), with the same words and the operation named
    const rejected = await src.frames.fetchYieldCurves(answer as never, {} as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(rejected).toBeInstanceOf(src.RiskPortalError);
    expect((rejected as src.RiskPortalError).operation).toBe("frames.fetchYieldCurves");
    expect(message(rejected)).toBe("frames.fetchYieldCurves got a Promise: did you forget `await`?");
    // any thenable, not only a native Promise
    expect(() => src.vol.fromSurface({ then: () => undefined } as never)).toThrow(/^vol\.fromSurface got a Promise/);
    expect(() => new src.vol.VolSurfaceModel(answer as never)).toThrow(/^vol\.VolSurfaceModel got a Promise/);
  });
});
