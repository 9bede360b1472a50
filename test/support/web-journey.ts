import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { projectRoot } from '../../src/spec';
import { createTestDatabase, type TestDatabase } from './database';
import { spawnServer, type ServerProcess } from './process';
import { launchBrowser, openPage, type WatchedPage } from './browser';

/**
 * What every browser journey of test/web shares: axe (WCAG 2.1 A/AA) in the page, pages that record CSP violations
 * as well as dialogs and errors, a fresh server per journey, and the README's pictures in docs/.
 */

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Runs axe in the page (through the DevTools protocol, which the page's CSP does not govern); one line per node. */
export async function axe(page: Page): Promise<string[]> {
  const violations = (await page.evaluate(`(async () => {
    if (!window.axe) { ${AXE}\n }
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  })()`)) as Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[]; failureSummary: string }> }>;
  return violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help} at ${n.target.join(' ')}: ${n.failureSummary}`));
}

/** The README's pictures: docs/web-<name>.png. */
export const docsShot = (name: string): string => join(projectRoot(), 'docs', `web-${name}.png`);

export type JourneyPage = WatchedPage & { csp: string[] };

/**
 * One suite's journeys: `fresh()` starts a server on a new database, `page()` opens a watched page (a second call is
 * a second browser context: another person), and `finish()` (in afterEach) asserts that no page saw a page error, a
 * dialog or a Content-Security-Policy violation, then closes everything.
 */
export class Journeys {
  browser!: Browser;
  db?: TestDatabase;
  server?: ServerProcess;
  private pages: JourneyPage[] = [];

  /** The suite's hooks, called inside its describeBrowser: a browser for the suite, `finish()` after each journey. */
  hooks(): void {
    beforeAll(async () => {
      this.browser = await launchBrowser();
    }, 60000);
    afterAll(async () => {
      await this.browser?.close();
    });
    afterEach(() => this.finish(), 120000);
  }

  async fresh(env: Record<string, string> = {}): Promise<string> {
    this.db = await createTestDatabase();
    this.server = await spawnServer({ MM_SQLSETTINGS_DRIVERNAME: this.db.driver, MM_SQLSETTINGS_DATASOURCE: this.db.dataSource, ...env });
    return this.server.url;
  }

  async page(opts: { width?: number; height?: number; colorScheme?: 'light' | 'dark'; hasTouch?: boolean } = {}): Promise<Page> {
    const w = await openPage(this.browser, opts);
    const csp: string[] = [];
    w.page.on('console', (m: ConsoleMessage) => {
      if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
    });
    this.pages.push({ ...w, csp });
    return w.page;
  }

  /**
   * As hooks(), for a suite whose journeys share one server (its `fresh()` in a beforeAll after this call): each
   * journey's pages are checked and closed after it, the server after the last journey.
   */
  sharedHooks(): void {
    beforeAll(async () => {
      this.browser = await launchBrowser();
    }, 60000);
    afterAll(async () => {
      await this.stopServer();
      await this.browser?.close();
    }, 60000);
    afterEach(() => this.closePages(), 60000);
  }

  async finish(): Promise<void> {
    try {
      await this.closePages();
    } finally {
      await this.stopServer();
    }
  }

  /** Asserts that no page saw a page error, a dialog or a CSP violation, and closes them all. */
  async closePages(): Promise<void> {
    const pages = this.pages.splice(0);
    try {
      for (const w of pages) {
        expect(w.errors).toEqual([]);
        expect(w.dialogs).toEqual([]);
        expect(w.csp).toEqual([]);
      }
    } finally {
      for (const w of pages) await w.context.close();
    }
  }

  private async stopServer(): Promise<void> {
    await this.server?.kill();
    await this.db?.drop();
    this.server = undefined;
    this.db = undefined;
  }
}
