import type { Page } from 'playwright-core';
import { describeBrowser, launchBrowser, signIn } from '../support/browser';
import { eventually } from '../support/eventually';
import { Journeys } from '../support/web-journey';
import { PASSWORD, createWebWorld } from '../support/web-world';

const journeys = new Journeys();
jest.setTimeout(150_000);

describeBrowser('debug', () => {
  beforeAll(async () => {
    journeys.browser = await launchBrowser();
  }, 60000);
  afterAll(async () => {
    await journeys.browser?.close();
  });
  afterEach(() => journeys.finish());
  test('debug', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    for (const c of Object.values(world.channels)) await world.alice.post('/api/v4/channels/members/me/view', { channel_id: c.id });
    const page: Page = await journeys.page();
    await page.context().grantPermissions(['notifications'], { origin: url });
    const log: string[] = [];
    page.on('websocket', (ws) => {
      log.push(`WS open ${ws.url()}`);
      ws.on('framereceived', (f) => log.push(`<- ${String(f.payload).slice(0, 300)}`));
    });
    page.on('request', (r) => { if (r.url().includes('/api/v4/')) log.push(`REQ ${r.method()} ${r.url().replace(url, '')}`); });
    page.on('response', async (r) => { if (r.url().includes('members')) log.push(`RES ${r.url().replace(url, '')} ${(await r.text().catch(() => '')).slice(0, 1500)}`); });
    await signIn(page, url, 'alice', PASSWORD, '/team-a/channels/town-square');
    await page.locator('.sidebar a[data-channel="deploys"]').waitFor();
    log.push(`TITLE0 ${await page.title()}`);
    await new Promise((r) => setTimeout(r, 1500));
    log.push('--- POST');
    await world.post(world.bob, world.channels.deploys.id, '@alice hi');
    await eventually(async () => expect(await page.title()).not.toBe('Town Square - Team A Parley'));
    await new Promise((r) => setTimeout(r, 1500));
    log.push(`TITLE1 ${await page.title()}`);
    console.log(log.join('\n'));
  });
});
