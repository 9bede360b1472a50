// Browser journeys of issue #25's "Everywhere people use it", each on a fresh server: the dark theme chosen in the
// account settings, kept in the user's preferences (Mattermost's `theme` / `display_settings` `theme_auto_switch`),
// shown by another browser of the same user and live in an open one; "Sync with system" following the browser's
// colour scheme; axe (WCAG 2.1 A/AA) in the dark theme on the main screens; and the phone viewport (390×844): the
// sidebar as a drawer, the thread full screen, 44px touch targets, no sideways scrolling.
import type { Locator, Page } from 'playwright-core';
import { describeBrowser, signIn } from '../support/browser';
import { eventually } from '../support/eventually';
import { Journeys, axe, docsShot } from '../support/web-journey';
import { PASSWORD, createWebWorld, type WebWorld } from '../support/web-world';

const journeys = new Journeys();
// Each journey opens several browsers and many screens: on a busy shared machine that takes more than the default.
jest.setTimeout(180_000);

const WHITE = 'rgb(255, 255, 255)';
const ONYX_CENTER = 'rgb(25, 27, 31)';

const themeAttr = (page: Page) => page.evaluate<string | null>(`document.documentElement.getAttribute('data-theme')`);
const pageBackground = (page: Page) => page.evaluate<string>(`getComputedStyle(document.querySelector('.center') ?? document.body).backgroundColor`);

async function openAccountSettings(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'account menu' }).click();
  await page.getByRole('menuitem', { name: 'Account settings' }).click();
  await page.getByRole('heading', { name: 'Account settings' }).waitFor();
}

async function chooseTheme(page: Page, name: 'Light' | 'Dark' | 'Sync with system'): Promise<void> {
  await page.getByRole('radio', { name, exact: true }).check();
  await page.getByText('Your theme was saved.').waitFor();
}

type Pref = { category: string; name: string; value: string };
const themePrefs = async (world: WebWorld): Promise<Pref[]> =>
  (await world.alice.get<Pref[]>(`/api/v4/users/${world.alice.id}/preferences`))
    .filter((p) => p.category === 'theme' || p.category === 'theme_dark' || p.name === 'theme_auto_switch')
    .map(({ category, name, value }) => ({ category, name, value }))
    .sort((a, b) => a.category.localeCompare(b.category));

/** The element's box is at least 44×44 CSS pixels (WCAG 2.5.5's size, the issue's touch target). */
async function expectTouchTarget(target: Locator): Promise<void> {
  const box = await target.boundingBox();
  expect(box).not.toBeNull();
  expect(Math.round(box!.width)).toBeGreaterThanOrEqual(44);
  expect(Math.round(box!.height)).toBeGreaterThanOrEqual(44);
}

const scrollWidth = (page: Page) => page.evaluate<number>(`document.scrollingElement.scrollWidth`);

