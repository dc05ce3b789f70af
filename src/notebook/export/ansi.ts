/**
 * Terminal text (a Deno or tslab traceback, a stream) as HTML: SGR colour codes (`ESC[31m`,
 * `ESC[38;5;208m`, `ESC[38;2;r;g;bm`, bold, italic, underline, resets) become `<span>`s with classes
 * (the 16 named colours, `ansi-bold`, …) or an inline colour; every other escape sequence and control
 * character is dropped, so no `ESC` or `[31m` text is left. The text itself is HTML-escaped.
 */
import { escapeHtml } from "../../plot/labels";

const NAMES = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"] as const;
// eslint-disable-next-line no-control-regex
const SEQUENCE = /\x1b\[([0-9;?]*)([A-Za-z])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]?/g;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

interface Style {
  fg?: string;
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
}

/** `text` with its ANSI colours as HTML spans (escaped; see the module comment). */
export function ansiToHtml(text: string): string {
  let out = "";
  let style: Style = {};
  let last = 0;
  for (const m of text.matchAll(SEQUENCE)) {
    out += styled(text.slice(last, m.index), style);
    last = m.index + m[0].length;
    if (m[2] === "m") style = applySgr(style, m[1] ?? "");
  }
  return out + styled(text.slice(last), style);
}

/** `text` without its ANSI escape sequences and control characters (for plain-text formats). */
export function stripAnsi(text: string): string {
  return text.replace(SEQUENCE, "").replace(CONTROL, "");
}

function styled(text: string, style: Style): string {
  const html = escapeHtml(text.replace(CONTROL, ""));
  if (html === "") return "";
  const classes: string[] = [];
  const css: string[] = [];
  for (const [part, value] of [
    ["", style.fg],
    ["bg-", style.bg],
  ] as const) {
    if (value === undefined) continue;
    if (value.startsWith("ansi-")) classes.push(part ? `ansi-bg-${value.slice(5)}` : value);
    else css.push(`${part ? "background-color" : "color"}:${value}`);
  }
  if (style.bold) classes.push("ansi-bold");
  if (style.dim) classes.push("ansi-dim");
  if (style.italic) classes.push("ansi-italic");
  if (style.underline) classes.push("ansi-underline");
  if (!classes.length && !css.length) return html;
  const cls = classes.length ? ` class="${classes.join(" ")}"` : "";
  return `<span${cls}${css.length ? ` style="${css.join(";")}"` : ""}>${html}</span>`;
}

/** The style after an SGR sequence's parameters (`1;31`, `38;5;208`, `` = reset). */
function applySgr(current: Style, params: string): Style {
  const codes = params === "" ? [0] : params.split(";").map((p) => Number(p) || 0);
  let s: Style = { ...current };
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i]!;
    if (c === 0) s = {};
    else if (c === 1) s.bold = true;
    else if (c === 2) s.dim = true;
    else if (c === 3) s.italic = true;
    else if (c === 4) s.underline = true;
    else if (c === 22) s.bold = s.dim = false;
    else if (c === 23) s.italic = false;
    else if (c === 24) s.underline = false;
    else if (c >= 30 && c <= 37) s.fg = `ansi-${NAMES[c - 30]}`;
    else if (c >= 90 && c <= 97) s.fg = `ansi-bright-${NAMES[c - 90]}`;
    else if (c >= 40 && c <= 47) s.bg = `ansi-${NAMES[c - 40]}`;
    else if (c >= 100 && c <= 107) s.bg = `ansi-bright-${NAMES[c - 100]}`;
    else if (c === 39) s.fg = undefined;
    else if (c === 49) s.bg = undefined;
    else if (c === 38 || c === 48) {
      const { colour, used } = extendedColour(codes, i + 1);
      if (c === 38) s.fg = colour;
      else s.bg = colour;
      i += used;
    }
  }
  return s;
}

/** `5;n` (the 256-colour palette) or `2;r;g;b` after a 38/48, as a CSS colour, and how many codes it took. */
function extendedColour(codes: number[], at: number): { colour: string | undefined; used: number } {
  if (codes[at] === 2) {
    const [r, g, b] = [codes[at + 1] ?? 0, codes[at + 2] ?? 0, codes[at + 3] ?? 0].map((v) => Math.min(255, v));
    return { colour: `rgb(${r},${g},${b})`, used: 4 };
  }
  if (codes[at] !== 5) return { colour: undefined, used: 0 };
  const n = Math.min(255, codes[at + 1] ?? 0);
  if (n < 8) return { colour: `ansi-${NAMES[n]}`, used: 2 };
  if (n < 16) return { colour: `ansi-bright-${NAMES[n - 8]}`, used: 2 };
  if (n >= 232) {
    const v = (8 + (n - 232) * 10).toString(16).padStart(2, "0");
    return { colour: `#${v}${v}${v}`, used: 2 };
  }
  const level = (k: number) => (k === 0 ? 0 : 55 + k * 40).toString(16).padStart(2, "0");
  const i = n - 16;
  return { colour: `#${level(Math.floor(i / 36))}${level(Math.floor(i / 6) % 6)}${level(i % 6)}`, used: 2 };
}

/** CSS for the classes {@link ansiToHtml} writes (xterm's colours, as Jupyter shows them). */
export const ANSI_CSS = [
  ["black", "#3e424d", "#282c36"],
  ["red", "#e75c58", "#b22b31"],
  ["green", "#00a250", "#007427"],
  ["yellow", "#ddb62b", "#b27d12"],
  ["blue", "#208ffb", "#0065ca"],
  ["magenta", "#d160c4", "#a03196"],
  ["cyan", "#60c6c8", "#258f8f"],
  ["white", "#c5c1b4", "#a1a6b2"],
]
  .map(
    ([name, normal, bright]) =>
      `.ansi-${name}{color:${normal}}.ansi-bright-${name}{color:${bright}}.ansi-bg-${name}{background-color:${normal}}.ansi-bg-bright-${name}{background-color:${bright}}`,
  )
  .concat([
    ".ansi-bold{font-weight:bold}.ansi-dim{opacity:.7}.ansi-italic{font-style:italic}.ansi-underline{text-decoration:underline}",
  ])
  .join("");
