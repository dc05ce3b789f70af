import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ESLint, type Linter } from "eslint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The structure rules of eslint.config.mjs (issue 31): no function over 80 lines, no import cycle between
 * files or between the top folders of src/. Files planted under src/ go through the project's own config,
 * so removing or loosening a rule there fails a test here.
 */
const ROOT = path.resolve(__dirname, "../..");
const RULES = [
  "max-lines-per-function",
  "rooms/no-cycle",
  "rooms/no-folder-cycle",
  "rooms/room-imports",
  "rooms/no-path-citation",
];
const TAG = `zz-lint-test-${process.pid}`;
const PLANTED = {
  one: path.join(ROOT, "src", TAG),
  x: path.join(ROOT, "src", `${TAG}-x`),
  y: path.join(ROOT, "src", `${TAG}-y`),
};
/** Files planted in the table room (a room with an allow list), not folders of their own. */
const IN_TABLE = {
  above: path.join(ROOT, "src", "table", `${TAG}-above.ts`),
  below: path.join(ROOT, "src", "table", `${TAG}-below.ts`),
};

/** The project's config, type information off (these rules need none; it keeps the test to seconds). */
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
  ruleFilter: ({ ruleId }) => RULES.includes(ruleId),
});

/** A function whose every line is code: the signature, `body` statements, the closing brace. */
function longFunction(name: string, body: number): string {
  const lines = [`export function ${name}(x: number): number {`, "  let y = x;"];
  for (let i = 1; i <= body - 2; i++) lines.push(`  y = y + ${i};`);
  lines.push("  return y;", "}");
  return lines.join("\n") + "\n";
}

