/**
 * show's files outside a notebook (issue 44, item 2): a directory of this user's own (0700, owned by
 * this process's user, nothing open to group or others), pages opened exclusively under random names,
 * 0600. Real files, real symlinks; the default directory is found through $TMPDIR, set here.
 */
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as frames from "../../src/frames";
import { show } from "../../src/plot";

const root = mkdtempSync(path.join(tmpdir(), "rpl-show-files-"));
const saved = { TMPDIR: process.env.TMPDIR, PLOT_DIR: process.env.RISK_PORTAL_LAB_PLOT_DIR };
let tmp: string;
let n = 0;
beforeEach(() => {
  // A fresh "system temporary directory" per test: the default plot directory is found in it.
  tmp = path.join(root, `tmp-${++n}`);
  mkdirSync(tmp, { mode: 0o1777 });
  process.env.TMPDIR = tmp;
  delete process.env.RISK_PORTAL_LAB_PLOT_DIR;
  vi.spyOn(console, "log").mockImplementation(() => undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
  for (const [key, value] of [
    ["TMPDIR", saved.TMPDIR],
    ["RISK_PORTAL_LAB_PLOT_DIR", saved.PLOT_DIR],
  ] as const)
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const table = () => frames.emptyTable("x", ["a"]);
const uid = process.getuid?.() ?? -1;
const mode = (p: string) => statSync(p).mode & 0o777;

describe.skipIf(process.platform === "win32")("show's files outside a notebook", () => {
  it("writes into a directory of this user's own (0700), a page of mode 0600 under a name no one can guess", () => {
    const first = show(table()).file!;
    const second = show(table()).file!;
    const dir = path.dirname(first);
    expect(path.dirname(dir)).toBe(tmp);
    expect(path.basename(dir)).toBe(`risk-portal-lab-plots-${uid}`);
    expect(mode(dir)).toBe(0o700);
    expect(statSync(dir).uid).toBe(uid);
    expect(mode(first)).toBe(0o600);
    expect(path.dirname(second)).toBe(dir);
    // Random names: two pages of one second and one process share no more than the stamp and the title.
    expect(path.basename(first)).toMatch(/^\d{8}-\d{6}-[0-9a-f]{16}-table\.html$/);
    expect(path.basename(first)).not.toBe(path.basename(second));
    expect(path.basename(first)).not.toContain(String(process.pid));
    expect(readFileSync(first, "utf8")).toContain("0 rows × 1 column");
  });

  it("a symlink planted under the old shared directory's coming names is not followed: the file it points at is untouched", () => {
    const victim = path.join(root, `victim-${n}`);
    writeFileSync(victim, "the victim's own data", { mode: 0o600 });
    // Another user made the old shared directory first, and planted a link under every name it would use next.
    const shared = path.join(tmp, "risk-portal-lab-plots");
    mkdirSync(shared, { mode: 0o777 });
    const now = Date.now();
    for (let s = -1; s <= 5; s++) {
      const stamp = new Date(now + s * 1000).toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-");
      for (let k = 1; k <= 50; k++) symlinkSync(victim, path.join(shared, `${stamp}-${process.pid}-${k}-table.html`));
    }
    const file = show(table()).file!;
    expect(readFileSync(victim, "utf8")).toBe("the victim's own data");
    expect(path.dirname(file)).not.toBe(shared);
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
  });

  it("a default directory open to others, or not this user's, or a symlink, is not used: a fresh private one is", () => {
    const own = path.join(tmp, `risk-portal-lab-plots-${uid}`);
    const cases: [string, () => void][] = [
      ["open to others (0777)", () => mkdirSync(own, { mode: 0o777 })],
      ["open to its group (0750)", () => (mkdirSync(own), chmodSync(own, 0o750))],
      [
        "a symlink to a directory",
        () => (mkdirSync(`${own}-elsewhere`, { mode: 0o700 }), symlinkSync(`${own}-elsewhere`, own)),
      ],
    ];
    // Root can give a directory away: the owner check is tested for real where the test runs as root.
    if (uid === 0) cases.push(["another user's", () => (mkdirSync(own, { mode: 0o700 }), chownSync(own, 4242, 4242))]);
    for (const [what, plant] of cases) {
      rmSync(own, { recursive: true, force: true });
      rmSync(`${own}-elsewhere`, { recursive: true, force: true });
      plant();
      const before = readdirSync(own);
      const file = show(table()).file!;
      const dir = path.dirname(file);
      expect(dir, what).not.toBe(own);
      expect(path.dirname(dir), what).toBe(tmp);
      expect(path.basename(dir), what).toMatch(new RegExp(`^risk-portal-lab-plots-${uid}-`));
      expect(mode(dir), what).toBe(0o700);
      expect(mode(file), what).toBe(0o600);
      expect(readdirSync(own), what).toEqual(before);
    }
  });

  it("an outDir given is created private (0700) when missing; pages in it are 0600 and never replace a file", () => {
    const outDir = path.join(root, `given-${n}`, "plots");
    const file = show(table(), { outDir }).file!;
    expect(path.dirname(file)).toBe(outDir);
    expect(mode(outDir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
  });

  it("an outDir given that is not a directory is an error naming it", () => {
    const blocker = path.join(root, `blocker-${n}`);
    writeFileSync(blocker, "a file");
    expect(() => show(table(), { outDir: blocker })).toThrow(
      new RegExp(`plot.show: cannot write a page into ${blocker.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
  });
});
