/**
 * The diff as one HTML page that opens offline: a header (the runs, their parameters, the summary), then
 * each changed cell — its changed lines with their moves, its tables' changed rows (largest moves first)
 * and rows added or removed, its charts' traces with a before/after overlay, errors that appeared or went
 * away. plotly.js is embedded once, in the head, when there is an overlay to draw.
 */
import path from "node:path";
import { replaceFiles } from "../../files/replace-files";
import type { FrameDiff } from "../../frames/diff";
import { figureFragment, plotlyScripts } from "../../plot/html";
import { escapeHtml as esc } from "../../plot/labels";
import { exactNumber } from "../../plot/table-view";
import type { CellDiff } from "./cells";
import type { ChartChange } from "./chart";
import type { NotebookDiff } from "./index";
import type { TableChange } from "./table";
import type { LineChange } from "./text";

/** Changed lines, rows and traces listed per output at most (the rest counted). */
const MAX_LISTED = 60;

const CSS = `body{font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1100px;margin:1.5rem auto;padding:0 1rem;color:#1f2328}
h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.1rem;margin:1.6rem 0 .4rem;border-top:1px solid #d0d7de;padding-top:.8rem}h3{font-size:.95rem;margin:1rem 0 .3rem}
.muted{color:#6e7781}.summary{font-size:1.05rem;background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.5rem .8rem}
code,pre,td.num,td.text{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
table{border-collapse:collapse;margin:.3rem 0}td.num{white-space:nowrap}th,td{padding:2px 8px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}td.num{text-align:right}
tr.removed td,span.removed{background:#ffebe9}tr.added td,span.added{background:#dafbe1}tr.changed td.after{background:#fff8c5}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;margin-right:4px;background:#eaeef2}
.badge.changed{background:#fff8c5}.badge.added{background:#dafbe1}.badge.removed,.badge.error{background:#ffebe9}
pre.line{margin:0;white-space:pre-wrap}`;

/** The runs' environments where they differ (versions, kernel, git commit, data sources), as a table; "" when none does. */
function environmentNote(d: NotebookDiff): string {
  if (!d.environment.length) return "";
  const rows = d.environment
    .map(
      (c) =>
        `<tr><th>${esc(c.what)}</th><td>${esc(c.before ?? "(none)")}</td><td>→ ${esc(c.after ?? "(none)")}</td></tr>`,
    )
    .join("");
  return `<p class="muted">The runs' environments differ (not counted as a change of the results):</p><table>${rows}</table>`;
}

