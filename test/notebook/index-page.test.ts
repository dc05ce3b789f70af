/** The runner's out/index.html lists every notebook run into the directory, not only the last run's. */
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { writeIndex, type BatchResult } from "../../src/notebook/batch";

const dir = mkdtempSync(path.join(tmpdir(), "rpl-index-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function ran(name: string, ok = true): BatchResult {
  const htmlPath = path.join(dir, `${name}.html`);
  writeFileSync(htmlPath, "<html></html>");
  return {
    file: `notebooks/${name}.ipynb`,
    ok,
    durationMs: 1234,
    cells: 3,
    charts: 1,
    htmlPath,
    ipynbPath: path.join(dir, `${name}.ipynb`),
    title: `Title of ${name}`,
  };
}

const listed = (html: string) => [...html.matchAll(/<span class="file">([^<]+)\.ipynb<\/span>/g)].map((m) => m[1]);

describe("writeIndex", () => {
  it("keeps the notebooks of earlier runs, replaces a notebook run again, drops one whose rendering is gone", async () => {
    await writeIndex(dir, [ran("02-b"), ran("01-a")], "notebooks", "first run", new Date("2026-11-25T01:00:00Z"));
    let html = readFileSync(path.join(dir, "index.html"), "utf8");
    expect(listed(html)).toEqual(["01-a", "02-b"]);
    expect(html).toContain("all 2 notebooks ran. first run");

    await writeIndex(dir, [ran("03-c", false)], "notebooks", "second run", new Date("2026-11-25T02:00:00Z"));
    html = readFileSync(path.join(dir, "index.html"), "utf8");
    expect(listed(html)).toEqual(["01-a", "02-b", "03-c"]);
    expect(html).toContain("1 of 3 notebooks failed. second run");
    expect(html).toContain("an earlier run, 2026-11-25 01:00 UTC: first run");
    expect(html).toContain('<a href="./01-a.html">Title of 01-a</a>');

    rmSync(path.join(dir, "02-b.html"));
    await writeIndex(dir, [ran("03-c")], "notebooks", "third run", new Date("2026-11-25T03:00:00Z"));
    html = readFileSync(path.join(dir, "index.html"), "utf8");
    expect(listed(html)).toEqual(["01-a", "03-c"]);
    expect(html).toContain("all 2 notebooks ran. third run");
  });

  it("starts afresh beside an index.json it cannot read", async () => {
    const other = mkdtempSync(path.join(tmpdir(), "rpl-index-bad-"));
    try {
      writeFileSync(path.join(other, "index.json"), "{ not json");
      await writeIndex(other, [], "notebooks", "");
      expect(readFileSync(path.join(other, "index.html"), "utf8")).toContain("all 0 notebooks ran.");
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

/** `href`s of a page, as the browser reads them (the attribute's HTML entities decoded). */
const hrefs = (html: string) =>
  [...html.matchAll(/href="([^"]*)"/g)].map((m) =>
    m[1]!.replace(
      /&(amp|lt|gt|quot|#39);/g,
      (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!,
    ),
  );

describe("links on the index", () => {
  it("are ./ and the URL-encoded file name: a name is never a scheme, and # or ? stay part of it", async () => {
    const other = mkdtempSync(path.join(tmpdir(), "rpl-index-links-"));
    try {
      const names = ["javascript:alert(document.domain)", "a#b?c=1", "50% & <x> 'y'", "data:text", "spaced name"];
      const results = names.map((name) => {
        const htmlPath = path.join(other, `${name}.html`);
        const ipynbPath = path.join(other, `${name}.ipynb`);
        writeFileSync(htmlPath, "<html></html>");
        writeFileSync(ipynbPath, "{}");
        return { file: `${name}.ipynb`, ok: true, durationMs: 1, cells: 1, charts: 0, htmlPath, ipynbPath };
      });
      await writeIndex(other, results, "notebooks", "");
      const links = hrefs(readFileSync(path.join(other, "index.html"), "utf8"));
      expect(links).toHaveLength(2 * names.length);
      expect(links).toContain("./javascript%3Aalert(document.domain).html");
      const base = pathToFileURL(`${other}/`);
      const targets = links.map((href) => {
        expect(href.startsWith("./"), href).toBe(true);
        const url = new URL(href, base);
        expect(url.protocol, href).toBe("file:");
        expect(url.search + url.hash, href).toBe("");
        return fileURLToPath(url);
      });
      expect(targets.sort()).toEqual(results.flatMap((r) => [r.htmlPath, r.ipynbPath]).sort());
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe("an index.json written by another version", () => {
  it("never links the index to itself (an entry whose page was index.html)", async () => {
    const other = mkdtempSync(path.join(tmpdir(), "rpl-index-self-"));
    try {
      const entry = { name: "index", ok: true, durationMs: 1, cells: 1, charts: 0, ranAt: "2026-11-25T01:00:00.000Z" };
      writeFileSync(path.join(other, "index.json"), JSON.stringify({ notebooks: [{ ...entry, html: "index.html" }] }));
      writeFileSync(path.join(other, "index.html"), "<html>an earlier index</html>");
      await writeIndex(other, [], "notebooks", "");
      const html = readFileSync(path.join(other, "index.html"), "utf8");
      expect(hrefs(html)).toEqual([]);
      expect(html).toContain("all 0 notebooks ran.");
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe("index updates from several processes at once", () => {
  /** Runs `writeIndex` (the built one, dist/) in `n` processes that start it at the same moment. */
  async function concurrentWrites(outDir: string, n: number): Promise<{ code: number | null; stderr: string }[]> {
    const batch = path.resolve(__dirname, "..", "..", "dist", "notebook", "batch.js");
    const startAt = Date.now() + 1500;
    const script = `
      const path = require("node:path");
      const { writeFileSync } = require("node:fs");
      const { writeIndex } = require(${JSON.stringify(batch)});
      const [outDir, name, startAt] = process.argv.slice(1);
      const htmlPath = path.join(outDir, name + ".html");
      writeFileSync(htmlPath, "<html></html>");
      const result = { file: name + ".ipynb", ok: true, durationMs: 1, cells: 1, charts: 0, htmlPath };
      setTimeout(() => writeIndex(outDir, [result], "notebooks", "run " + name).catch((e) => {
        process.stderr.write(String(e && e.message));
        process.exitCode = 3;
      }), Number(startAt) - Date.now());`;
    return Promise.all(
      Array.from(
        { length: n },
        (_, i) =>
          new Promise<{ code: number | null; stderr: string }>((resolve) => {
            const child = spawn(process.execPath, ["-e", script, outDir, `run-${i}`, String(startAt)], {
              stdio: ["ignore", "ignore", "pipe"],
            });
            let stderr = "";
            child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
            child.on("close", (code) => resolve({ code, stderr }));
          }),
      ),
    );
  }

  it("keeps every run's entry (6 processes, over an index of 2,000 notebooks)", async () => {
    const other = mkdtempSync(path.join(tmpdir(), "rpl-index-many-"));
    try {
      const earlier = Array.from({ length: 2000 }, (_, i) => {
        const name = `nb-${String(i).padStart(4, "0")}`;
        writeFileSync(path.join(other, `${name}.html`), "");
        return {
          name,
          ok: true,
          durationMs: 1,
          cells: 1,
          charts: 0,
          html: `${name}.html`,
          ranAt: "2026-11-25T01:00:00.000Z",
          summary: "x".repeat(200),
        };
      });
      writeFileSync(path.join(other, "index.json"), JSON.stringify({ notebooks: earlier }));
      const ends = await concurrentWrites(other, 6);
      expect(ends).toEqual(Array.from({ length: 6 }, () => ({ code: 0, stderr: "" })));
      const index = JSON.parse(readFileSync(path.join(other, "index.json"), "utf8")) as {
        notebooks: { name: string }[];
      };
      const names = index.notebooks.map((e) => e.name);
      expect(names.filter((n) => n.startsWith("run-"))).toEqual(["run-0", "run-1", "run-2", "run-3", "run-4", "run-5"]);
      expect(names).toHaveLength(2006);
      expect(listed(readFileSync(path.join(other, "index.html"), "utf8"))).toHaveLength(2006);
      expect(
        readdirSync(other)
          .filter((f) => !/^(nb-\d+|run-\d)\.html$/.test(f))
          .sort(),
      ).toEqual(["index.html", "index.json"]);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  }, 30_000);

  it("takes over the lock of a process that is gone", async () => {
    const other = mkdtempSync(path.join(tmpdir(), "rpl-index-stale-"));
    try {
      // A pid that is not running (a child that has exited), on this host.
      const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
        encoding: "utf8",
      });
      writeFileSync(path.join(other, "index.lock"), `${gone.stdout} ${hostname()}`);
      const started = performance.now();
      await writeIndex(
        other,
        [ran("01-a")].map((r) => ({ ...r, htmlPath: copyInto(other, r.htmlPath!) })),
        "notebooks",
        "",
      );
      expect(performance.now() - started).toBeLessThan(2000);
      expect(listed(readFileSync(path.join(other, "index.html"), "utf8"))).toEqual(["01-a"]);
      expect(existsSync(path.join(other, "index.lock"))).toBe(false);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe("the index lock held by a running process", () => {
  it("is waited for, not taken over", async () => {
    const other = mkdtempSync(path.join(tmpdir(), "rpl-index-held-"));
    const holder = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const lock = path.join(other, "index.lock");
      writeFileSync(lock, `${holder.pid} ${hostname()} test`);
      const started = performance.now();
      const released = new Promise<number>((resolve) =>
        setTimeout(() => (rmSync(lock), resolve(performance.now() - started)), 400),
      );
      await writeIndex(
        other,
        [ran("01-a")].map((r) => ({ ...r, htmlPath: copyInto(other, r.htmlPath!) })),
        "notebooks",
        "",
      );
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThanOrEqual(await released);
      expect(listed(readFileSync(path.join(other, "index.html"), "utf8"))).toEqual(["01-a"]);
      expect(existsSync(lock)).toBe(false);
    } finally {
      holder.kill();
      rmSync(other, { recursive: true, force: true });
    }
  });
});

function copyInto(dir: string, file: string): string {
  const target = path.join(dir, path.basename(file));
  copyFileSync(file, target);
  return target;
}
