// The main screens with a realistic conversation, rendered together and saved as screenshots
// (test-output/screenshots; the README's pictures in docs/ come from here). Asserts that they render, in one page,
// without errors: text, Markdown, mentions, a webhook post with an attachment and a card, a thread, the panels.
import { IncomingWebhook } from '@slack/webhook';
import type { Browser } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { spawnServer, type ServerProcess } from '../support/process';
import { describeBrowser, launchBrowser, openPage, screenshotPath, signIn } from '../support/browser';
import { PASSWORD, createWebWorld, type WebWorld } from '../support/web-world';

let db: TestDatabase;
let server: ServerProcess;
let browser: Browser;
let world: WebWorld;
let rootId = '';

describeBrowser('web client: main screens', () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    server = await spawnServer({ MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource });
    world = await createWebWorld(server.url);
    const { admin, alice, bob, channels } = world;
    await admin.put('/api/v4/config/patch', { ServiceSettings: { EnablePostUsernameOverride: true, EnablePostIconOverride: true } });
    const ops = await admin.post<{ id: string }>('/api/v4/teams', { name: 'ops', display_name: 'Operations', type: 'O' });
    await admin.post(`/api/v4/teams/${ops.id}/members`, { team_id: ops.id, user_id: alice.id });
    const ts = channels.townSquare.id;
    const root = await world.post(alice, ts, 'Good morning! :wave: The **2.4 release** is planned for Thursday.\n\n1. Code freeze at noon\n2. QA sign-off\n3. Ship it :rocket:');
    rootId = root.id;
    await world.post(alice, ts, 'Please read `docs/release.md` before then.');
    await world.post(bob, ts, '@alice sounds good. I will run the migration dry-run today:\n\n```sql\nSELECT count(*) FROM posts WHERE delete_at = 0;\n```');
    await world.post(bob, ts, 'I can take the QA sign-off.', { root_id: root.id });
    await world.post(alice, ts, 'Thanks @bob! :tada:', { root_id: root.id });
    await world.post(admin, ts, 'Heads-up for @channel: staging is down 14:00–15:00 for the database upgrade.');
    const hook = await admin.post<{ id: string }>('/api/v4/hooks/incoming', { channel_id: ts, display_name: 'CI' });
    await new IncomingWebhook(`${server.url}/hooks/${hook.id}`).send({
      text: 'Deploy of **api** to production finished',
      username: 'ci-bot',
      icon_url: `${server.url}/favicon.svg`,
      props: { card: '## Deploy report\n\n| Service | Version | Status |\n|---|---|---|\n| api | 2.4.0 | :white_check_mark: healthy |\n| web | 2.4.0 | :white_check_mark: healthy |\n| worker | 2.3.9 | :warning: pending |\n\n**Duration:** 3m 12s · **Triggered by:** @alice' },
      attachments: [
        {
          fallback: 'Deploy finished',
          color: '#36a64f',
          pretext: 'Pipeline **#1234** passed',
          author_name: 'GitLab CI',
          author_link: 'https://gitlab.example.com/',
          title: 'api@3f2a91c: faster channel history',
          title_link: 'https://gitlab.example.com/p/1234',
          text: 'All **142** tests passed in `3m 12s`.',
          fields: [
            { title: 'Environment', value: 'production', short: true },
            { title: 'Duration', value: '3m 12s', short: true },
          ],
          footer: 'GitLab',
          ts: 1700000000,
        },
      ],
    } as never);
    await new IncomingWebhook(`${server.url}/hooks/${hook.id}`).send({ text: 'Disk usage on **db-2** above 90%', username: 'monitor', icon_emoji: 'rotating_light', attachments: [{ fallback: 'x', color: 'danger', title: 'db-2: 91% used', fields: [{ title: 'Host', value: 'db-2', short: true }, { title: 'Used', value: '91%', short: true }] }] });
    await world.post(bob, channels.deploys.id, '@alice the rollout needs your approval');
    await world.post(bob, channels.offTopic.id, 'Lunch at 12?');
    const dm = await bob.post<{ id: string }>('/api/v4/channels/direct', [bob.id, alice.id]);
    await world.post(bob, dm.id, 'Hi Alice, do you have a minute?');
    browser = await launchBrowser();
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await server?.kill();
    await db?.drop();
  });

  test('channel view, thread, card panel, login', async () => {
    const w = await openPage(browser, { width: 1280, height: 820 });
    const { page } = w;
    // The reader's view: the newest posts, nothing hovered.
    const settle = async () => {
      await page.mouse.move(1, 1);
      await page.locator('.post-list').evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await page.waitForTimeout(250);
    };
    await page.goto(`${server.url}/login`);
    await page.getByLabel('Email or username').fill('alice');
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').waitFor();
    await page.screenshot({ path: screenshotPath('screen-login-error') });

    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/town-square');
    await page.locator('.attachment').nth(1).waitFor();
    await page.locator('.sidebar a[data-channel="deploys"] .badge').waitFor();
    await settle();
    await page.screenshot({ path: screenshotPath('screen-channel') });

    await page.locator(`article[data-post-id="${rootId}"] .post__replies`).click();
    await page.getByRole('complementary', { name: 'Thread' }).locator('article').nth(2).waitFor();
    await settle();
    await page.screenshot({ path: screenshotPath('screen-thread') });

    await page.getByRole('button', { name: 'Show card' }).click();
    await page.getByRole('complementary', { name: 'Info' }).locator('table').waitFor();
    await settle();
    await page.screenshot({ path: screenshotPath('screen-card') });
    expect(w.errors).toEqual([]);
    expect(w.dialogs).toEqual([]);
    await w.context.close();
  });
});
