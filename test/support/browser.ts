import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { projectRoot } from '../../src/spec';

/**
 * Real-browser support for test/web: Debian's Chromium (chromium-headless-shell) driven by playwright-core, which
 * never downloads a browser. CHROME_PATH wins; else the Debian binaries. Outside CI a machine without a browser
 * skips the browser suites loudly; in CI (CI=true) they run and fail, so a missing install step cannot pass
 * unnoticed.
 */

function which(name: string): string | undefined {
  try {
    return execFileSync('which', [name], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export function findChrome(): string | undefined {
  const candidates = [process.env.CHROME_PATH, '/usr/bin/chromium-headless-shell', which('chromium-headless-shell'), '/usr/bin/chromium', which('chromium')];
  return candidates.find((p): p is string => !!p && existsSync(p));
}

const inCi = process.env.CI === 'true' || process.env.CI === '1';

/** `describe` for a browser suite: skipped (with a loud warning) only when there is no browser and not in CI. */
export function describeBrowser(name: string, fn: () => void): void {
  if (findChrome() || inCi) {
    describe(name, fn);
    return;
  }
  process.stderr.write(
    `\n*** SKIPPED browser suite "${name}": no Chromium found. Install it (apt-get install --no-install-recommends ` +
      `chromium-headless-shell) or set CHROME_PATH. In CI this is a failure. ***\n`,
  );
  describe.skip(name, fn);
}

export async function launchBrowser(): Promise<Browser> {
  const executablePath = findChrome();
  if (!executablePath) {
    throw new Error('No Chromium found for the browser tests: apt-get install --no-install-recommends chromium-headless-shell, or set CHROME_PATH.');
  }
  return chromium.launch({ executablePath });
}

/** Screenshots go to test-output/screenshots (ignored by git). */
export function screenshotPath(name: string): string {
  const dir = join(projectRoot(), 'test-output', 'screenshots');
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.png`);
}

/** A page that records what must never happen: dialogs (alert/confirm/prompt from injected script) and page errors. */
export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  dialogs: string[];
  errors: string[];
}

export async function openPage(browser: Browser, opts: { width?: number; height?: number; colorScheme?: 'light' | 'dark'; hasTouch?: boolean } = {}): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 800 },
    locale: 'en-US',
    timezoneId: 'UTC',
    // The system's light or dark appearance (light unless asked), and a phone's touch screen.
    colorScheme: opts.colorScheme ?? 'light',
    hasTouch: opts.hasTouch ?? false,
  });
  const page = await context.newPage();
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return { page, context, dialogs, errors };
}

/** Signs in through the login form and waits for the channel view. */
export async function signIn(page: Page, baseUrl: string, username: string, password: string, path = '/'): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.getByLabel('Email or username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.locator('.channel-header').waitFor();
}
