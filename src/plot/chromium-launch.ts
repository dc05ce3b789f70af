/**
 * Starting Chromium through playwright-core, in a module of its own: its declarations name
 * playwright-core's types (52,000 lines), which a kernel that type-checks each cell (tslab) would read
 * with the package if a module the package's root reaches named them.
 */
import { CHROMIUM_ARGS, findChromium, PngExportError, type BrowserOptions } from "./chromium";

type Playwright = typeof import("playwright-core");
type Browser = import("playwright-core").Browser;

function loadPlaywright(what: string): Playwright {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require("playwright-core") as Playwright;
  } catch (error) {
    throw new PngExportError(
      `${what} needs the npm package playwright-core (it drives Chromium): \`npm install playwright-core\`. No browser is downloaded; a system Chromium is used.`,
      "playwright-core",
      { cause: error },
    );
  }
}

/**
 * Starts the system's headless Chromium (see {@link findChromium}) through playwright-core, with
 * {@link CHROMIUM_ARGS}; throws {@link PngExportError} naming what is missing. `what` names the feature
 * in the message (`toPng`, `export --to pdf`). Close the browser when done.
 */
export async function launchChromium(options: BrowserOptions = {}, what = "toPng"): Promise<Browser> {
  const found = findChromium(options.chromiumPath);
  if (!found.path) {
    throw new PngExportError(
      `${what} needs Chromium, and none was found (tried ${found.tried.join(", ")}). Install it (Debian/Ubuntu: \`apt-get install -y chromium\`; in this repo \`bash scripts/setup-chromium.sh\`), or pass { chromiumPath } / set RISK_PORTAL_LAB_CHROMIUM to a Chromium or Chrome executable.`,
      "chromium",
    );
  }
  const { chromium } = loadPlaywright(what);
  const timeout = options.timeoutMs ?? 60_000;
  try {
    return await chromium.launch({ executablePath: found.path, headless: true, args: [...CHROMIUM_ARGS], timeout });
  } catch (error) {
    throw new PngExportError(
      `${what} could not start Chromium at ${found.path}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
      "chromium",
      { cause: error },
    );
  }
}
