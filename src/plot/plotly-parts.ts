/**
 * plotly.js for notebook outputs, in parts: each part a small display (a `<script>` that stores its
 * piece of the bundle in a global), the last one to arrive evaluates the pieces joined in order, then
 * draws the charts that queued meanwhile. A kernel session sends the parts once, with its first chart.
 *
 * Why parts: Deno's kernel (2.9) may send a cell's `status: idle` before the cell's displays are on the
 * wire, and a frontend that closes the cell at idle (JupyterLab, nbconvert, papermill) drops what comes
 * later. One ~5 MB display lost its chart in 2 runs of 3 under plain `jupyter nbconvert --execute`;
 * parts of {@link PLOTLY_PART_CHARS} sent one at a time (Deno's display sender holds the cell until each is on the wire) arrive. The parts are
 * outputs like any other, so a saved notebook, nbconvert's HTML export and a re-opened trusted
 * notebook assemble plotly.js from them, offline, in document order or any other.
 */
import { plotlySource } from "./plotly-source";
import type { MimeBundle } from "../kernel/tslab";

/** The mime type that marks a plotly.js part: `{ version, part, of }` (1-based). Frontends ignore it. */
export const PLOTLY_PART_MIME = "application/vnd.risk-portal-lab.plotly-part+json";

/**
 * Characters of plotly.js per part: 128 KiB, about 38 parts for the 4.8 MB minified bundle. Measured
 * under Deno 2.9 with plain nbconvert (4.8 MB in parts, each followed by Deno's pause): 64 KiB parts
 * left a part after idle in 4 runs of 12 (more messages, more chances to stall the socket), 256 KiB in 2
 * of 12, 128 KiB in 1 of 12, and only the message after the last part was ever late (so the chart goes
 * first).
 */
export const PLOTLY_PART_CHARS = 128 * 1024;

/** The global the parts collect in: `{ [version]: { of, parts, got, done } }`. */
export const PARTS_GLOBAL = "__riskPortalLabPlotlyParts";
/** The global the draw scripts queue on until plotly.js has loaded. */
export const QUEUE = "__riskPortalLabPlotlyQueue";
/** The comment before plotly.js (in a page) or its first part (in a notebook); tests count it. */
export const EMBED_MARKER = "embedded by risk-portal-lab (offline)";

/** Runs (and empties) the queue of charts waiting for plotly.js. */
export const DRAIN_QUEUE = `(function(){var q=window.${QUEUE};window.${QUEUE}=[];if(q)for(var i=0;i<q.length;i++){try{q[i]()}catch(e){console.error(e)}}})();`;

/**
 * A JavaScript string literal that is safe inside a `<script>` element: `</script` and `<!--` cannot
 * end or derail it, U+2028/U+2029 are escaped for older parsers.
 */
function scriptString(text: string): string {
  return JSON.stringify(text)
    .replace(/<\/(script)/gi, "<\\/$1")
    .replace(/<!--/g, "<\\!--")
    .replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/**
 * The script of one part: stores the piece; once every piece of this version is there (and no
 * plotly.js runs on the page yet), evaluates them joined, in a `<script>` element; then drains the queue.
 */
function partScript(version: string, part: number, of: number, piece: string): string {
  const head = part === 1 ? `/* plotly.js ${version}, ${EMBED_MARKER}, in ${of} parts */\n` : "";
  return (
    `${head}(function(w,v,i,n,t){var all=w.${PARTS_GLOBAL}=w.${PARTS_GLOBAL}||{};` +
    `var p=all[v]=all[v]||{parts:[],got:0,done:false};if(p.done)return;` +
    `if(p.parts[i]===undefined){p.parts[i]=t;p.got++;}if(p.got<n)return;p.done=true;` +
    `if(!(w.Plotly&&w.Plotly.newPlot)){var s=document.createElement("script");s.text=p.parts.join("");` +
    `(document.head||document.documentElement).appendChild(s);}p.parts=[];${DRAIN_QUEUE}})` +
    `(window,${JSON.stringify(version)},${part - 1},${of},${scriptString(piece)});`
  );
}

let cached: { size: number; bundles: MimeBundle[] } | undefined;

/**
 * The plotly.js parts as display bundles, in order (computed once per process and size): `text/html`
 * (the part's script), `text/plain` (what it is) and {@link PLOTLY_PART_MIME}.
 */
export function plotlyPartBundles(size: number = PLOTLY_PART_CHARS): MimeBundle[] {
  if (!(Number.isInteger(size) && size > 0))
    throw new RangeError(`plotly.js part size must be a whole number > 0; got ${size}`);
  if (cached?.size === size) return cached.bundles;
  const { text, version } = plotlySource();
  const of = Math.ceil(text.length / size);
  const bundles: MimeBundle[] = [];
  for (let part = 1; part <= of; part++) {
    const piece = text.slice((part - 1) * size, part * size);
    bundles.push({
      "text/html": `<script type="text/javascript">${partScript(version, part, of, piece)}</script>`,
      "text/plain": `plotly.js ${version} for the charts (offline), part ${part} of ${of}`,
      [PLOTLY_PART_MIME]: { version, part, of },
    });
  }
  cached = { size, bundles };
  return bundles;
}

/** Whether a display's data is a plotly.js part (the package's HTML rendering skips them). */
export function isPlotlyPart(data: Record<string, unknown>): boolean {
  return data[PLOTLY_PART_MIME] !== undefined;
}
