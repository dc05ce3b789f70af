/**
 * Notebook Markdown as HTML, through markdown-it (CommonMark with GFM pipe tables and strikethrough).
 * A notebook's Markdown is not trusted: raw HTML in it is shown as text (`html: false`), and
 * markdown-it's link check refuses `javascript:`, `vbscript:`, `file:` and non-image `data:` URLs, so
 * nothing in a cell runs a script or links one. Math (`$…$`, `$$…$$`) is kept as its TeX text, in a
 * `<span class="math">`, so its `_` and `*` do not turn into emphasis.
 */
import type MarkdownIt from "markdown-it";
import type { StateInline } from "markdown-it/index.js";

export interface MarkdownOptions {
  /** Added to heading levels (`#` becomes `<h2>` with 1), at most `<h6>`. Default 0. */
  headingOffset?: number;
  /**
   * What an image's `src` becomes (an inlined data: URL, say); `undefined` shows the image as a link
   * to it instead. Default: the `src` as written.
   */
  image?: (src: string) => string | undefined;
}

/** The parser, made on first use: loading markdown-it (13 modules) waits until a page is rendered. */
let parser: MarkdownIt | undefined;

function markdownIt(): MarkdownIt {
  if (parser) return parser;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Markdown = require("markdown-it") as typeof MarkdownIt;
  const md = new Markdown("default", { html: false, linkify: false, typographer: false });
  md.inline.ruler.before("escape", "math", math);

  const renderImage = md.renderer.rules.image!;
  md.renderer.rules.image = (tokens, idx, options, env: MarkdownEnv, self) => {
    const token = tokens[idx]!;
    const src = token.attrGet("src") ?? "";
    const to = env.image ? env.image(src) : src;
    if (to === undefined) {
      const alt = self.renderInlineAsText(token.children ?? [], options, env);
      return `<a href="${md.utils.escapeHtml(src)}">${md.utils.escapeHtml(alt || src)}</a>`;
    }
    token.attrSet("src", to);
    return renderImage(tokens, idx, options, env, self);
  };
  for (const rule of ["heading_open", "heading_close"] as const) {
    md.renderer.rules[rule] = (tokens, idx, options, env: MarkdownEnv, self) => {
      const token = tokens[idx]!;
      const level = Math.min(6, Number(token.tag.slice(1)) + (env.headingOffset ?? 0));
      token.tag = `h${level}`;
      return self.renderToken(tokens, idx, options);
    };
  }
  md.renderer.rules.math = (tokens, idx) => `<span class="math">${md.utils.escapeHtml(tokens[idx]!.content)}</span>`;
  return (parser = md);
}

interface MarkdownEnv {
  headingOffset?: number;
  image?: (src: string) => string | undefined;
}

/** Renders notebook Markdown as sanitised HTML (see the module comment for what is refused). */
export function markdownHtml(source: string, options: MarkdownOptions = {}): string {
  const env: MarkdownEnv = { headingOffset: options.headingOffset ?? 0, image: options.image };
  return markdownIt().render(source, env).trimEnd();
}

/** `$…$` or `$$…$$` (not `$ 5`, not an escaped `\$`): one token holding the TeX with its dollars. */
function math(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x24 /* $ */) return false;
  const fence = src.startsWith("$$", pos) ? "$$" : "$";
  const start = pos + fence.length;
  if (fence === "$" && /\s/.test(src[start] ?? " ")) return false;
  let end = src.indexOf(fence, start);
  while (end > 0 && src[end - 1] === "\\") end = src.indexOf(fence, end + 1);
  if (end < 0 || end === start) return false;
  if (fence === "$" && /\s/.test(src[end - 1]!)) return false;
  if (!silent) state.push("math", "", 0).content = src.slice(pos, end + fence.length);
  state.pos = end + fence.length;
  return true;
}
