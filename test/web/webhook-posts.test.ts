// Browser journeys for integration posts against a real server process: webhook posts (BOT badge, override name
// and icon, Slack attachments), the card info button and panel, and script payloads everywhere rendering as inert
// text. Posts are made with @slack/webhook, as integrations make them.
import { IncomingWebhook } from '@slack/webhook';
import type { Browser, Page } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { spawnServer, type ServerProcess } from '../support/process';
import { describeBrowser, launchBrowser, openPage, screenshotPath, signIn, type WatchedPage } from '../support/browser';
import { PASSWORD, createWebWorld, type WebWorld } from '../support/web-world';

let db: TestDatabase;
let server: ServerProcess;
let browser: Browser;
let world: WebWorld;
let hook: IncomingWebhook;

const CARD = ['## Nightly report', '', '| Suite | Passed | Failed |', '|---|---|---|', '| api | 412 | 0 |', '| web | 58 | 1 |', '', 'See the **failing** test in `web/login`.'].join('\n');

describeBrowser('web client: webhook posts', () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    server = await spawnServer({ MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource });
    world = await createWebWorld(server.url);
    await world.admin.put('/api/v4/config/patch', { ServiceSettings: { EnablePostUsernameOverride: true, EnablePostIconOverride: true } });
    const created = await world.admin.post<{ id: string }>('/api/v4/hooks/incoming', { channel_id: world.channels.deploys.id, display_name: 'CI' });
    hook = new IncomingWebhook(`${server.url}/hooks/${created.id}`);
    browser = await launchBrowser();
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await server?.kill();
    await db?.drop();
  });

  const pages: WatchedPage[] = [];
  async function newPage(): Promise<WatchedPage> {
    const w = await openPage(browser);
    pages.push(w);
    return w;
  }
  afterEach(async () => {
    for (const w of pages.splice(0)) await w.context.close();
  });

  const article = (page: Page, id: string) => page.locator(`.post-list article[data-post-id="${id}"]`);

  async function lastPostId(channelId: string): Promise<string> {
    const list = await world.admin.get<{ order: string[] }>(`/api/v4/channels/${channelId}/posts?per_page=1`);
    return list.order[0];
  }

  test('webhook posts: BOT badge always, override name and icon (URL or emoji), attachments rendered; never grouped', async () => {
    const iconUrl = `${server.url}/favicon.svg`;
    await hook.send({
      text: 'Deploy of **api** finished',
      username: 'ci-bot',
      icon_url: iconUrl,
      attachments: [
        {
          fallback: 'Deploy finished',
          color: '#36a64f',
          pretext: 'Pipeline **#1234** passed',
          author_name: 'GitLab CI',
          author_link: 'https://gitlab.example.com/',
          author_icon: iconUrl,
          title: 'api@3f2a91c',
          title_link: 'https://gitlab.example.com/p/1234',
          text: 'All **142** tests passed in `3m 12s`.',
          fields: [
            { title: 'Environment', value: 'production', short: true },
            { title: 'Duration', value: '3m 12s', short: true },
            { title: 'Changes', value: '- fix login\n- faster history', short: false },
          ],
          image_url: iconUrl,
          thumb_url: iconUrl,
          footer: `GitLab ${'f'.repeat(400)}`,
          footer_icon: iconUrl,
          ts: '1700000000',
        },
      ],
    });
    const withUrl = await lastPostId(world.channels.deploys.id);
    await hook.send({ text: 'Nightly report ready', username: 'reporter', icon_emoji: 'rocket' });
    const withEmoji = await lastPostId(world.channels.deploys.id);
    await hook.send({ text: 'Second in a row, same hook' });
    const plain = await lastPostId(world.channels.deploys.id);

    const { page, dialogs, errors } = await newPage();
    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/deploys');
    const first = article(page, withUrl);
    await first.waitFor();
    await expect(first.locator('.post__author').textContent()).resolves.toBe('ci-bot');
    await expect(first.locator('.post__header .bot-tag').textContent()).resolves.toBe('BOT');
    await expect(first.locator('img.avatar').getAttribute('src')).resolves.toBe(iconUrl);
    // Attachment: colour bar, pretext, author (link, icon), title link, Markdown text, fields, image, thumb, footer.
    const box = first.locator('.attachment__box');
    await expect(box.evaluate((el) => el.ownerDocument.defaultView?.getComputedStyle(el).borderLeftColor)).resolves.toBe('rgb(54, 166, 79)');
    await expect(first.locator('.attachment__pretext strong').textContent()).resolves.toBe('#1234');
    await expect(first.locator('.attachment__author a').getAttribute('href')).resolves.toBe('https://gitlab.example.com/');
    await expect(first.locator('.attachment__author-icon').getAttribute('src')).resolves.toBe(iconUrl);
    await expect(first.locator('.attachment__title a').getAttribute('href')).resolves.toBe('https://gitlab.example.com/p/1234');
    await expect(first.locator('.attachment__title').textContent()).resolves.toBe('api@3f2a91c');
    await expect(first.locator('.attachment__text strong').textContent()).resolves.toBe('142');
    await expect(first.locator('.attachment__text code').textContent()).resolves.toBe('3m 12s');
    // Two short fields share a row; the long one has its own (and its value is Markdown: a list).
    const rows = first.locator('.attachment__fields tbody');
    await expect(rows.count()).resolves.toBe(2);
    await expect(rows.nth(0).locator('th').allTextContents()).resolves.toEqual(['Environment', 'Duration']);
    await expect(rows.nth(0).locator('td').allInnerTexts()).resolves.toEqual(['production', '3m 12s']);
    await expect(rows.nth(1).locator('th').allTextContents()).resolves.toEqual(['Changes']);
    await expect(rows.nth(1).locator('td li').allTextContents()).resolves.toEqual(['fix login', 'faster history']);
    await expect(first.locator('img.attachment__image').getAttribute('src')).resolves.toBe(iconUrl);
    await expect(first.locator('img.attachment__thumb').getAttribute('src')).resolves.toBe(iconUrl);
    const footer = await first.locator('.attachment__footer').textContent();
    expect(footer).toContain(`GitLab ${'f'.repeat(293)}…`);
    expect(footer).not.toContain('f'.repeat(295));
    expect(footer).toContain('Nov 14, 2023');
    await expect(first.locator('img.attachment__footer-icon').getAttribute('src')).resolves.toBe(iconUrl);

    const second = article(page, withEmoji);
    await expect(second.locator('.post__author').textContent()).resolves.toBe('reporter');
    await expect(second.locator('.avatar--emoji').textContent()).resolves.toBe('🚀');
    await expect(second.locator('.bot-tag').count()).resolves.toBe(1);
    // Same hook, same author, seconds apart: still its own header, badge and picture.
    const third = article(page, plain);
    await expect(third.getAttribute('class')).resolves.not.toContain('post--continuation');
    await expect(third.locator('.post__author').textContent()).resolves.toBe('admin');
    await expect(third.locator('.bot-tag').textContent()).resolves.toBe('BOT');
    await expect(third.locator('.avatar--bot').count()).resolves.toBe(1);
    // A human's post has no badge.
    await world.post(world.alice, world.channels.deploys.id, 'Thanks CI!');
    await page.reload();
    const human = page.locator('.post-list article.post', { hasText: 'Thanks CI!' });
    await human.waitFor();
    await expect(human.locator('.bot-tag').count()).resolves.toBe(0);
    await page.screenshot({ path: screenshotPath('webhook-posts') });
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('journey 3: the card icon only on a post with a card; it opens the card Markdown in the right-hand panel; closing returns', async () => {
    await hook.send({ text: 'Nightly build finished', username: 'reporter', props: { card: CARD } } as never);
    const withCard = await lastPostId(world.channels.deploys.id);
    await hook.send({ text: 'No card on this one', username: 'reporter' });
    const withoutCard = await lastPostId(world.channels.deploys.id);

    const { page, errors } = await newPage();
    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/deploys');
    await article(page, withoutCard).waitFor();
    await expect(article(page, withoutCard).getByRole('button', { name: 'Show card' }).count()).resolves.toBe(0);
    const button = article(page, withCard).getByRole('button', { name: 'Show card' });
    await expect(button.count()).resolves.toBe(1);
    // It sits next to the timestamp, in the post's header.
    await expect(article(page, withCard).locator('.post__header time + button.post__card-button').count()).resolves.toBe(1);
    // The card is never shown inline.
    await expect(article(page, withCard).locator('table').count()).resolves.toBe(0);

    await button.click();
    const panel = page.getByRole('complementary', { name: 'Info' });
    await panel.waitFor();
    await expect(panel.getByRole('heading', { name: 'Nightly report' }).evaluate((el) => el.tagName)).resolves.toBe('H2');
    const table = panel.locator('.card-markdown table');
    await expect(table.locator('th').allTextContents()).resolves.toEqual(['Suite', 'Passed', 'Failed']);
    await expect(table.locator('tbody tr').nth(1).locator('td').allTextContents()).resolves.toEqual(['web', '58', '1']);
    await expect(panel.locator('.card-markdown strong').textContent()).resolves.toBe('failing');
    await expect(panel.locator('.rhs__card-meta').textContent()).resolves.toContain('reporter');
    await page.screenshot({ path: screenshotPath('card-panel') });

    await panel.getByRole('button', { name: 'Close card' }).click();
    await panel.waitFor({ state: 'detached' });
    await expect(button.evaluate((el) => el === el.ownerDocument.activeElement)).resolves.toBe(true);
    // And by keyboard: Enter on the focused button opens it, Escape closes it.
    await page.keyboard.press('Enter');
    await panel.waitFor();
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  });

  test('journey 5: script payloads in posts, cards, attachments and override names render as inert text', async () => {
    const payloads = [
      '<script>window.__xss = 1; alert("script")</script>',
      '<img src=x onerror="window.__xss = 2; alert(\'img\')">',
      '[click me](javascript:window.__xss=3;alert(3))',
      '<a href="javascript:alert(4)">raw link</a>',
      '<iframe src="javascript:alert(5)"></iframe>',
      '<svg onload="alert(6)"></svg>',
      '<details open ontoggle="alert(7)">x</details>',
      '![pic](javascript:alert(8))',
      '<style>body{display:none}</style>',
    ];
    const all = payloads.join('\n\n');
    const posted = await world.post(world.bob, world.channels.deploys.id, `Payloads:\n\n${all}`);
    await hook.send({
      text: `Hook text ${payloads[1]}`,
      username: '<img src=x onerror=alert("name")>',
      icon_url: 'javascript:alert("icon")',
      props: { card: `# Card ${payloads[0]}\n\n${all}` },
      attachments: [
        {
          fallback: 'x',
          color: 'red;background:url(javascript:alert(9))',
          pretext: payloads[0],
          author_name: '<b onmouseover=alert(10)>author</b>',
          author_link: 'javascript:alert(11)',
          author_icon: 'javascript:alert(12)',
          title: '<script>alert(13)</script>',
          title_link: 'javascript:alert(14)',
          text: all,
          fields: [
            { title: '<img src=x onerror=alert(15)>', value: payloads[1], short: true },
            { title: 'ok', value: payloads[2], short: true },
          ],
          image_url: 'javascript:alert(16)',
          thumb_url: 'data:text/html,<script>alert(17)</script>',
          footer: '<script>alert(18)</script>',
          footer_icon: 'javascript:alert(19)',
        },
      ],
    } as never);
    const hookPost = await lastPostId(world.channels.deploys.id);

    const { page, dialogs, errors } = await newPage();
    await signIn(page, server.url, 'alice', PASSWORD, '/team-a/channels/deploys');
    const human = article(page, posted.id);
    const bot = article(page, hookPost);
    await human.waitFor();
    await bot.waitFor();
    // Shown as the literal text people typed.
    await expect(human.textContent()).resolves.toContain('<script>window.__xss = 1; alert("script")</script>');
    await expect(human.textContent()).resolves.toContain('<img src=x onerror="window.__xss = 2; alert(\'img\')">');
    await expect(bot.locator('.post__author').textContent()).resolves.toBe('<img src=x onerror=alert("name")>');
    await expect(bot.locator('.attachment__title').textContent()).resolves.toBe('<script>alert(13)</script>');
    await expect(bot.locator('.attachment__footer').textContent()).resolves.toContain('<script>alert(18)</script>');
    await expect(bot.locator('.attachment__fields th').first().textContent()).resolves.toBe('<img src=x onerror=alert(15)>');
    // A javascript: link keeps its text but is no link; clicking it does nothing.
    const fake = human.getByText('click me');
    await expect(fake.evaluate((el) => el.closest('a')?.getAttribute('href') ?? null)).resolves.toBeNull();
    await fake.click();
    // The card, opened.
    await bot.getByRole('button', { name: 'Show card' }).click();
    const panel = page.getByRole('complementary', { name: 'Info' });
    await panel.waitFor();
    await expect(panel.textContent()).resolves.toContain('<script>window.__xss = 1; alert("script")</script>');
    await bot.hover();
    await page.waitForTimeout(500);

    // Nothing ran, nothing was injected.
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await expect(page.evaluate('window.__xss')).resolves.toBeUndefined();
    const injected = await page.evaluate(`(() => {
      const all = [...document.querySelectorAll('*')];
      return {
        scripts: document.querySelectorAll('script').length,
        handlers: all.filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).map((el) => el.outerHTML.slice(0, 80)),
        jsUrls: all.filter((el) => [...el.attributes].some((a) => /^\\s*(javascript|data|vbscript):/i.test(a.value) && a.name !== 'aria-label')).map((el) => el.outerHTML.slice(0, 80)),
        frames: document.querySelectorAll('iframe, object, embed, details, style:not(head style)').length,
        svgs: [...document.querySelectorAll('svg')].filter((s) => !s.classList.contains('icon') && !s.classList.contains('logo')).length,
        imgX: document.querySelectorAll('img[src="x"]').length,
        bodyShown: getComputedStyle(document.body).display,
      };
    })()`);
    expect(injected).toEqual({ scripts: 1, handlers: [], jsUrls: [], frames: 0, svgs: 0, imgX: 0, bodyShown: 'block' });
  });
});
