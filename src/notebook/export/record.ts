/**
 * What an export says about the run it shows (its header): the notebook's name, its parameters and
 * when it ran, read from `metadata.risk_portal_lab` and `metadata.papermill` (either may be absent);
 * and the images a notebook's Markdown refers to, inlined as data: URLs for a self-contained page.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Cell, Notebook } from "../ipynb";

/** The run an executed notebook records. */
export interface RunRecord {
  /** The notebook's file name without `.ipynb`. */
  name: string;
  /** `name = value` (JSON values), in the order the run recorded them; empty for the defaults. */
  parameters: string[];
  /** When it ran (`2026-11-29 07:40 UTC`), when the metadata says. */
  ran?: string;
  /** `ran`, else when the file was written (`file written 2026-11-29 07:43 UTC`). */
  date: string;
}

/** Reads the run's record from the notebook's metadata (the file's time when it has none). */
export function runRecord(nb: Notebook, file: string): RunRecord {
  const rpl = (nb.metadata?.risk_portal_lab ?? {}) as Record<string, unknown>;
  const pm = (nb.metadata?.papermill ?? {}) as Record<string, unknown>;
  const params = { ...(pm.parameters as object), ...(rpl.parameters as object) } as Record<string, unknown>;
  const when = [pm.start_time, rpl.start_time, pm.end_time, rpl.end_time]
    .map((v) => (typeof v === "string" ? new Date(v) : undefined))
    .find((d) => d !== undefined && !Number.isNaN(d.getTime()));
  return {
    name: path.basename(file, ".ipynb"),
    parameters: Object.entries(params).map(([k, v]) => `${k} = ${JSON.stringify(v)}`),
    ran: when && utc(when),
    date: when ? utc(when) : `file written ${utc(statSync(file).mtime)}`,
  };
}

function utc(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".svg": "image/svg+xml",
};

/**
 * A Markdown image's `src` as a data: URL: a cell attachment (`attachment:NAME`) or a file beside the
 * notebook; `undefined` (the image becomes a link) for anything else, a web address included, so that
 * the page loads nothing.
 */
export function inlineImage(notebookFile: string): (src: string, cell: Cell) => string | undefined {
  const dir = path.dirname(path.resolve(notebookFile));
  return (src, cell) => {
    if (src.startsWith("data:")) return src;
    if (src.startsWith("attachment:")) {
      const bundle = (cell as { attachments?: Record<string, Record<string, unknown>> }).attachments?.[
        decodeURIComponent(src.slice("attachment:".length))
      ];
      const mime = Object.keys(bundle ?? {}).find((m) => m.startsWith("image/"));
      if (!mime) return undefined;
      const data = String(bundle![mime]).replace(/\s+/g, "");
      return `data:${mime};base64,${mime === "image/svg+xml" ? Buffer.from(String(bundle![mime])).toString("base64") : data}`;
    }
    if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(src)) return undefined;
    const file = path.resolve(dir, decodeURIComponent(src.split(/[?#]/)[0]!));
    const type = IMAGE_TYPES[path.extname(file).toLowerCase()];
    if (!type || !existsSync(file)) return undefined;
    return `data:${type};base64,${readFileSync(file).toString("base64")}`;
  };
}