/** The report as HTML. */
export function reportHtml(d: NotebookDiff): string {
  const overlays = d.cells.some((c) => c.charts.some((ch) => "overlay" in ch && ch.overlay && ch.overlay.data.length));
  const params = (p: Record<string, unknown>) =>
    Object.keys(p).length
      ? Object.entries(p)
          .map(([k, v]) => `${esc(k)}=${esc(JSON.stringify(v))}`)
          .join(", ")
      : "defaults";
  const side = (label: string, s: NotebookDiff["before"]) =>
    `<tr><th>${label}</th><td><code>${esc(s.name)}</code></td><td>${s.codeCells} code cells</td><td>parameters: ${params(s.parameters)}</td><td>${s.status ? esc(s.status) : ""}</td></tr>`;
  const body = d.cells.length
    ? d.cells.map(cellSection).join("\n")
    : `<p>No cell changed: every output is the same within the tolerance, once what every run changes is set aside.</p>`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>What changed: ${esc(d.after.name)}</title><style>${CSS}</style>
${overlays ? plotlyScripts() : ""}
</head><body>
<h1>What changed: ${esc(d.before.name)} → ${esc(d.after.name)}</h1>
<table>${side("before", d.before)}${side("after", d.after)}</table>
<p class="summary">${esc(d.summary)}</p>
${environmentNote(d)}
<p class="muted">Cells paired by id, else by source. Numbers are read as numbers: the same within ${d.tolerance} × max(1, |value|) is no change, however
printed. Set aside as what every run changes: execution counts, run durations, date-times with a time of day, durations, loopback ports, request ids,
temporary paths, the line <code>connect()</code> prints and tables' provenance (where the data came from), and plotly.js itself. Tables are compared on the
rows their preview shows (first and last rows) plus their row counts.</p>
${body}
</body></html>
`;
}

/**
 * Writes the report (creating the directory; replacing an earlier one whole or not at all); returns its absolute path.
 * @example
 * ```ts
 * const file = await writeDiffReport(await diffNotebookFiles("before.ipynb", "after.ipynb"), "diff.html");
 * ```
 */
export async function writeReport(d: NotebookDiff, file: string): Promise<string> {
  const target = path.resolve(file);
  await replaceFiles([{ path: target, data: reportHtml(d) }], "diff");
  return target;
}

function cellSection(c: CellDiff): string {
  const where = c.after !== undefined ? `code cell ${c.after}` : `code cell ${c.before} (before)`;
  const badges = [
    `<span class="badge ${c.status}">${c.status}</span>`,
    c.sourceEdited ? `<span class="badge">source edited</span>` : "",
    c.error ? `<span class="badge error">error ${esc(c.error.kind)}</span>` : "",
  ].join("");
  const ran = c.ran
    ? `<p>${c.ran === "before only" ? "Ran before, not after" : "Ran after, not before"} (an earlier cell failed, or the cell was not executed).</p>`
    : "";
  const error = c.error
    ? `<h3>Error ${esc(c.error.kind)}</h3>${c.error.before ? `<pre class="line"><span class="removed">${esc(c.error.before)}</span></pre>` : ""}${c.error.after ? `<pre class="line"><span class="added">${esc(c.error.after)}</span></pre>` : ""}`
    : "";
  const texts = c.texts.map((t) => textSection(t.channel, t.diff.changes)).join("");
  const tables = c.tables.map((t) => ("rows" in t ? tableSection(t) : appeared(t, "table"))).join("");
  const charts = c.charts.map((ch) => ("traces" in ch ? chartSection(ch) : appeared(ch, "chart"))).join("");
  const others = c.others.map((o) => `<p>Another output (an image or HTML) ${o.kind}.</p>`).join("");
  return `<section class="cell"><h2>${badges} ${esc(where)}${c.id ? ` <span class="muted">id ${esc(c.id)}</span>` : ""}</h2>
<pre class="line muted">${esc(c.firstLine)}</pre>${ran}${error}${texts}${tables}${charts}${others}</section>`;
}

function appeared(t: { appeared?: string; disappeared?: string }, what: string): string {
  return t.appeared !== undefined
    ? `<h3>A ${what} appeared: ${esc(t.appeared)}</h3>`
    : `<h3>A ${what} went away: ${esc(t.disappeared ?? "")}</h3>`;
}

const num = (v: unknown) =>
  typeof v === "number"
    ? exactNumber(v)
    : v instanceof Date
      ? v.toISOString().slice(0, 10)
      : v === null || v === undefined
        ? ""
        : String(v);
const signed = (v: number) => (Number.isFinite(v) ? `${v > 0 ? "+" : ""}${Number(v.toPrecision(6))}` : String(v));

function textSection(channel: string, changes: readonly LineChange[]): string {
  const rows = changes.slice(0, MAX_LISTED).map((l) => {
    const move =
      l.move !== undefined
        ? `<td class="num">${l.move === Infinity ? "" : `max |Δ| ${esc(signed(l.move).replace("+", ""))}`}</td>`
        : "<td></td>";
    const before = l.before !== undefined ? `<pre class="line">${esc(l.before)}</pre>` : "";
    const after = l.after !== undefined ? `<pre class="line">${esc(l.after)}</pre>` : "";
    return `<tr class="${l.kind}"><td>${l.kind}</td><td class="text">${before}</td><td class="text after">${after}</td>${move}</tr>`;
  });
  const more =
    changes.length > MAX_LISTED ? `<p class="muted">… and ${changes.length - MAX_LISTED} more lines</p>` : "";
  return `<h3>Printed text (${esc(channel)}): ${changes.length} line${changes.length === 1 ? "" : "s"}</h3><table><tr><th></th><th>before</th><th>after</th><th></th></tr>${rows.join("")}</table>${more}`;
}

function tableSection(t: TableChange): string {
  const shape =
    t.rowsBefore !== t.rowsAfter
      ? `${t.rowsBefore.toLocaleString("en-US")} → ${t.rowsAfter.toLocaleString("en-US")} rows`
      : `${t.rowsAfter.toLocaleString("en-US")} rows`;
  const cols = [
    t.columnsAdded.length ? `columns added: ${t.columnsAdded.join(", ")}` : "",
    t.columnsRemoved.length ? `columns removed: ${t.columnsRemoved.join(", ")}` : "",
  ]
    .filter(Boolean)
    .join("; ");
  const head = `<h3>Table ${esc(t.title)} · ${esc(shape)}${cols ? ` · ${esc(cols)}` : ""}</h3>`;
  const note = `<p class="muted">Compared on the rows shown (${t.shownBefore} before, ${t.shownAfter} after), paired on <code>${esc(t.key)}</code>: ${esc(t.rows.summary)}.</p>`;
  return head + note + changedRows(t.rows) + keyedRows(t.rows, "added") + keyedRows(t.rows, "removed");
}

function changedRows(f: FrameDiff): string {
  if (!f.rows.length) return "";
  const rows = f.rows
    .slice(0, MAX_LISTED)
    .flatMap((r) =>
      r.changes.map(
        (c, k) =>
          `<tr class="changed"><td>${k === 0 ? esc(r.key.map(num).join(", ")) : ""}</td><td>${esc(c.column)}</td><td class="num">${esc(num(c.before))}</td><td class="num after">${esc(num(c.after))}</td><td class="num">${c.delta === undefined ? "" : esc(signed(c.delta))}</td></tr>`,
      ),
    );
  return `<table><tr><th>${esc(f.key.join(", "))}</th><th>column</th><th>before</th><th>after</th><th>Δ</th></tr>${rows.join("")}</table>`;
}

function keyedRows(f: FrameDiff, which: "added" | "removed"): string {
  const t = f[which];
  if (!t.rowCount) return "";
  const shown = Math.min(t.rowCount, MAX_LISTED);
  const head = `<tr>${t.columns.map((c) => `<th>${esc(c)}</th>`).join("")}</tr>`;
  const rows = Array.from(
    { length: shown },
    (_, i) =>
      `<tr class="${which}">${t.columns.map((c) => `<td class="num">${esc(num(t.data[c]![i]))}</td>`).join("")}</tr>`,
  );
  return `<p>Rows ${which}: ${t.rowCount}</p><div style="overflow-x:auto"><table>${head}${rows.join("")}</table></div>`;
}

function chartSection(ch: ChartChange): string {
  const title = ch.titleBefore !== undefined ? `${esc(ch.titleBefore)} → ${esc(ch.title)}` : esc(ch.title);
  const rows = ch.traces.slice(0, MAX_LISTED).map((t) => {
    const what =
      t.status !== "changed"
        ? `trace ${t.status}`
        : [
            t.changed ? `${t.changed} of ${t.points} points changed` : "",
            t.added ? `${t.added} point${t.added === 1 ? "" : "s"} added` : "",
            t.removed ? `${t.removed} point${t.removed === 1 ? "" : "s"} removed` : "",
            t.note ?? "",
          ]
            .filter(Boolean)
            .join(", ");
    const move =
      t.move !== undefined && Number.isFinite(t.move) ? `max |Δ| ${signed(t.move).replace("+", "")} at ${t.at}` : "";
    return `<tr class="${t.status}"><td>${esc(t.name)}</td><td>${esc(t.type)}</td><td>${esc(what)}</td><td>${esc(move)}</td></tr>`;
  });
  const more =
    ch.traces.length > MAX_LISTED ? `<p class="muted">… and ${ch.traces.length - MAX_LISTED} more traces</p>` : "";
  const overlay = ch.overlay && ch.overlay.data.length ? figureFragment(ch.overlay, { plotly: false }) : "";
  return `<h3>Chart ${title}: ${ch.traces.length} trace${ch.traces.length === 1 ? "" : "s"} changed</h3><table><tr><th>trace</th><th>type</th><th>what</th><th>largest move</th></tr>${rows.join("")}</table>${more}${overlay}`;
}

/** Where the report goes by default: beside AFTER, `<name>.diff.html`. */
export function defaultReportPath(after: string): string {
  return path.join(path.dirname(after), `${path.basename(after, ".ipynb")}.diff.html`);
}