function plant(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

async function lint(...files: string[]): Promise<Linter.LintMessage[]> {
  const results = await eslint.lintFiles(files);
  return results.flatMap((r) =>
    r.messages.map((m) => ({ ...m, message: `${path.relative(ROOT, r.filePath)}: ${m.message}` })),
  );
}

const errors = (messages: Linter.LintMessage[], ruleId: string) =>
  messages.filter((m) => m.ruleId === ruleId && m.severity === 2);

describe("lint refuses what breaks the rooms", () => {
  beforeAll(() => {
    plant(path.join(PLANTED.one, "long.ts"), longFunction("long", 81 - 2));
    plant(
      path.join(PLANTED.one, "cited.ts"),
      "/** Reads what src/columnar/sql.ts returns (see {@link x}). */\nexport const x = 1;\n// `x` names a symbol: no file.\nexport const y = x;\n",
    );
    plant(path.join(PLANTED.one, "fits.ts"), longFunction("fits", 80 - 2));
    plant(
      path.join(PLANTED.one, "commented.ts"),
      longFunction("commented", 80 - 2).replace("  let y", "  // a comment\n\n  let y"),
    );
    // A cycle of types only: nothing runs, but neither file can be read without the other.
    plant(path.join(PLANTED.one, "a.ts"), 'import type { B } from "./b";\nexport interface A {\n  b?: B;\n}\n');
    plant(path.join(PLANTED.one, "b.ts"), 'import type { A } from "./a";\nexport interface B {\n  a?: A;\n}\n');
    // Folder x imports folder y, folder y imports folder x: no file imports one that imports it back.
    plant(
      path.join(PLANTED.x, "x1.ts"),
      `import { y1 } from "../${TAG}-y/y1";\nexport const x1 = (): number => y1() + 1;\n`,
    );
    plant(path.join(PLANTED.x, "x2.ts"), "export const x2 = (): number => 2;\n");
    plant(path.join(PLANTED.y, "y1.ts"), "export const y1 = (): number => 1;\n");
    plant(
      path.join(PLANTED.y, "y2.ts"),
      `import { x2 } from "../${TAG}-x/x2";\nexport const y2 = (): number => x2() + 1;\n`,
    );
    // Files in the table room: one imports a room above it, one what the room may import.
    plant(IN_TABLE.above, 'import { toDataFrame } from "../frames/danfo";\nexport const above = toDataFrame;\n');
    plant(
      IN_TABLE.below,
      'import { RiskPortalError } from "../errors";\nimport { parseIsoDate } from "./iso-date";\nexport const below = [RiskPortalError, parseIsoDate];\n',
    );
  });
  afterAll(() => {
    for (const dir of Object.values(PLANTED)) fs.rmSync(dir, { recursive: true, force: true });
    for (const file of Object.values(IN_TABLE)) fs.rmSync(file, { force: true });
  });

  it("an 81-line function, not an 80-line one (blank lines and comments not counted)", async () => {
    const messages = await lint(
      path.join(PLANTED.one, "long.ts"),
      path.join(PLANTED.one, "fits.ts"),
      path.join(PLANTED.one, "commented.ts"),
    );
    expect(errors(messages, "max-lines-per-function").map((m) => m.message)).toEqual([
      `src/${TAG}/long.ts: Function 'long' has too many lines (81). Maximum allowed is 80.`,
    ]);
  });

  it("a comment that names a file of src/ instead of a symbol or a room", async () => {
    const messages = await lint(path.join(PLANTED.one, "cited.ts"), path.join(PLANTED.one, "fits.ts"));
    expect(errors(messages, "rooms/no-path-citation").map((m) => m.message)).toEqual([
      `src/${TAG}/cited.ts: a comment names the file src/columnar/sql.ts: name the symbol ({@link …} or \`name\`) or the room, which a move cannot break`,
    ]);
  });

  it("two files importing each other, type-only imports included", async () => {
    const messages = await lint(path.join(PLANTED.one, "a.ts"), path.join(PLANTED.one, "b.ts"));
    expect(errors(messages, "rooms/no-cycle").map((m) => m.message)).toEqual([
      `src/${TAG}/a.ts: Import cycle: ${TAG}/a.ts → ${TAG}/b.ts → ${TAG}/a.ts (type-only imports count: move what both need to a lower file)`,
      `src/${TAG}/b.ts: Import cycle: ${TAG}/b.ts → ${TAG}/a.ts → ${TAG}/b.ts (type-only imports count: move what both need to a lower file)`,
    ]);
  });

  it("two folders importing each other, through different files", async () => {
    const files = ["x1.ts", "x2.ts"]
      .map((f) => path.join(PLANTED.x, f))
      .concat(["y1.ts", "y2.ts"].map((f) => path.join(PLANTED.y, f)));
    const messages = await lint(...files);
    expect(errors(messages, "rooms/no-cycle")).toEqual([]);
    expect(errors(messages, "rooms/no-folder-cycle").map((m) => m.message)).toEqual([
      `src/${TAG}-x/x1.ts: Folder cycle: ${TAG}-x → ${TAG}-y → ${TAG}-x; ${TAG}-y/y2.ts → ${TAG}-x/x2.ts (a lower room never imports a higher one)`,
      `src/${TAG}-y/y2.ts: Folder cycle: ${TAG}-y → ${TAG}-x → ${TAG}-y; ${TAG}-x/x1.ts → ${TAG}-y/y1.ts (a lower room never imports a higher one)`,
    ]);
  });

  it("a lower room never imports a higher one: the table room imports frames/: refused; the wire types' error base and its own files: allowed", async () => {
    const messages = await lint(IN_TABLE.above, IN_TABLE.below);
    expect(errors(messages, "rooms/room-imports").map((m) => m.message)).toEqual([
      `src/table/${TAG}-above.ts: table/ imports frames/danfo.ts: it may import only api, errors.ts (a lower room never imports a higher one)`,
    ]);
  });
});

describe("src/ keeps the rooms", () => {
  it("no error from the structure rules; warnings only in the files eslint.config.mjs lists as left", async () => {
    const config = (await import(pathToFileURL(path.join(ROOT, "eslint.config.mjs")).href)) as {
      STRUCTURE_LEFT: Record<string, string[]>;
    };
    const messages = (await lint(path.join(ROOT, "src"))).filter((m) => RULES.includes(m.ruleId ?? ""));
    expect(messages.filter((m) => m.severity === 2).map((m) => m.message)).toEqual([]);
    const left = messages.filter((m) => !(config.STRUCTURE_LEFT[m.message.split(":")[0]!] ?? []).includes(m.ruleId!));
    expect(left.map((m) => m.message)).toEqual([]);
    // eslint over all of src/ with type information: ~10 s alone, several times that beside the rest of the suite.
  }, 90_000);
});
