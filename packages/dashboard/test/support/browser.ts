/**
 * Browser support for the dashboard tests: Debian's Chromium driven by playwright-core (nothing downloads a
 * browser), a page that records console errors and failed requests, and screenshots into a git-ignored folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** Where the tests write their screenshots (ignored by git). */
export const SCREENSHOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../screenshots');

const DOC_IMAGES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../docs/images');

/**
 * Where a screenshot the documentation shows is written: `docs/images/` under `npm run docs:images`
 * (DOC_IMAGES=1), else beside the other screenshots, so an ordinary test run leaves the work tree clean.
 */
export function docImagePath(file: string): string {
  const dir = process.env.DOC_IMAGES === '1' ? DOC_IMAGES : SCREENSHOT_DIR;
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, file);
}

/** The Chromium executable: CHROMIUM_PATH, else the usual Debian paths; throws how to install it when none. */
export function chromiumPath(): string {
  const named = process.env.CHROMIUM_PATH;
  if (named !== undefined && named !== '') {
    if (!fs.existsSync(named)) throw new Error(`CHROMIUM_PATH=${named} does not exist`);
    return named;
  }
  const found = CANDIDATES.find((p) => fs.existsSync(p));
  if (found === undefined) {
    throw new Error('No Chromium found for the dashboard browser tests. Install it with `apt-get update && apt-get install -y chromium` (Debian/Ubuntu), or set CHROMIUM_PATH to a Chromium or Chrome executable.');
  }
  return found;
}

/** Launches headless Chromium. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
}

/** A page plus what went wrong on it: console errors, uncaught exceptions, failed or >= 400 requests. */
export interface WatchedPage {
  page: Page;
  /** Problems seen since the last `takeProblems()`. */
  problems: string[];
  /** Returns and clears the problems; `allow` filters out expected ones (e.g. a 401 in the JWT test). */
  takeProblems(allow?: (problem: string) => boolean): string[];
}

/** Opens a 1440x900 page on `browser` that records problems. */
export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => {});
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (req) => {
    const failure = req.failure()?.errorText ?? '';
    // A navigation or a re-render that abandons a fetch is not a failure of the page.
    if (!failure.includes('ERR_ABORTED')) problems.push(`request failed: ${req.method()} ${req.url()} ${failure}`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.request().method()} ${res.url()}`);
  });
  return {
    page,
    problems,
    takeProblems(allow) {
      const out = problems.splice(0).filter((p) => allow === undefined || !allow(p));
      return out;
    },
  };
}

/** Saves a full-page screenshot as `<name>.png` in SCREENSHOT_DIR. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** The live browser page of a `useBrowser()` set-up. */
export interface BrowserSetup {
  readonly browser: Browser;
  readonly watched: WatchedPage;
  readonly page: Page;
}

/**
 * One Chromium and one watched page for the whole file: launched in `before`, closed in `after` (register at
 * module level). The getters throw if used before the `before` hook ran.
 */
export function useBrowser(): BrowserSetup {
  let browser: Browser | undefined;
  let watched: WatchedPage | undefined;
  before(async () => {
    browser = await launchBrowser();
    watched = await watchedPage(browser);
  });
  after(async () => {
    await browser?.close();
  });
  const live = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useBrowser(): used before the `before` hook ran');
    return value;
  };
  return {
    get browser() {
      return live(browser);
    },
    get watched() {
      return live(watched);
    },
    get page() {
      return live(watched).page;
    },
  };
}
