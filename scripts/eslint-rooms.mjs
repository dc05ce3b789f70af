/**
 * ESLint rules that keep src/ in rooms (issue 31, "The house in rooms"):
 * - `rooms/no-cycle`: no import cycle between files;
 * - `rooms/no-folder-cycle`: no cycle between the top folders of src/ (curves/, frames/, …);
 * - `rooms/room-imports`: what a low room may import at all (its option: room → the rooms, or files of
 *   src/, it may import), so that a lower room never imports a higher one even where no cycle would show it.
 *
 * Both count every relative import, type-only ones included (`import type`, `export type … from`,
 * `import("./x").T`, `require`, `import()`): a cycle of types is still two files that cannot be read one
 * without the other, and it turns into a run-time cycle the day one side needs a value. That is why
 * this is a local rule and not `import-x/no-cycle`, which skips type-only imports and has no option to
 * count them.
 *
 * The import graph is read with TypeScript's `preProcessFile` (a scanner, no type checking: comments and
 * strings are skipped) and cached per file by modification time and size, so one `eslint .` reads each
 * file once and a file planted or edited between two runs in one process (the test in
 * test/lint/structure.test.ts) is read again.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const ts = createRequire(import.meta.url)("typescript");

/** The root whose top folders are the rooms: src/ next to this script's folder. */
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "src");
const EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".d.ts"];

/** path -> { mtimeMs, size, deps: resolved absolute paths } */
const cache = new Map();

function isFile(p) {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The file a relative specifier names (`./x`, `./x.js`, `./dir` for `./dir/index.ts`), or undefined. */
function resolve(fromFile, specifier) {
  if (!specifier.startsWith(".")) return undefined;
  const base = path.resolve(path.dirname(fromFile), specifier);
  const stem = base.replace(/\.(c|m)?js$/, "");
  const candidates = [base, ...EXTENSIONS.map((e) => stem + e), ...EXTENSIONS.map((e) => path.join(base, "index" + e))];
  return candidates.find((c) => /\.(c|m)?tsx?$/.test(c) && isFile(c));
}

function depsOfText(file, text) {
  const found = ts.preProcessFile(text, true, true).importedFiles.map((f) => resolve(file, f.fileName));
  return [...new Set(found.filter((d) => d !== undefined))];
}

/** The resolved relative imports of a file on disk (cached by mtime and size); [] if it is gone. */
function depsOf(file) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return [];
  }
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === stat.mtimeMs && hit.size === stat.size) return hit.deps;
  const deps = depsOfText(file, fs.readFileSync(file, "utf8"));
  cache.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, deps });
  return deps;
}

/** Every TypeScript source file under `dir` (declaration files included). */
function sourceFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(c|m)?tsx?$/.test(entry.name)) out.push(p);
  }
  return out;
}

/** The top folder of src/ that holds `file`, or undefined (outside src/, or a file directly in src/). */
function roomOf(file) {
  const rel = path.relative(SRC, file).split(path.sep);
  return rel[0] === ".." || rel.length < 2 ? undefined : rel[0];
}

const show = (file) => path.relative(SRC, file).split(path.sep).join("/");

/** The shortest import path from `start` to `goal` (both included), or undefined. */
function importPath(start, goal, depsOfFile) {
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const dep of depsOfFile(file)) {
      if (previous.has(dep)) continue;
      previous.set(dep, file);
      if (dep === goal) {
        const chain = [goal];
        for (let at = file; at !== null; at = previous.get(at)) chain.unshift(at);
        return chain;
      }
      if (dep.startsWith(SRC + path.sep)) queue.push(dep);
    }
  }
  return undefined;
}

/**
 * The import sources of a file's AST, one node each: import/export … from, `import x = require()`,
 * `require("…")`, `import("…")` and `import("…").T` in types.
 */
function importVisitors(onSource) {
  const literal = (node) =>
    node && node.type === "Literal" && typeof node.value === "string" ? onSource(node, node.value) : undefined;
  return {
    ImportDeclaration: (node) => literal(node.source),
    ExportNamedDeclaration: (node) => literal(node.source),
    ExportAllDeclaration: (node) => literal(node.source),
    ImportExpression: (node) => literal(node.source),
    TSExternalModuleReference: (node) => literal(node.expression),
    // typescript-eslint 8 names the specifier `source`; `argument` (a TSLiteralType) is its older, deprecated name.
    TSImportType: (node) => literal(node.source ?? node.argument?.literal),
    CallExpression: (node) => {
      if (node.callee.type === "Identifier" && node.callee.name === "require" && node.arguments.length === 1)
        literal(node.arguments[0]);
    },
  };
}

/** The linted file's own imports come from its text in the editor/ESLint, every other file's from disk. */
function graphFor(context) {
  const me = context.filename;
  const mine = depsOfText(me, context.sourceCode.text);
  return { me, depsOfFile: (file) => (file === me ? mine : depsOf(file)) };
}

