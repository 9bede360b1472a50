// The client's own sources, bundled by esbuild and run in Chromium, for tests that check pure rendering: components
// rendered against a state object built by hand (no server, no actions run), or a module's output measured in a
// real DOM. One page per describe block, opened in beforeAll and closed in afterAll.
import { build } from 'esbuild';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { projectRoot } from '../../src/spec';
import { launchBrowser } from './browser';

export interface Rendered {
  text: string;
  html: string;
}

/**
 * A page running `entry` (TypeScript/TSX, imports relative to the project root), opened before the block's tests and
 * closed after them. `page()` is the page, for the test's own `evaluate`.
 */
export function useProbePage(entry: string, sourcefile = 'probe.tsx'): { page: () => Page } {
  let browser: Browser | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    const root = projectRoot();
    const bundle = await build({
      stdin: { contents: entry, resolveDir: root, loader: 'tsx', sourcefile },
      absWorkingDir: root,
      bundle: true,
      write: false,
      format: 'iife',
      logLevel: 'silent',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      // Components import their area's CSS (web/src/styles/*.css); a probe checks markup only.
      loader: { '.css': 'empty' },
      tsconfig: join(root, 'web', 'tsconfig.json'),
    });
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    await page.addScriptTag({ content: bundle.outputFiles[0].text });
  }, 60000);
  afterAll(async () => {
    await browser?.close();
  });
  return {
    page: () => {
      if (!page) throw new Error('the probe page is opened in beforeAll');
      return page;
    },
  };
}

/**
 * Components rendered from a state: `imports` are import lines of the client's components (paths from the project
 * root), `components` a JavaScript object literal of name → `(state) => vnode` (Preact's `h` is in scope). `render`
 * mounts one of them in a store holding `{ ...initialState, ...state, ...patch }` and reads the DOM back.
 */
export function useStateRenderer(opts: { imports: string; components: string; state: object }): { render(component: string, patch?: object): Promise<Rendered>; page: () => Page } {
  const probe = useProbePage(`
    import { render, h } from 'preact';
    import { createStore } from './web/src/state/store';
    import { initialState } from './web/src/state/app-state';
    import { StoreContext } from './web/src/state/use-store';
    ${opts.imports}
    const components = ${opts.components};
    window.renderWith = async (name, patch) => {
      const state = { ...initialState, ...patch };
      const el = document.createElement('div');
      document.body.replaceChildren(el);
      render(h(StoreContext.Provider, { value: createStore(state) }, components[name](state)), el);
      await new Promise((r) => setTimeout(r, 0));
      return { text: el.innerText, html: el.innerHTML };
    };
  `, 'render-probe.tsx');
  return {
    page: probe.page,
    render: (component, patch = {}) =>
      probe.page().evaluate(([c, p]) => (globalThis as unknown as { renderWith(c: string, p: object): Promise<Rendered> }).renderWith(c, p), [component, { ...opts.state, ...patch }] as const),
  };
}