describeBrowser('web client: themes and phones', () => {
  journeys.hooks();

  test('dark theme chosen in the account settings: saved to the server, shown by a second browser, live in an open one', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const page = await journeys.page();
    await signIn(page, url, 'alice', PASSWORD, '/team-a/channels/town-square');
    // Nothing stored: the page follows the system (light here).
    await expect(themeAttr(page)).resolves.toBeNull();
    await expect(pageBackground(page)).resolves.toBe(WHITE);

    // Another browser of alice's, already open.
    const other = await journeys.page();
    await signIn(other, url, 'alice', PASSWORD, '/team-a/channels/off-topic');

    await openAccountSettings(page);
    await expect(page.getByRole('radio', { name: 'Sync with system', exact: true }).isChecked()).resolves.toBe(true);
    await chooseTheme(page, 'Dark');
    await expect(themeAttr(page)).resolves.toBe('dark');
    await expect(pageBackground(page)).resolves.toBe(ONYX_CENTER);
    const saved = await themePrefs(world);
    expect(saved.map((p) => [p.category, p.name, p.category === 'theme' ? JSON.parse(p.value).type : p.value])).toEqual([
      ['display_settings', 'theme_auto_switch', 'false'],
      ['theme', '', 'Onyx'],
    ]);
    expect(await axe(page)).toEqual([]);

    // The open browser turns dark by itself (preferences_changed), without a reload.
    await eventually(async () => expect(await themeAttr(other)).toBe('dark'));
    await expect(pageBackground(other)).resolves.toBe(ONYX_CENTER);

    // A browser signing in afterwards starts dark.
    const third = await journeys.page();
    await signIn(third, url, 'alice', PASSWORD, '/team-a/channels/town-square');
    await expect(themeAttr(third)).resolves.toBe('dark');
    await world.post(world.bob, world.channels.townSquare.id, 'Dark mode looks **good** — see `theme_dark` in the docs.');
    await third.locator('.post-list article.post', { hasText: 'Dark mode looks' }).waitFor();
    expect(await axe(third)).toEqual([]);
    await third.mouse.move(1, 1);
    await third.screenshot({ path: docsShot('dark') });

    // Back to light: both follow.
    await chooseTheme(page, 'Light');
    await expect(themeAttr(page)).resolves.toBe('light');
    await eventually(async () => expect(await themeAttr(other)).toBe('light'));
    await expect(pageBackground(other)).resolves.toBe(WHITE);
  });

  test("sync with system follows the browser's colour scheme, before and after sign-in, and a stored choice wins over it", async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const page = await journeys.page({ colorScheme: 'dark' });
    await page.goto(`${url}/login`);
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    // Signed out: the system's dark, by CSS alone.
    await expect(themeAttr(page)).resolves.toBeNull();
    await expect(page.evaluate<string>(`getComputedStyle(document.querySelector('.login__card')).backgroundColor`)).resolves.not.toBe(WHITE);
    expect(await axe(page)).toEqual([]);

    await signIn(page, url, 'alice', PASSWORD, '/team-a/channels/town-square');
    await expect(pageBackground(page)).resolves.toBe(ONYX_CENTER);
    await page.emulateMedia({ colorScheme: 'light' });
    await expect(pageBackground(page)).resolves.toBe(WHITE);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(pageBackground(page)).resolves.toBe(ONYX_CENTER);

    // A chosen light theme wins over the system's dark; "Sync with system" gives it back.
    await openAccountSettings(page);
    await chooseTheme(page, 'Light');
    await expect(pageBackground(page)).resolves.toBe(WHITE);
    await chooseTheme(page, 'Sync with system');
    await expect(themeAttr(page)).resolves.toBeNull();
    await expect(pageBackground(page)).resolves.toBe(ONYX_CENTER);
    const saved = await themePrefs(world);
    expect(saved.map((p) => [p.category, p.name, p.category === 'display_settings' ? p.value : JSON.parse(p.value).type])).toEqual([
      ['display_settings', 'theme_auto_switch', 'true'],
      ['theme', '', 'Denim'],
      ['theme_dark', '', 'Onyx'],
    ]);

    // Another browser of the same user with a light system shows light.
    const light = await journeys.page({ colorScheme: 'light' });
    await signIn(light, url, 'alice', PASSWORD, '/team-a/channels/town-square');
    await expect(pageBackground(light)).resolves.toBe(WHITE);
  });

  test('axe finds nothing in the dark theme: channel view, thread panel, account settings, dialogs', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const root = await world.post(world.bob, world.channels.townSquare.id, 'Release notes are ready for @alice to review: https://example.com/notes');
    await world.post(world.alice, world.channels.townSquare.id, 'On it.', { root_id: root.id });
    await world.post(world.alice, world.channels.townSquare.id, 'A table:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n\n```\ncode\n```');
    const page = await journeys.page({ colorScheme: 'dark' });
    await signIn(page, url, 'alice', PASSWORD, '/team-a/channels/town-square');
    await page.locator('.post-list article.post', { hasText: 'A table' }).waitFor();
    await expect(pageBackground(page)).resolves.toBe(ONYX_CENTER);
    expect(await axe(page)).toEqual([]);

    // The thread panel.
    await page.getByRole('button', { name: /1 reply/ }).click();
    await page.getByRole('complementary', { name: 'Thread' }).waitFor();
    expect(await axe(page)).toEqual([]);
    await page.keyboard.press('Escape');

    // A dialog: the team menu's invite dialog.
    await page.getByRole('button', { name: 'team menu' }).click();
    await page.getByRole('menuitem', { name: 'Invite people' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await axe(page)).toEqual([]);
    await page.keyboard.press('Escape');

    // A confirmation dialog: deleting one's own post.
    const own = page.locator('.post-list article.post', { hasText: 'A table' });
    await own.hover();
    await own.getByRole('button', { name: 'Delete message' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await axe(page)).toEqual([]);
    await page.keyboard.press('Escape');

    await openAccountSettings(page);
    expect(await axe(page)).toEqual([]);
  });

  test('phone (390×844): the sidebar as a drawer, switch channel, post, a thread full screen and back, 44px targets, no sideways scroll', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const root = await world.post(world.bob, world.channels.offTopic.id, 'Anyone up for lunch? https://example.com/a-very-long-link-that-should-wrap-and-never-push-the-page-sideways-on-a-phone');
    const page = await journeys.page({ width: 390, height: 844, hasTouch: true });
    await signIn(page, url, 'alice', PASSWORD, '/team-a/channels/town-square');
    const menu = page.getByRole('button', { name: 'Channel list' });
    const drawer = page.locator('#drawer');
    await expect(page.getByRole('navigation', { name: 'Channels' }).isVisible()).resolves.toBe(false);
    await expectTouchTarget(menu);
    await expectTouchTarget(page.getByRole('button', { name: 'Send message' }));
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: docsShot('phone-channel') });

    // The drawer: opened by the menu button, focus inside, closed by Escape (focus back), and by a tap outside.
    await menu.click();
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('true');
    await page.getByRole('dialog', { name: 'Channel list' }).waitFor();
    await expect(page.evaluate<boolean>(`!!document.activeElement?.closest('#drawer')`)).resolves.toBe(true);
    await expect(page.evaluate<string | null>(`document.activeElement?.getAttribute('data-channel')`)).resolves.toBe('town-square');
    for (const item of await drawer.locator('.sidebar__item').all()) await expectTouchTarget(item);
    await expectTouchTarget(drawer.getByRole('button', { name: 'account menu' }));
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: docsShot('phone-drawer') });
    await page.keyboard.press('Escape');
    await page.getByRole('navigation', { name: 'Channels' }).waitFor({ state: 'hidden' });
    await expect(page.evaluate<string>(`document.activeElement?.id`)).resolves.toBe('drawer-button');
    await menu.click();
    await page.getByRole('dialog', { name: 'Channel list' }).waitFor();
    await page.mouse.click(380, 420);
    await page.getByRole('navigation', { name: 'Channels' }).waitFor({ state: 'hidden' });

    // Switch channel from the drawer: it closes, the channel shows.
    await menu.click();
    await drawer.getByRole('link', { name: 'Off-Topic' }).click();
    await page.waitForURL(`${url}/team-a/channels/off-topic`);
    await page.getByRole('heading', { name: 'Off-Topic', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Channels' }).waitFor({ state: 'hidden' });
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('false');

    // Post with the composer's send button.
    const composer = page.getByRole('textbox', { name: 'Write to #Off-Topic' });
    await composer.fill('Count me in');
    await page.getByRole('button', { name: 'Send message' }).click();
    await page.locator('.post-list article.post', { hasText: 'Count me in' }).waitFor();
    await eventually(async () => {
      const posts = await world.admin.get<{ order: string[]; posts: Record<string, { message: string }> }>(`/api/v4/channels/${world.channels.offTopic.id}/posts`);
      expect(Object.values(posts.posts).map((p) => p.message)).toContain('Count me in');
    });

    // A thread, full screen, and back.
    const post = page.locator('.post-list article.post', { hasText: 'Anyone up for lunch?' });
    await post.tap();
    const reply = post.getByRole('button', { name: 'Reply', exact: true });
    await expectTouchTarget(reply);
    await reply.click();
    const panel = page.getByRole('complementary', { name: 'Thread' });
    await panel.waitFor();
    const box = await panel.boundingBox();
    expect(box).toEqual({ x: 0, y: 0, width: 390, height: 844 });
    const close = panel.getByRole('button', { name: 'Close thread' });
    await expectTouchTarget(close);
    await panel.getByRole('textbox', { name: 'Reply to thread' }).fill('Noon works');
    await panel.getByRole('button', { name: 'Send message' }).click();
    // Sent (a pending post is drawn faded until the server has it).
    await panel.locator('article.post:not(.post--pending)', { hasText: 'Noon works' }).waitFor();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: docsShot('phone-thread') });
    await close.click();
    await expect(panel.count()).resolves.toBe(0);
    await expect(page.evaluate<string | null>(`document.activeElement?.getAttribute('aria-label')`)).resolves.toBe('Reply');
    const thread = await world.admin.get<{ posts: Record<string, { message: string }> }>(`/api/v4/posts/${root.id}/thread`);
    expect(Object.values(thread.posts).map((p) => p.message)).toContain('Noon works');
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
  });
});