const noCycle = {
  meta: {
    type: "problem",
    docs: { description: "No import cycle between files (type-only imports count)" },
    schema: [],
    messages: { cycle: "Import cycle: {{chain}} (type-only imports count: move what both need to a lower file)" },
  },
  create(context) {
    const { me, depsOfFile } = graphFor(context);
    const reported = new Set();
    return importVisitors((node, specifier) => {
      const target = resolve(me, specifier);
      if (target === undefined || target === me || reported.has(target)) return;
      const back = importPath(target, me, depsOfFile);
      if (back === undefined) return;
      reported.add(target);
      context.report({ node, messageId: "cycle", data: { chain: [me, ...back].map(show).join(" → ") } });
    });
  },
};

/** Room -> Map(room it imports -> one import that makes the edge, "from → to"), over all of src/. */
function roomGraph(depsOfFile) {
  const rooms = new Map();
  for (const file of sourceFiles(SRC)) {
    const from = roomOf(file);
    if (from === undefined) continue;
    for (const dep of depsOfFile(file)) {
      const to = roomOf(dep);
      if (to === undefined || to === from) continue;
      if (!rooms.has(from)) rooms.set(from, new Map());
      if (!rooms.get(from).has(to)) rooms.get(from).set(to, `${show(file)} → ${show(dep)}`);
    }
  }
  return rooms;
}

const noFolderCycle = {
  meta: {
    type: "problem",
    docs: { description: "No import cycle between the top folders of src/ (a lower room never imports a higher one)" },
    schema: [],
    messages: {
      cycle: "Folder cycle: {{chain}}; {{back}} (a lower room never imports a higher one)",
    },
  },
  create(context) {
    const { me, depsOfFile } = graphFor(context);
    const room = roomOf(me);
    if (room === undefined) return {};
    let rooms;
    const reported = new Set();
    return importVisitors((node, specifier) => {
      const target = resolve(me, specifier);
      const to = target === undefined ? undefined : roomOf(target);
      if (to === undefined || to === room || reported.has(target)) return;
      rooms ??= roomGraph(depsOfFile);
      const previous = new Map([[to, null]]);
      const queue = [to];
      while (queue.length > 0 && !previous.has(room)) {
        const at = queue.shift();
        for (const next of rooms.get(at)?.keys() ?? []) {
          if (previous.has(next)) continue;
          previous.set(next, at);
          queue.push(next);
        }
      }
      if (!previous.has(room)) return;
      reported.add(target);
      const backPath = []; // to → … → room
      for (let at = room; at !== null; at = previous.get(at)) backPath.unshift(at);
      const back = backPath.slice(1).map((r, i) => rooms.get(backPath[i]).get(r));
      context.report({
        node,
        messageId: "cycle",
        data: { chain: [room, ...backPath].join(" → "), back: back.join(", ") },
      });
    });
  },
};

const roomImports = {
  meta: {
    type: "problem",
    docs: { description: "A room imports only the rooms (or files of src/) its option lists" },
    schema: [{ type: "object", additionalProperties: { type: "array", items: { type: "string" } } }],
    messages: {
      above: "{{room}}/ imports {{target}}: it may import only {{allowed}} (a lower room never imports a higher one)",
    },
  },
  create(context) {
    const me = context.filename;
    const room = roomOf(me);
    const allowed = room === undefined ? undefined : context.options[0]?.[room];
    if (allowed === undefined) return {};
    return importVisitors((node, specifier) => {
      const target = resolve(me, specifier);
      if (target === undefined || !target.startsWith(SRC + path.sep)) return;
      const file = show(target); // "client/errors.ts", or "display.ts" for a file directly in src/
      const to = roomOf(target);
      if (to === room || allowed.includes(file) || (to !== undefined && allowed.includes(to))) return;
      context.report({ node, messageId: "above", data: { room, target: file, allowed: allowed.join(", ") } });
    });
  },
};

/** A file of src/ named in a comment (`src/columnar/sql.ts`, `src/surface/*.ts`, `src/kernel/`). */
const PATH_CITATION = /\bsrc\/[\w*-]+(?:\/[\w*.-]+)*\/?/;

/**
 * `rooms/no-path-citation`: a comment names a symbol (`{@link SqlSession}`, `readResultColumns`) or a room,
 * not a file of src/: a file moves with the next room change and the comment goes wrong without a word.
 */
const noPathCitation = {
  meta: {
    type: "suggestion",
    docs: { description: "comments name symbols or rooms, not files of src/" },
    schema: [],
    messages: {
      cited:
        "a comment names the file {{path}}: name the symbol ({@link …} or `name`) or the room, which a move cannot break",
    },
  },
  create(context) {
    return {
      Program() {
        for (const comment of context.sourceCode.getAllComments()) {
          const found = PATH_CITATION.exec(comment.value);
          if (found) context.report({ loc: comment.loc, messageId: "cited", data: { path: found[0] } });
        }
      },
    };
  },
};

export default {
  meta: { name: "rooms", version: "1.0.0" },
  rules: {
    "no-cycle": noCycle,
    "no-folder-cycle": noFolderCycle,
    "room-imports": roomImports,
    "no-path-citation": noPathCitation,
  },
};
