// Browser journeys of reactions, pinned posts, presence and unread handling (issue #25), each on a fresh server with
// two people in two browser contexts: what one does, the other sees live. Every new screen is checked with axe
// (WCAG 2.1 A/AA) and saved as a screenshot in docs/.
import type { Page } from 'playwright-core';
import { describeBrowser, signIn } from '../support/browser';
import { Journeys, axe, docsShot } from '../support/web-journey';
import { PASSWORD, createWebWorld, loginAs } from '../support/web-world';
import { eventually } from '../support/eventually';

const journeys = new Journeys();
const TOWN = '/team-a/channels/town-square';

/** A reaction button by who reacted (its name ends with the count). */
const reacted = (label: string) => new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, \\d+$`);

/** In the page: whether the element has the focus (untyped: the tests' TypeScript has no DOM types). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const isFocused = (el: any): boolean => el === el.ownerDocument.activeElement;
/** The post right after an element (the line's next row). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const nextPostId = (el: any): string | undefined => el.nextElementSibling?.dataset.postId;

const postEl = (page: Page, id: string) => page.locator(`article.post[data-post-id="${id}"]`);

/** Opens a post's "More actions" menu and picks an item. */
async function postMenu(page: Page, id: string, item: string): Promise<void> {
  const post = postEl(page, id);
  await post.hover();
  await post.getByRole('button', { name: 'More actions' }).click();
  await page.getByRole('menuitem', { name: item }).click();
}

describeBrowser('web client: reactions, pins, status, unread', () => {
  journeys.hooks();

  test('react from the emoji picker (search, keyboard) and by clicking a reaction; the other person sees it live, with who reacted on hover and focus', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const ship = await world.post(world.admin, world.channels.townSquare.id, 'Release 2.4 is out: ship it?');
    const docs = await world.post(world.admin, world.channels.townSquare.id, 'Docs are updated too.');
    const alice = await journeys.page();
    const bob = await journeys.page();
    await signIn(alice, url, 'alice', PASSWORD, TOWN);
    await signIn(bob, url, 'bob', PASSWORD, TOWN);

    // Alice: the post's hover menu opens the picker; searching by an alias finds the thumbs up (stored as "+1").
    await postEl(alice, ship.id).hover();
    await postEl(alice, ship.id).getByRole('button', { name: 'Add reaction' }).click();
    const picker = alice.getByRole('dialog', { name: 'Emoji picker' });
    await picker.waitFor();
    await eventually(async () => expect(await alice.getByRole('combobox', { name: 'Search emojis' }).evaluate(isFocused)).toBe(true));
    expect(await axe(alice)).toEqual([]);
    await alice.screenshot({ path: docsShot('emoji-picker') });
    await alice.keyboard.type('thumbsup');
    await eventually(async () => expect(await picker.getByRole('option').first().getAttribute('aria-label')).toBe('+1'));
    await alice.keyboard.press('Enter');
    await picker.waitFor({ state: 'detached' });
    await postEl(alice, ship.id).getByRole('button', { name: reacted('You reacted with :+1:') }).waitFor();

    // Bob sees it live, and adds his by clicking it.
    const bobsView = postEl(bob, ship.id).getByRole('button', { name: reacted('alice reacted with :+1:') });
    await bobsView.waitFor();
    await expect(bobsView.getAttribute('aria-pressed')).resolves.toBe('false');
    await bobsView.click();
    const both = postEl(bob, ship.id).getByRole('button', { name: reacted('You and alice reacted with :+1:') });
    await both.waitFor();
    await expect(both.getAttribute('aria-pressed')).resolves.toBe('true');
    await expect(both.locator('.reaction__count').textContent()).resolves.toBe('2');
    await postEl(alice, ship.id).getByRole('button', { name: reacted('You and bob reacted with :+1:') }).waitFor();

    // Who reacted shows on hover, and on keyboard focus.
    await postEl(alice, ship.id).getByRole('button', { name: reacted('You and bob reacted with :+1:') }).hover();
    await expect(postEl(alice, ship.id).locator('.reaction__tip').isVisible()).resolves.toBe(true);
    await alice.mouse.move(5, 5);
    await expect(postEl(alice, ship.id).locator('.reaction__tip').isVisible()).resolves.toBe(false);
    await postEl(alice, ship.id).getByRole('button', { name: reacted('You and bob reacted with :+1:') }).focus();
    await alice.keyboard.press('Tab');
    await alice.keyboard.press('Shift+Tab');
    await expect(postEl(alice, ship.id).locator('.reaction__tip').isVisible()).resolves.toBe(true);
    expect(await axe(alice)).toEqual([]);
    await alice.screenshot({ path: docsShot('reactions') });

    // Alice removes hers: both pages show bob's alone.
    await postEl(alice, ship.id).getByRole('button', { name: reacted('You and bob reacted with :+1:') }).click();
    await postEl(alice, ship.id).getByRole('button', { name: reacted('bob reacted with :+1:') }).waitFor();
    await postEl(bob, ship.id).getByRole('button', { name: reacted('You reacted with :+1:') }).waitFor();

    // The keyboard alone: the picker's grid moves with the arrow keys, Enter picks, Escape closes it.
    await postEl(bob, docs.id).hover();
    await postEl(bob, docs.id).getByRole('button', { name: 'Add reaction' }).focus();
    await bob.keyboard.press('Enter');
    await bob.getByRole('dialog', { name: 'Emoji picker' }).waitFor();
    await eventually(async () => expect(await bob.getByRole('combobox', { name: 'Search emojis' }).evaluate(isFocused)).toBe(true));
    await bob.keyboard.press('Escape');
    await bob.getByRole('dialog', { name: 'Emoji picker' }).waitFor({ state: 'detached' });
    await eventually(async () => expect(await postEl(bob, docs.id).getByRole('button', { name: 'Add reaction' }).evaluate(isFocused)).toBe(true));
    await bob.keyboard.press('Enter');
    await bob.keyboard.press('ArrowRight');
    await bob.keyboard.press('ArrowDown');
    // Row 2, column 2 of the 8-wide grid: the 10th emoji (:joy:... whichever it is, its name is shown in the preview).
    const chosen = (await bob.locator('.emoji-picker__preview').textContent())?.replace(/^.*:(.+):$/, '$1') ?? '';
    expect(chosen).not.toBe('');
    await bob.keyboard.press('Enter');
    await postEl(bob, docs.id).getByRole('button', { name: reacted(`You reacted with :${chosen}:`) }).waitFor();
    await postEl(alice, docs.id).getByRole('button', { name: reacted(`bob reacted with :${chosen}:`) }).waitFor();
    const stored = await world.admin.get<Array<{ emoji_name: string; user_id: string }>>(`/api/v4/posts/${docs.id}/reactions`);
    expect(stored).toEqual([expect.objectContaining({ emoji_name: chosen, user_id: world.bob.id })]);
  }, 150_000);

  test('pin and unpin from the post menu; the pinned list in the right-hand panel, its count in the header, live for a second person; copy link', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const first = await world.post(world.admin, world.channels.townSquare.id, 'Runbook: https://example.com/runbook');
    const second = await world.post(world.admin, world.channels.townSquare.id, 'On call this week: **bob**');
    const alice = await journeys.page();
    const bob = await journeys.page();
    await signIn(alice, url, 'alice', PASSWORD, TOWN);
    await signIn(bob, url, 'bob', PASSWORD, TOWN);
    await alice.getByRole('button', { name: '0 pinned messages' }).waitFor();
    await bob.getByRole('button', { name: '0 pinned messages' }).waitFor();

    await postMenu(alice, first.id, 'Pin to Channel');
    await postEl(alice, first.id).locator('.post__pinned').waitFor();
    await alice.getByRole('button', { name: '1 pinned message' }).waitFor();
    // Bob: the marker and the count arrive live.
    await postEl(bob, first.id).getByText('Pinned', { exact: true }).waitFor();
    await bob.getByRole('button', { name: '1 pinned message' }).click();
    const panel = bob.getByRole('complementary', { name: 'Pinned messages' });
    await panel.locator(`[data-post-id="${first.id}"]`).waitFor();

    // Alice pins another: bob's open list gets it live (newest first).
    await postMenu(alice, second.id, 'Pin to Channel');
    await panel.locator(`[data-post-id="${second.id}"]`).waitFor();
    await expect(panel.locator('.pinned-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-post-id')))).resolves.toEqual([second.id, first.id]);
    await bob.getByRole('button', { name: '2 pinned messages' }).waitFor();
    expect(await axe(bob)).toEqual([]);
    await bob.screenshot({ path: docsShot('pinned') });
    const pinned = await world.admin.get<{ order: string[] }>(`/api/v4/channels/${world.channels.townSquare.id}/pinned`);
    expect(pinned.order.sort()).toEqual([first.id, second.id].sort());

    // Unpinned (from the post menu): it leaves bob's list and the marker goes.
    await postMenu(alice, first.id, 'Unpin from Channel');
    await panel.locator(`[data-post-id="${first.id}"]`).waitFor({ state: 'detached' });
    await postEl(bob, first.id).locator('.post__pinned').waitFor({ state: 'detached' });
    await bob.getByRole('button', { name: '1 pinned message' }).waitFor();
    // Escape closes the panel, focus back on the header button.
    await panel.getByRole('button', { name: 'Close pinned messages' }).focus();
    await bob.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });

    // Copy Link: the post's permalink.
    await alice.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    await postMenu(alice, second.id, 'Copy Link');
    await postEl(alice, second.id).getByText('Link copied').waitFor();
    await expect(alice.evaluate('navigator.clipboard.readText()')).resolves.toBe(`${url}/team-a/pl/${second.id}`);
  }, 150_000);

  test('status: the own status from the avatar menu (away, do not disturb with an end, custom), seen on the avatar dots of a second person', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    await world.post(world.alice, world.channels.townSquare.id, 'Morning all');
    const alice = await journeys.page();
    const bob = await journeys.page();
    // Bob's page polls statuses every minute, as Mattermost's web app: its clock is the test's to move on.
    await bob.clock.install();
    await signIn(alice, url, 'alice', PASSWORD, TOWN);
    await signIn(bob, url, 'bob', PASSWORD, TOWN);
    const alicesDot = bob.locator(`article.post:has(.post__author:text-is("alice")) .status-dot`).first();
    await eventually(async () => expect(await alicesDot.getAttribute('data-status')).toBe('online'));

    const openMenu = async () => {
      await alice.getByRole('button', { name: /account menu/ }).click();
      await alice.getByRole('menu', { name: 'Account' }).waitFor();
    };
    await openMenu();
    await alice.getByRole('menuitemradio', { name: /Away/ }).click();
    await alice.getByRole('button', { name: /, Away, account menu$/ }).waitFor();
    await bob.clock.fastForward(61_000);
    await eventually(async () => expect(await alicesDot.getAttribute('data-status')).toBe('away'));

    // Do not disturb for 30 minutes: the end is sent (Unix seconds) and shown.
    await openMenu();
    await alice.getByRole('menuitemradio', { name: /Do not disturb/ }).click();
    await alice.getByRole('menuitem', { name: '30 mins' }).waitFor();
    expect(await axe(alice)).toEqual([]);
    await alice.screenshot({ path: docsShot('status-menu') });
    const before = Date.now();
    await alice.getByRole('menuitem', { name: '30 mins' }).click();
    await alice.getByRole('button', { name: /, Do not disturb, account menu$/ }).waitFor();
    const st = await world.alice.get<{ status: string; dnd_end_time: number }>(`/api/v4/users/${world.alice.id}/status`);
    expect(st.status).toBe('dnd');
    expect(st.dnd_end_time).toBeGreaterThanOrEqual(Math.floor(before / 1000) + 30 * 60 - 5);
    expect(st.dnd_end_time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 30 * 60 + 5);
    await openMenu();
    await alice.getByRole('menuitemradio', { name: /Do not disturb.*Until/ }).waitFor();
    await alice.keyboard.press('Escape');
    await bob.clock.fastForward(61_000);
    await eventually(async () => expect(await alicesDot.getAttribute('data-status')).toBe('dnd'));

    // Custom: a date and a time.
    await openMenu();
    await alice.getByRole('menuitemradio', { name: /Do not disturb/ }).click();
    await alice.getByRole('menuitem', { name: 'Custom' }).click();
    const dialog = alice.getByRole('dialog', { name: 'Do not disturb until' });
    await dialog.waitFor();
    const end = new Date(Date.now() + 3 * 86_400_000);
    const day = `${end.getUTCFullYear()}-${String(end.getUTCMonth() + 1).padStart(2, '0')}-${String(end.getUTCDate()).padStart(2, '0')}`;
    await dialog.getByLabel('Date').fill(day);
    await dialog.getByLabel('Time').fill('17:45');
    expect(await axe(alice)).toEqual([]);
    await dialog.getByRole('button', { name: 'Disable notifications' }).click();
    await dialog.waitFor({ state: 'detached' });
    // The page's time zone is UTC (browser.ts).
    await eventually(async () => {
      const custom = await world.alice.get<{ status: string; dnd_end_time: number }>(`/api/v4/users/${world.alice.id}/status`);
      expect(custom).toMatchObject({ status: 'dnd', dnd_end_time: Date.parse(`${day}T17:45:00Z`) / 1000 });
    });

    // Back online: seen by bob at the next poll.
    await openMenu();
    await alice.getByRole('menuitemradio', { name: /Online/ }).click();
    await alice.getByRole('button', { name: /, Online, account menu$/ }).waitFor();
    await bob.clock.fastForward(61_000);
    await eventually(async () => expect(await alicesDot.getAttribute('data-status')).toBe('online'));
  }, 150_000);

  test('unread: the "New messages" line after someone posted while away, "Jump to new messages", and Mark as Unread (the sidebar shows it)', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const town = world.channels.townSquare;
    await world.post(world.admin, town.id, 'Read before');
    const bob = await journeys.page();
    await signIn(bob, url, 'bob', PASSWORD, TOWN);
    // Leaving town square views it (ViewChannel's prev_channel_id): only posts after that are unread.
    const toOffTopic = async () => {
      const viewed = bob.waitForResponse((r) => r.url().includes('/channels/members/me/view') && r.request().postDataJSON()?.prev_channel_id === town.id);
      await bob.locator('.sidebar__item[data-channel="off-topic"]').click();
      await bob.waitForURL(`${url}/team-a/channels/off-topic`);
      await viewed;
    };
    await toOffTopic();

    // While bob is elsewhere, alice writes in town square.
    const unread: string[] = [];
    for (let i = 1; i <= 3; i++) unread.push((await world.post(world.alice, town.id, `While you were away ${i}`)).id);
    await bob.locator('.sidebar__item.is-unread[data-channel="town-square"]').waitFor();
    await bob.locator('.sidebar__item[data-channel="town-square"]').click();
    const line = bob.getByRole('separator', { name: 'New messages' });
    await line.waitFor();
    // The line stands right above alice's first post.
    await expect(line.evaluate(nextPostId)).resolves.toBe(unread[0]);
    expect(await axe(bob)).toEqual([]);
    await bob.screenshot({ path: docsShot('new-messages') });

    // Many more: opened at the bottom, the line is out of view above; "Jump to new messages" brings it back.
    await toOffTopic();
    const many: string[] = [];
    for (let i = 1; i <= 30; i++) many.push((await world.post(world.alice, town.id, `Update number ${i}\nwith a second line`)).id);
    await bob.locator('.sidebar__item.is-unread[data-channel="town-square"]').waitFor();
    await bob.locator('.sidebar__item[data-channel="town-square"]').click();
    const jump = bob.getByRole('button', { name: 'Jump to new messages' });
    await jump.waitFor();
    expect(await axe(bob)).toEqual([]);
    await jump.click();
    await jump.waitFor({ state: 'detached' });
    await expect(line.evaluate(nextPostId)).resolves.toBe(many[0]);
    await expect(line.isVisible()).resolves.toBe(true);

    // Mark as Unread from a post: the line moves there and the sidebar shows the open channel unread.
    const target = many[25];
    await postEl(bob, target).scrollIntoViewIfNeeded();
    await postMenu(bob, target, 'Mark as Unread');
    await bob.locator('.sidebar__item.is-unread[data-channel="town-square"]').waitFor();
    await expect(bob.locator('.sidebar__item[data-channel="town-square"]').textContent()).resolves.toContain('unread');
    await expect(line.evaluate(nextPostId)).resolves.toBe(target);
    const bobApi = await loginAs(url, 'bob');
    const member = await bobApi.get<{ msg_count: number; last_viewed_at: number }>(`/api/v4/channels/${town.id}/members/me`);
    const channel = await bobApi.get<{ total_msg_count: number }>(`/api/v4/channels/${town.id}`);
    expect(channel.total_msg_count - member.msg_count).toBe(5);
    // Leaving keeps it unread (the channel is not viewed on the way out).
    await bob.locator('.sidebar__item[data-channel="off-topic"]').click();
    await bob.waitForURL(`${url}/team-a/channels/off-topic`);
    await bob.locator('.sidebar__item.is-unread[data-channel="town-square"]').waitFor();
    const after = await bobApi.get<{ last_viewed_at: number }>(`/api/v4/channels/${town.id}/members/me`);
    expect(after.last_viewed_at).toBe(member.last_viewed_at);
  }, 150_000);
});
