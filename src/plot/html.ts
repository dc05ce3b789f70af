/**
 * Figures as HTML that needs no network: a fragment for notebook outputs (plotly.js included or not),
 * and a standalone page. The figure's draw script waits for plotly.js when it is not there yet (a
 * notebook renders outputs in any order), and says in the chart's place what is missing if it never
 * comes.
 */
import { notebookSession } from "../kernel/session";
import { createHash } from "node:crypto";
import type { Figure } from "./figure";
import { escapeHtml } from "./labels";
import { DRAIN_QUEUE, EMBED_MARKER, QUEUE } from "./plotly-parts";
import { plotlySource } from "./plotly-source";
import { DEFAULT_HEIGHT } from "./theme";

/** Shown where JavaScript does not run (an untrusted notebook, GitHub's viewer). */
const NO_SCRIPT_TEXT =
  "Interactive plotly chart: it appears in a trusted notebook or in the exported HTML (JavaScript is not running here).";

/** Shown while plotly.js has not loaded on this page (its parts are still arriving, or are not on the page). */
const NO_PLOTLY_TEXT =
  "Loading plotly.js… risk-portal-lab embeds it once per kernel session, in parts, in the outputs of the first chart's cell. " +
  'If this stays, those outputs are not on this page (cleared, or the cell re-run): show the chart again with plot.show(fig, { plotlyJs: "always" }).';

/**
 * JSON that is safe inside a `<script>` element: `<`, `>` and `&` escaped (no `</script>` or `<!--`
 * can end the element), and U+2028/U+2029 escaped for older parsers. `undefined` members are dropped,
 * `NaN` becomes `null`, as in `JSON.stringify`.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * JavaScript source made safe inside a `<script>` element: `</script` becomes `<\/script` (the same
 * text in a string, regex or comment, where alone it can occur).
 */
export function scriptText(js: string): string {
  return js.replace(/<\/(script)/gi, "<\\/$1");
}

/** The plotly.js bundle in a `<script>` element, then a script that draws every chart queued before it. */
export function plotlyScripts(): string {
  const { text, version } = plotlySource();
  return `<script type="text/javascript">/* plotly.js ${version}, ${EMBED_MARKER} */\n${scriptText(text)}\n</script>\n<script type="text/javascript">${DRAIN_QUEUE}</script>`;
}

export interface FragmentOptions {
  /** Include the whole plotly.js bundle before the chart (about 4.8 MB; notebooks get it in parts instead, see plotly-parts.ts). */
  plotly: boolean;
  /** The chart element's id. Default: {@link figureId}. */
  id?: string;
}

/** Figures given an id in this process (= this kernel session) since the last {@link resetFigureIds}. */
let figureCounter = 0;

/**
 * A chart element id that is unique in a kernel session and the same on every run of a notebook:
 * `rpl-<n>-<hash>`, the figure's number in the session and a hash of what it draws. (A random id
 * would make every run's outputs differ, so a replayed notebook could never match its recording.)
 */
export function figureId(payload: string): string {
  const hash = createHash("sha256").update(payload).digest("hex").slice(0, 12);
  return `rpl-${++figureCounter}-${hash}`;
}

/** Starts the figure numbering afresh (the headless runner calls it before each notebook: a new kernel session). */
export function resetFigureIds(): void {
  figureCounter = 0;
}
// A new notebook session numbers its figures from 1 (their element ids are the same on every run).
notebookSession().onStart(resetFigureIds);

/** The figure as an HTML fragment: (plotly.js,) a `<div>` and the script that draws into it. */
export function figureFragment(fig: Figure, options: FragmentOptions): string {
  const height = typeof fig.layout?.height === "number" ? fig.layout.height : DEFAULT_HEIGHT;
  const width = typeof fig.layout?.width === "number" ? `${fig.layout.width}px` : "100%";
  const payload = jsonForScript({ data: fig.data, layout: fig.layout ?? {}, config: fig.config ?? {} });
  const id = options.id ?? figureId(payload);
  const draw = [
    "(function(){",
    `var id=${JSON.stringify(id)};`,
    `var el=document.getElementById(id)||(document.currentScript&&document.currentScript.previousElementSibling);`,
    `var fig=${payload};`,
    "function draw(){el.textContent='';el.removeAttribute('data-rpl-pending');return window.Plotly.newPlot(el,fig.data,fig.layout,fig.config);}",
    "if(window.Plotly&&window.Plotly.newPlot){draw();}",
    `else{el.textContent=${jsonForScript(NO_PLOTLY_TEXT)};(window.${QUEUE}=window.${QUEUE}||[]).push(draw);}`,
    "})();",
  ].join("");
  const div = `<div id="${id}" class="risk-portal-lab-figure" data-rpl-pending="1" style="width:${width};height:${height}px;font:13px sans-serif;color:#6b7685">${escapeHtml(NO_SCRIPT_TEXT)}</div>`;
  return `${options.plotly ? `${plotlyScripts()}\n` : ""}${div}\n<script type="text/javascript">${draw}</script>`;
}

/** A complete HTML page with plotly.js inline: opens offline, from a file, in any browser. */
export function figurePage(fig: Figure, title?: string): string {
  const text = title ?? titleText(fig) ?? "Chart";
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(text)}</title>`,
    "<style>body{margin:16px;background:#fff}</style>",
    plotlyScripts(),
    "</head>",
    "<body>",
    figureFragment(fig, { plotly: false }),
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/** The figure's title as plain text (markup removed), if it has one. */
export function titleText(fig: Figure): string | undefined {
  const t = fig.layout?.title;
  const raw = typeof t === "string" ? t : typeof t?.text === "string" ? t.text : undefined;
  return raw
    ?.replace(/<br\s*\/?>/gi, " — ")
    .replace(/<[^>]*>/g, "")
    .trim();
}
