// Browser journeys of desktop notifications (issue #24, web client), each on a fresh server: a mention in another
// channel raises a browser notification (title, body, icon) and clicking it opens the post; the channel being looked
// at and a muted channel raise none; the tab title carries the mention count and the favicon a dot; permission is
// asked only from the banner's button; the account's and a channel's notification settings are saved on the server
// and read back by a second browser. Notifications are observed by wrapping window.Notification before the page's
// script runs (the browser's API, recorded; Parley's own code runs unchanged). Every new screen is checked with axe.
import type { Page } from 'playwright-core';
import { describeBrowser, signIn } from '../support/browser';
import { eventually } from '../support/eventually';
import { Journeys, axe, docsShot } from '../support/web-journey';
import { PASSWORD, createWebWorld, type WebWorld } from '../support/web-world';

const journeys = new Journeys();
// Each journey starts a server and up to three browsers; on a busy machine (and on MariaDB) that can pass a minute.
jest.setTimeout(150_000);

interface Seen {
  title: string;
  body: string;
  icon: string;
  tag: string;
}

/**
 * Records every Notification the page makes, and every permission request, before any of the page's script runs
 * (page script: the test's TypeScript has no DOM types, so it is given as text).
 */
const RECORD_NOTIFICATIONS = `(() => {
  const Real = window.Notification;
  window.__seen = [];
  window.__shown = [];
  window.__asked = 0;
  const Recorded = function (title, options = {}) {
    window.__seen.push({ title, body: options.body || '', icon: options.icon || '', tag: options.tag || '' });
    const n = new Real(title, options);
    window.__shown.push(n);
    return n;
  };
  Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
  Recorded.requestPermission = () => {
    window.__asked++;
    return Real.requestPermission();
  };
  window.Notification = Recorded;
})();`;

const THREAD_REPLIES = "Notify me about replies to threads I'm following";
const seen = (page: Page): Promise<Seen[]> => page.evaluate('window.__seen') as Promise<Seen[]>;
const asked = (page: Page): Promise<number> => page.evaluate('window.__asked') as Promise<number>;
const article = (page: Page, id: string) => page.locator(`.post-list article[data-post-id="${id}"]`);
const sidebarLink = (page: Page, name: string) => page.locator(`.sidebar a[data-channel="${name}"]`);
const favicon = (page: Page) => page.locator('link[rel="icon"]').getAttribute('href');

/** A signed-in page of `username` whose notifications are recorded; `grant` gives the page notification permission. */
async function notifiedPage(url: string, username: string, path: string, grant = true): Promise<Page> {
  const page = await journeys.page();
  if (grant) await page.context().grantPermissions(['notifications'], { origin: url });
  await page.addInitScript({ content: RECORD_NOTIFICATIONS });
  await signIn(page, url, username, PASSWORD, path);
  // The page hears posts only once its socket is open: a post made before that (the page's first reads already done)
  // would reach neither the sidebar nor a notification. CI once posted in that gap.
  await page.locator('.shell[data-live="open"]').waitFor();
  return page;
}

/** Everything the world's setup left unread is read, so the tab starts without unread signs. */
async function readEverything(world: WebWorld): Promise<void> {
  for (const c of Object.values(world.channels)) await world.alice.post('/api/v4/channels/members/me/view', { channel_id: c.id });
}

