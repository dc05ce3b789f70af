/**
 * Checks the relative links of README.md, CHANGELOG.md and docs/*.md without the network: each link to a file
 * names a file of this repository, and each `#anchor` (in the same page or another Markdown page) names a
 * heading there, by GitHub's slug rule. Links to http(s) and mailto are not followed. Exits 1 naming
 * each broken link as `file:line: target: why`.
 *
 *   node scripts/check-links.mjs
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const pages = [
  "README.md",
  "CHANGELOG.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
].filter((f) => existsSync(path.join(ROOT, f)));

/** GitHub's heading anchor: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens. */
export function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown page: its headings' slugs (repeats numbered as GitHub does), outside code fences. */
function anchorsOf(text) {
  const anchors = new Set();
  const counts = new Map();
  let fence = false;
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) fence = !fence;
    const m = fence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Every link target of a page with its line, outside code fences and inline code. */
function linksOf(text) {
  const links = [];
  let fence = false;
  text.split("\n").forEach((line, i) => {
    if (/^\s*```/.test(line)) {
      fence = !fence;
      return;
    }
    if (fence) return;
    const bare = line.replace(/`[^`]*`/g, "");
    for (const m of bare.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ target: m[1], line: i + 1 });
  });
  return links;
}

const texts = new Map(pages.map((p) => [p, readFileSync(path.join(ROOT, p), "utf8")]));
const problems = [];
let checked = 0;
for (const page of pages) {
  for (const { target, line } of linksOf(texts.get(page))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    checked++;
    const [file, anchor] = target.split("#", 2);
    const resolved = file ? path.normalize(path.join(path.dirname(page), decodeURIComponent(file))) : page;
    const where = `${page}:${line}: ${target}`;
    if (resolved.startsWith("..")) {
      problems.push(`${where}: points outside the repository`);
      continue;
    }
    const abs = path.join(ROOT, resolved);
    if (!existsSync(abs)) {
      problems.push(`${where}: ${resolved} does not exist`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!resolved.endsWith(".md") || statSync(abs).isDirectory()) {
      problems.push(`${where}: an anchor into ${resolved}, which is not a Markdown page`);
      continue;
    }
    const text = texts.get(resolved) ?? readFileSync(abs, "utf8");
    if (!anchorsOf(text).has(anchor)) problems.push(`${where}: ${resolved} has no heading #${anchor}`);
  }
}
for (const p of problems) console.error(p);
console.log(`links: ${checked} relative links in ${pages.length} pages checked, ${problems.length} broken`);
if (problems.length > 0) process.exit(1);
