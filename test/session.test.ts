/** The notebook session: hooks registered by the modules that keep per-notebook state, shared process-wide. */
import { describe, expect, it } from "vitest";
import { notebookSession } from "../src/kernel/session";
import { figureFragment } from "../src/plot/html";

describe("notebookSession()", () => {
  it("is one object per process, on a registered symbol (every copy of the package finds the same one)", () => {
    expect(notebookSession()).toBe(notebookSession());
    expect((globalThis as Record<symbol, unknown>)[Symbol.for("risk-portal-lab.notebook-session")]).toBe(
      notebookSession(),
    );
  });

  it("runs start hooks on start and end hooks on end, collecting failures", async () => {
    const session = notebookSession();
    const seen: string[] = [];
    session.onStart(() => seen.push("start"));
    session.onEnd(() => {
      seen.push("end");
      throw new Error("one hook failed");
    });
    session.start();
    const results = await session.end();
    expect(seen).toEqual(["start", "end"]);
    expect(results.some((r) => r.status === "rejected")).toBe(true);
  });

  it("the HTML renderer registers with it on load: a new session numbers figures from 1 again", () => {
    const fig = { data: [{ type: "scatter", x: [1], y: [2] }], layout: {} } as never;
    const idOf = (html: string) => /id="(rpl-\d+)-/.exec(html)?.[1];
    notebookSession().start();
    const first = idOf(figureFragment(fig, { plotly: false }));
    idOf(figureFragment(fig, { plotly: false }));
    expect(idOf(figureFragment(fig, { plotly: false }))).toBe("rpl-3");
    notebookSession().start();
    expect(idOf(figureFragment(fig, { plotly: false }))).toBe(first);
    expect(first).toBe("rpl-1");
  });
});