describeBrowser('web client: notifications', () => {
  journeys.hooks();

  test('a mention in another channel notifies (title, body, icon) and counts in the tab; the channel looked at does not; clicking opens the post', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    await readEverything(world);
    const page = await notifiedPage(url, 'alice', '/team-a/channels/town-square');
    await sidebarLink(page, 'deploys').waitFor();
    await eventually(async () => expect(await favicon(page)).toBe('/favicon.svg'));
    await expect(page.title()).resolves.toBe('Town Square - Team A Parley');

    const mention = await world.post(world.bob, world.channels.deploys.id, '@alice can you **check** [the deploy](https://example.com/d)?\nsecond line');
    await eventually(async () => expect(await seen(page)).toHaveLength(1));
    const [n] = await seen(page);
    expect(n.title).toBe('Deploys');
    expect(n.body).toBe('@bob: @alice can you check the deploy?');
    expect(n.icon).toBe(`${url}/api/v4/users/${world.bob.id}/image?_=0`);
    expect(n.tag).toBe(mention.id);
    // The tab: the mention counted as Mattermost words it, and the favicon with its dot.
    await eventually(async () => expect(await page.title()).toBe('(1) Town Square - Team A Parley'));
    await eventually(async () => expect(await favicon(page)).toBe('/favicon-unread.svg'));

    // A post in the channel being looked at (a focused, visible tab): shown, not notified, even a mention.
    const here = await world.post(world.bob, world.channels.townSquare.id, '@alice right here');
    await article(page, here.id).waitFor();
    // A later notification proves the earlier one was decided: a plain post elsewhere at "mention" raises none either,
    // and a mention in off-topic does.
    await world.post(world.bob, world.channels.offTopic.id, 'no mention here');
    const later = await world.post(world.bob, world.channels.offTopic.id, '@alice and one in off-topic');
    await eventually(async () => expect((await seen(page)).map((s) => s.tag)).toEqual([mention.id, later.id]));
    await eventually(async () => expect(await page.title()).toBe('(2) Town Square - Team A Parley'));

    // Clicking the notification focuses the tab and opens the channel at the post.
    await page.evaluate("window.__shown[0].dispatchEvent(new Event('click'))");
    await article(page, mention.id).waitFor();
    await eventually(async () => expect(await sidebarLink(page, 'deploys').getAttribute('aria-current')).toBe('page'));
    expect(page.url()).toMatch(new RegExp(`/team-a/(channels/deploys|pl/${mention.id})$`));
    await eventually(async () => expect(await page.title()).toBe('(1) Deploys - Team A Parley'));
    await sidebarLink(page, 'off-topic').click();
    await article(page, later.id).waitFor();
    await eventually(async () => expect(await page.title()).toBe('Off-Topic - Team A Parley'));
    await eventually(async () => expect(await favicon(page)).toBe('/favicon.svg'));
    expect(await seen(page)).toHaveLength(2);
  });

  test('a muted channel: dimmed, not bold, mentions still counted, never notified; channel preferences saved and read back', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    await readEverything(world);
    const page = await notifiedPage(url, 'alice', '/team-a/channels/deploys');

    // The channel's menu in its header: Notification preferences.
    await page.getByRole('button', { name: /^Deploys\W+channel menu$/ }).click();
    await page.getByRole('menuitem', { name: 'Notification preferences' }).click();
    const dialog = page.getByRole('dialog', { name: 'Notification preferences' });
    await dialog.waitFor();
    await expect(dialog.getByRole('radio', { name: 'Default (for mentions)' }).isChecked()).resolves.toBe(true);
    await dialog.getByRole('checkbox', { name: /Mute channel/ }).check();
    await dialog.locator('fieldset', { hasText: 'Email notifications' }).getByRole('radio', { name: 'Off' }).check();
    await expect(dialog.getByRole('checkbox', { name: /Ignore mentions/ }).isChecked()).resolves.toBe(true);
    expect(await axe(page)).toEqual([]);
    await page.mouse.move(1, 1);
    await page.screenshot({ path: docsShot('channel-notifications') });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    const member = await world.alice.get<{ notify_props: Record<string, string> }>(`/api/v4/channels/${world.channels.deploys.id}/members/me`);
    expect(member.notify_props).toMatchObject({ mark_unread: 'mention', email: 'false', desktop: 'default', ignore_channel_mentions: 'default' });

    // Away from it: the muted channel is dimmed, a mention counts in its badge but it is not bold and raises nothing.
    await sidebarLink(page, 'town-square').click();
    await eventually(async () => expect(await sidebarLink(page, 'deploys').getAttribute('class')).toContain('is-muted'));
    await world.post(world.bob, world.channels.deploys.id, 'plain post in a muted channel');
    const muted = await world.post(world.bob, world.channels.deploys.id, '@alice a mention in a muted channel');
    const deploys = sidebarLink(page, 'deploys');
    await eventually(async () => expect(await deploys.locator('.badge').textContent()).toBe('1'));
    expect(await page.evaluate(`getComputedStyle(document.querySelector('.sidebar a[data-channel="deploys"]')).fontWeight`)).toBe('400');
    const unmuted = await world.post(world.bob, world.channels.offTopic.id, '@alice but this one counts');
    await eventually(async () => expect((await seen(page)).map((s) => s.tag)).toEqual([unmuted.id]));
    expect((await seen(page)).some((s) => s.tag === muted.id)).toBe(false);

    // Changed elsewhere (the API, as another device would): the page follows (channel_member_updated), undimmed.
    await world.alice.put(`/api/v4/channels/${world.channels.deploys.id}/members/${world.alice.id}/notify_props`, { mark_unread: 'all' });
    await eventually(async () => expect(await deploys.getAttribute('class')).not.toContain('is-muted'));
    await eventually(async () => expect(await deploys.getAttribute('class')).toContain('is-unread'));

    // A second browser opens the dialog on the server's values.
    const other = await journeys.page();
    await signIn(other, url, 'alice', PASSWORD, '/team-a/channels/deploys');
    await other.getByRole('button', { name: /^Deploys\W+channel menu$/ }).click();
    await other.getByRole('menuitem', { name: 'Notification preferences' }).click();
    const again = other.getByRole('dialog', { name: 'Notification preferences' });
    await eventually(async () => expect(await again.getByRole('button', { name: 'Save' }).isEnabled()).toBe(true));
    await expect(again.getByRole('checkbox', { name: /Mute channel/ }).isChecked()).resolves.toBe(false);
    await expect(again.locator('fieldset', { hasText: 'Email notifications' }).getByRole('radio', { name: 'Off' }).isChecked()).resolves.toBe(true);
    await again.getByRole('button', { name: 'Cancel' }).click();
  });

  test('account notification settings: saved with PatchUser, read back by a second browser, followed live', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    await world.alice.put('/api/v4/users/me/patch', { first_name: 'Alice' });
    const page = await journeys.page();
    await signIn(page, url, 'alice', PASSWORD, '/team-a/channels/town-square');
    await page.goto(`${url}/settings/profile`);
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Notifications' }) });
    await section.waitFor();
    await expect(section.getByRole('radio', { name: 'Only for mentions, direct messages and group messages' }).isChecked()).resolves.toBe(true);
    await section.getByRole('radio', { name: 'For all activity' }).check();
    await section.getByRole('checkbox', { name: 'Play a sound with desktop notifications' }).uncheck();
    await section.locator('fieldset', { hasText: 'Email notifications' }).getByRole('radio', { name: 'Never' }).check();
    await section.getByRole('checkbox', { name: /first name, "Alice"/ }).check();
    await section.getByRole('checkbox', { name: /Channel-wide mentions/ }).uncheck();
    await section.getByLabel('Other words, separated by commas').fill(' deploy ,  release,, ');
    await section.getByRole('radio', { name: 'For replies in threads I start or take part in' }).check();
    expect(await axe(page)).toEqual([]);
    await section.getByRole('button', { name: 'Save notifications' }).click();
    await section.getByText('Your notification settings were saved.').waitFor();
    const me = await world.alice.get<{ notify_props: Record<string, string> }>('/api/v4/users/me');
    expect(me.notify_props).toMatchObject({ desktop: 'all', desktop_sound: 'false', email: 'false', first_name: 'true', channel: 'false', mention_keys: 'deploy,release', comments: 'any' });
    // The form shows what the server holds (the keys as it stored them).
    await expect(section.getByLabel('Other words, separated by commas').inputValue()).resolves.toBe('deploy,release');
    await section.getByRole('heading', { name: 'Notifications' }).scrollIntoViewIfNeeded();
    await page.mouse.move(1, 1);
    await page.screenshot({ path: docsShot('notification-settings') });

    // A second browser reads the same values from the server.
    const other = await journeys.page();
    await signIn(other, url, 'alice', PASSWORD, '/team-a/channels/town-square');
    await other.goto(`${url}/settings/profile`);
    const otherSection = other.locator('section', { has: other.getByRole('heading', { name: 'Notifications' }) });
    await otherSection.waitFor();
    await expect(otherSection.getByRole('radio', { name: 'For all activity' }).isChecked()).resolves.toBe(true);
    await expect(otherSection.getByRole('checkbox', { name: 'Play a sound with desktop notifications' }).isChecked()).resolves.toBe(false);
    await expect(otherSection.locator('fieldset', { hasText: 'Email notifications' }).getByRole('radio', { name: 'Never' }).isChecked()).resolves.toBe(true);
    await expect(otherSection.getByLabel('Other words, separated by commas').inputValue()).resolves.toBe('deploy,release');
    await expect(otherSection.getByRole('radio', { name: 'For replies in threads I start or take part in' }).isChecked()).resolves.toBe(true);

    // Changed in the second browser: the first follows (user_updated), without a reload.
    await otherSection.getByRole('radio', { name: 'Never' }).first().check();
    await otherSection.getByRole('button', { name: 'Save notifications' }).click();
    await otherSection.getByText('Your notification settings were saved.').waitFor();
    await eventually(async () => expect(await section.getByRole('radio', { name: 'Never' }).first().isChecked()).toBe(true));
    expect((await world.alice.get<{ notify_props: Record<string, string> }>('/api/v4/users/me')).notify_props.desktop).toBe('none');
  });

  test('desktop "all" notifies plain posts; a keyword mentions; permission is asked only from the banner, after a click', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    await readEverything(world);
    await world.alice.put('/api/v4/users/me/patch', { notify_props: { desktop: 'mention', mention_keys: 'release' } });

    // Without permission: the banner, and nothing asked on load.
    const page = await notifiedPage(url, 'alice', '/team-a/channels/town-square', false);
    const banner = page.getByRole('region', { name: 'Desktop notifications' });
    await banner.waitFor();
    expect(await asked(page)).toBe(0);
    expect(await axe(page)).toEqual([]);
    await page.mouse.move(1, 1);
    await page.screenshot({ path: docsShot('notify-banner') });
    // Nothing is shown without permission.
    await world.post(world.bob, world.channels.deploys.id, '@alice not allowed yet');
    await eventually(async () => expect(await sidebarLink(page, 'deploys').locator('.badge').textContent()).toBe('1'));
    expect(await seen(page)).toEqual([]);
    await banner.getByRole('button', { name: 'Enable desktop notifications' }).click();
    await eventually(async () => expect(await asked(page)).toBe(1));
    await banner.waitFor({ state: 'detached' });

    // "Not now" hides it for good in this browser.
    const later = await notifiedPage(url, 'bob', '/team-a/channels/town-square', false);
    await later.getByRole('region', { name: 'Desktop notifications' }).getByRole('button', { name: 'Not now' }).click();
    await later.getByRole('region', { name: 'Desktop notifications' }).waitFor({ state: 'detached' });
    await later.reload();
    await later.locator('.channel-header').waitFor();
    await expect(later.getByRole('region', { name: 'Desktop notifications' }).count()).resolves.toBe(0);
    expect(await asked(later)).toBe(0);

    // With permission (granted in the browser's settings): no banner; a keyword mentions, and at "all" every post notifies.
    const granted = await notifiedPage(url, 'alice', '/team-a/channels/town-square');
    await sidebarLink(granted, 'deploys').waitFor();
    await expect(granted.getByRole('region', { name: 'Desktop notifications' }).count()).resolves.toBe(0);
    const keyword = await world.post(world.bob, world.channels.offTopic.id, 'The Release is out');
    await eventually(async () => expect((await seen(granted)).map((s) => s.tag)).toEqual([keyword.id]));
    expect((await seen(granted))[0]).toMatchObject({ title: 'Off-Topic', body: '@bob: The Release is out' });
    // At "all" (a page opened after the change): every post notifies.
    await world.alice.put('/api/v4/users/me/patch', { notify_props: { desktop: 'all' } });
    const all = await notifiedPage(url, 'alice', '/team-a/channels/town-square');
    await sidebarLink(all, 'deploys').waitFor();
    const plain = await world.post(world.bob, world.channels.deploys.id, 'just a plain message');
    await eventually(async () => expect((await seen(all)).map((s) => s.tag)).toEqual([plain.id]));
  });

  test('threads collapsed: a reply in a followed thread whose root the page never loaded notifies; one in a thread not followed does not', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    await world.admin.put('/api/v4/config/patch', { ServiceSettings: { CollapsedThreads: 'always_on' } });
    await world.alice.put('/api/v4/users/me/patch', { notify_props: { desktop: 'all' } });
    // Alice's thread (she follows it) and bob's (she does not), both before her page opens elsewhere: the page holds
    // neither root, only the server knows who follows what (the `posted` event's `followers`).
    const mine = await world.post(world.alice, world.channels.deploys.id, 'shall we ship on Friday?');
    const his = await world.post(world.bob, world.channels.deploys.id, 'notes to self');
    await readEverything(world);
    const page = await notifiedPage(url, 'alice', '/team-a/channels/town-square');
    await sidebarLink(page, 'deploys').waitFor();

    await world.post(world.bob, world.channels.deploys.id, 'more notes', { root_id: his.id });
    const reply = await world.post(world.bob, world.channels.deploys.id, 'Friday works for me', { root_id: mine.id });
    await eventually(async () => expect((await seen(page)).map((s) => s.tag)).toEqual([reply.id]));
    expect((await seen(page))[0]).toMatchObject({ title: 'Deploys', body: '@bob: Friday works for me' });
    // A fixed grace on purpose: the claim is that the reply in bob's thread raises nothing, even late.
    await page.waitForTimeout(300);
    expect((await seen(page)).map((s) => s.tag)).toEqual([reply.id]);

    // Desktop at "mentions": the account's thread-replies box (only asked there) turned off, a followed reply is silent.
    // Each silent reply is followed by a mention elsewhere: events arrive in order, so once the mention is shown the
    // reply has been weighed.
    await page.goto(`${url}/settings/profile`);
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Notifications' }) });
    const threads = section.getByRole('checkbox', { name: THREAD_REPLIES });
    await section.waitFor();
    await expect(threads.count()).resolves.toBe(0);
    await section.getByRole('radio', { name: 'Only for mentions, direct messages and group messages' }).check();
    await expect(threads.isChecked()).resolves.toBe(true);
    await threads.uncheck();
    expect(await axe(page)).toEqual([]);
    await page.mouse.move(1, 1);
    await page.screenshot({ path: docsShot('notification-settings-threads') });
    await section.getByRole('button', { name: 'Save notifications' }).click();
    await section.getByText('Your notification settings were saved.').waitFor();
    expect((await world.alice.get<{ notify_props: Record<string, string> }>('/api/v4/users/me')).notify_props).toMatchObject({ desktop: 'mention', desktop_threads: 'mention' });
    const silent = async (root: string) => {
      const quiet = await world.post(world.bob, world.channels.deploys.id, 'another reply', { root_id: root });
      const marker = await world.post(world.bob, world.channels.offTopic.id, '@alice marker');
      await eventually(async () => expect((await seen(page)).map((s) => s.tag)).toContain(marker.id));
      return { quiet: quiet.id, marker: marker.id };
    };
    const off = await silent(mine.id);
    expect((await seen(page)).map((s) => s.tag)).toEqual([off.marker]);

    // Read back from the server after a reload; turned on again, a followed reply notifies at "mentions".
    await page.reload();
    await section.waitFor();
    await expect(threads.isChecked()).resolves.toBe(false);
    await threads.check();
    await section.getByRole('button', { name: 'Save notifications' }).click();
    await section.getByText('Your notification settings were saved.').waitFor();
    expect((await world.alice.get<{ notify_props: Record<string, string> }>('/api/v4/users/me')).notify_props.desktop_threads).toBe('all');
    const on = await world.post(world.bob, world.channels.deploys.id, 'replies notify again', { root_id: mine.id });
    await eventually(async () => expect((await seen(page)).map((s) => s.tag)).toEqual([on.id]));

    // The channel's own box (its preferences dialog) overrides the account's: off for Deploys, its replies are silent.
    await sidebarLink(page, 'deploys').click();
    await page.getByRole('button', { name: /^Deploys\W+channel menu$/ }).click();
    await page.getByRole('menuitem', { name: 'Notification preferences' }).click();
    const dialog = page.getByRole('dialog', { name: 'Notification preferences' });
    await eventually(async () => expect(await dialog.getByRole('button', { name: 'Save' }).isEnabled()).toBe(true));
    const channelThreads = dialog.getByRole('checkbox', { name: THREAD_REPLIES });
    await expect(channelThreads.isChecked()).resolves.toBe(true);
    await channelThreads.uncheck();
    expect(await axe(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    const member = await world.alice.get<{ notify_props: Record<string, string> }>(`/api/v4/channels/${world.channels.deploys.id}/members/me`);
    expect(member.notify_props.desktop_threads).toBe('mention');
    await sidebarLink(page, 'town-square').click();
    await page.locator('.channel-header', { hasText: 'Town Square' }).waitFor();
    const channelOff = await silent(mine.id);
    expect((await seen(page)).map((s) => s.tag)).toEqual([on.id, channelOff.marker]);
  });
});
