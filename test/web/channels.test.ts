// Browser journeys of channels and daily use (issue #25), each on a fresh server: browsing, joining, leaving and
// creating channels, editing a header seen live by someone else, a private channel's members, archiving and reading an
// archived channel, starting a direct message, joining an open team and making someone a team admin. Every new screen
// is checked with axe (WCAG 2.1 A/AA) and saved in docs/.
import type { Page } from 'playwright-core';
import { describeBrowser, signIn } from '../support/browser';
import { Journeys, axe, docsShot } from '../support/web-journey';
import { PASSWORD, createWebWorld } from '../support/web-world';
import { eventually } from '../support/eventually';

const journeys = new Journeys();
const newPage = (): Promise<Page> => journeys.page();

interface ChannelBody {
  id: string;
  name: string;
  type: string;
  header: string;
  delete_at: number;
}

async function signedIn(url: string, username: string, path = '/team-a/channels/town-square'): Promise<Page> {
  const page = await newPage();
  await signIn(page, url, username, PASSWORD, path);
  return page;
}

const sidebarLink = (page: Page, name: string) => page.locator(`.sidebar a[data-channel="${name}"]`);

async function channelMenu(page: Page, item: string): Promise<void> {
  await page.getByRole('button', { name: /channel menu/ }).click();
  await page.getByRole('menuitem', { name: item }).click();
}

describeBrowser('web client: channels and daily use', () => {
  journeys.hooks();

  test('browse, search and join a public channel, then leave it', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const planning = await world.admin.post<ChannelBody>('/api/v4/channels', { team_id: world.team.id, name: 'release-planning', display_name: 'Release Planning', type: 'O', purpose: 'What ships when' });
    await world.admin.post('/api/v4/channels', { team_id: world.team.id, name: 'random', display_name: 'Random', type: 'O' });
    const page = await signedIn(url, 'alice');

    await page.getByRole('button', { name: 'Add channels' }).click();
    await page.getByRole('menuitem', { name: 'Browse channels' }).click();
    const dialog = page.getByRole('dialog', { name: 'Browse channels' });
    await dialog.locator('.browse__row[data-channel="release-planning"]').waitFor();
    // Alice is in town-square, off-topic and deploys (joined) but not in release-planning or random.
    await expect(dialog.locator('.browse__row[data-channel="deploys"] .browse__joined').textContent()).resolves.toBe('Joined');
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: docsShot('browse-channels') });

    await dialog.getByLabel('Search channels').fill('release');
    await eventually(async () => expect(await dialog.locator('.browse__row').count()).toBe(1), 5000);
    await dialog.getByRole('button', { name: 'Join Release Planning' }).click();
    await page.waitForURL(`${url}/team-a/channels/release-planning`);
    await sidebarLink(page, 'release-planning').waitFor();
    const members = await world.admin.get<Array<{ user_id: string }>>(`/api/v4/channels/${planning.id}/members`);
    expect(members.map((m) => m.user_id)).toContain(world.alice.id);

    // Leaving a public channel: at once, back to town-square, out of the sidebar and of the channel.
    await channelMenu(page, 'Leave channel');
    await page.waitForURL(`${url}/team-a/channels/town-square`);
    await sidebarLink(page, 'release-planning').waitFor({ state: 'detached' });
    const after = await world.admin.get<Array<{ user_id: string }>>(`/api/v4/channels/${planning.id}/members`);
    expect(after.map((m) => m.user_id)).not.toContain(world.alice.id);
    // town-square can be neither left nor archived.
    await page.getByRole('button', { name: /channel menu/ }).click();
    await expect(page.getByRole('menuitem', { name: 'Leave channel' }).count()).resolves.toBe(0);
    await expect(page.getByRole('menuitem', { name: 'Archive channel' }).count()).resolves.toBe(0);
    await page.keyboard.press('Escape');
  });

  test('create public and private channels: the URL follows the name and is checked as the server checks it, the server\'s refusal beside the field', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const page = await signedIn(url, 'alice');

    // Create: the URL follows the name; the client's own check, then the server's (a taken name) beside the field.
    await page.getByRole('button', { name: 'Add channels' }).click();
    await page.getByRole('menuitem', { name: 'Create new channel' }).click();
    const create = page.getByRole('dialog', { name: 'Create a new channel' });
    await create.getByLabel('Name', { exact: true }).fill('Q3 Roadmap!');
    await expect(create.getByLabel('URL').inputValue()).resolves.toBe('q3-roadmap');
    await create.getByLabel('URL').fill('Q3 Roadmap');
    await create.getByRole('button', { name: 'Create channel' }).click();
    await create.getByText('may hold only lower-case letters').waitFor();
    await create.getByLabel('URL').fill('deploys');
    await create.getByRole('button', { name: 'Create channel' }).click();
    await create.getByText('A channel with that name already exists').waitFor();
    await expect(create.getByLabel('URL').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: docsShot('create-channel') });
    await create.getByLabel('URL').fill('q3-roadmap');
    await create.getByRole('radio', { name: /Private channel/ }).check();
    await create.getByLabel('Purpose (optional)').fill('Plans for the quarter');
    await create.getByRole('button', { name: 'Create channel' }).click();
    await page.waitForURL(`${url}/team-a/channels/q3-roadmap`);
    await expect(page.locator('.channel-header__purpose').textContent()).resolves.toBe('Plans for the quarter');
    const created = await world.alice.get<ChannelBody>(`/api/v4/teams/${world.team.id}/channels/name/q3-roadmap`);
    expect(created.type).toBe('P');
    await sidebarLink(page, 'q3-roadmap').waitFor();

    // And a public one, by keyboard only.
    await page.getByRole('button', { name: 'Add channels' }).focus();
    await page.keyboard.press('Enter');
    // The menu opens with its first item focused; the test moves on from there.
    const browseItem = page.getByRole('menuitem', { name: 'Browse channels' });
    await eventually(async () => expect(await browseItem.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true));
    await page.getByRole('menuitem', { name: 'Create new channel' }).focus();
    await page.keyboard.press('Enter');
    // The dialog puts the focus in its name box as it opens: what is typed before that lands nowhere.
    const nameBox = page.getByRole('dialog', { name: 'Create a new channel' }).getByLabel('Name', { exact: true });
    await eventually(async () => expect(await nameBox.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true));
    await page.keyboard.type('Standup Notes');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${url}/team-a/channels/standup-notes`);
    const standup = await world.alice.get<ChannelBody>(`/api/v4/teams/${world.team.id}/channels/name/standup-notes`);
    expect(standup.type).toBe('O');
  });

  test('a header edited from the channel menu is seen live by another member; the purpose too', async () => {
    const url = await journeys.fresh();
    await createWebWorld(url);
    const alice = await signedIn(url, 'alice', '/team-a/channels/deploys');
    const bob = await signedIn(url, 'bob', '/team-a/channels/deploys');
    await expect(bob.locator('.channel-header__purpose').textContent()).resolves.toBe('Build and deploy notifications from CI');

    await channelMenu(alice, 'Edit channel header');
    const dialog = alice.getByRole('dialog', { name: 'Edit header for Deploys' });
    await dialog.getByLabel('Header').fill('Deploys go out at 16:00 <b>UTC</b>');
    expect(await axe(alice)).toEqual([]);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await eventually(async () => expect(await alice.locator('.channel-header__purpose').textContent()).toBe('Deploys go out at 16:00 <b>UTC</b>'));
    // Live for bob, as text (never markup).
    await eventually(async () => expect(await bob.locator('.channel-header__purpose').textContent()).toBe('Deploys go out at 16:00 <b>UTC</b>'));
    await expect(bob.locator('.channel-header__purpose b').count()).resolves.toBe(0);

    await channelMenu(alice, 'Edit channel purpose');
    const purpose = alice.getByRole('dialog', { name: 'Edit purpose for Deploys' });
    await purpose.getByLabel('Purpose').fill('x'.repeat(251));
    // maxLength keeps it at the limit; the server's limit is the same.
    await expect(purpose.getByLabel('Purpose').inputValue()).resolves.toHaveLength(250);
    await purpose.getByLabel('Purpose').fill('Where releases are announced');
    await purpose.getByRole('button', { name: 'Save' }).click();
    await purpose.waitFor({ state: 'detached' });
  });

  test('a private channel: members listed, someone added (the channel appears in their sidebar live) and removed (it goes)', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const hush = await world.alice.post<ChannelBody>('/api/v4/channels', { team_id: world.team.id, name: 'hush', display_name: 'Hush', type: 'P' });
    const alice = await signedIn(url, 'alice', '/team-a/channels/hush');
    const bob = await signedIn(url, 'bob');
    await expect(sidebarLink(bob, 'hush').count()).resolves.toBe(0);

    await alice.getByRole('button', { name: '1 members' }).click();
    const dialog = alice.getByRole('dialog', { name: 'Members of Hush' });
    await dialog.locator('.people__row[data-username="alice"]').waitFor();
    await dialog.getByLabel('Add people').fill('bo');
    await dialog.getByRole('button', { name: 'Add @bob' }).click();
    await dialog.locator('.people__row[data-username="bob"]').waitFor();
    await dialog.getByText('@bob was added to Hush.').waitFor();
    await sidebarLink(bob, 'hush').waitFor();
    expect(await axe(alice)).toEqual([]);
    await alice.screenshot({ path: docsShot('channel-members') });
    const members = await world.alice.get<Array<{ user_id: string }>>(`/api/v4/channels/${hush.id}/members`);
    expect(members.map((m) => m.user_id).sort()).toEqual([world.alice.id, world.bob.id].sort());

    await dialog.getByRole('button', { name: 'Remove @bob' }).click();
    await dialog.locator('.people__row[data-username="bob"]').waitFor({ state: 'detached' });
    await sidebarLink(bob, 'hush').waitFor({ state: 'detached' });
    await alice.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await alice.getByRole('button', { name: '1 members' }).waitFor();

    // Leaving a private channel asks first.
    await channelMenu(alice, 'Leave channel');
    const confirm = alice.getByRole('dialog', { name: 'Leave private channel' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(alice.url()).toBe(`${url}/team-a/channels/hush`);
  });

  test('archiving a channel (confirmed): the archiver moves to town-square, another member sees it archived live, and it stays readable from Browse → Archived channels', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    await world.post(world.bob, world.channels.deploys.id, 'Deployed v1.2.3');
    const alice = await signedIn(url, 'alice', '/team-a/channels/deploys');
    const bob = await signedIn(url, 'bob', '/team-a/channels/deploys');
    await bob.locator('article.post', { hasText: 'Deployed v1.2.3' }).waitFor();

    await channelMenu(alice, 'Archive channel');
    const confirm = alice.getByRole('dialog', { name: 'Archive channel' });
    expect(await axe(alice)).toEqual([]);
    await confirm.getByRole('button', { name: 'Archive' }).click();
    await alice.waitForURL(`${url}/team-a/channels/town-square`);
    await sidebarLink(alice, 'deploys').waitFor({ state: 'detached' });
    const archived = await world.admin.get<ChannelBody>(`/api/v4/channels/${world.channels.deploys.id}`);
    expect(archived.delete_at).toBeGreaterThan(0);

    // Bob was reading it: it turns read-only where he is, and leaves his sidebar.
    await bob.getByText('You are viewing an archived channel').waitFor();
    await expect(bob.getByRole('textbox', { name: /Write to/ }).count()).resolves.toBe(0);
    await sidebarLink(bob, 'deploys').waitFor({ state: 'detached' });

    // Alice finds it again under Archived channels, and reads it.
    await alice.getByRole('button', { name: 'Add channels' }).click();
    await alice.getByRole('menuitem', { name: 'Browse channels' }).click();
    const dialog = alice.getByRole('dialog', { name: 'Browse channels' });
    await dialog.getByLabel('Channel type').selectOption('archived');
    await dialog.getByRole('button', { name: 'View Deploys' }).click();
    await alice.waitForURL(`${url}/team-a/channels/deploys`);
    await alice.locator('article.post', { hasText: 'Deployed v1.2.3' }).waitFor();
    await alice.getByText('You are viewing an archived channel').waitFor();
    await expect(alice.getByRole('textbox', { name: /Write to/ }).count()).resolves.toBe(0);
    expect(await axe(alice)).toEqual([]);
    await alice.screenshot({ path: docsShot('archived-channel') });
    // A reload shows it the same way; "Close channel" goes back to town-square.
    await alice.reload();
    await alice.getByText('You are viewing an archived channel').waitFor();
    await alice.getByRole('button', { name: 'Close channel' }).click();
    await alice.waitForURL(`${url}/team-a/channels/town-square`);
  });

  test('the direct message picker finds people of the team and starts a conversation', async () => {
    const url = await journeys.fresh();
    await createWebWorld(url);
    const alice = await signedIn(url, 'alice');
    await alice.getByRole('button', { name: 'Write a direct message' }).click();
    const dialog = alice.getByRole('dialog', { name: 'Direct messages' });
    await dialog.getByLabel('Find people').fill('bo');
    // The list of everyone (before the search) shows bob too: the search's answer is when admin leaves it.
    await dialog.getByRole('button', { name: 'Message @admin' }).waitFor({ state: 'detached' });
    await dialog.getByRole('button', { name: 'Message @bob' }).waitFor();
    await expect(dialog.getByRole('button', { name: 'Message @admin' }).count()).resolves.toBe(0);
    expect(await axe(alice)).toEqual([]);
    await alice.screenshot({ path: docsShot('dm-picker') });
    await dialog.getByRole('button', { name: 'Message @bob' }).click();
    await alice.waitForURL(`${url}/team-a/messages/@bob`);
    const composer = alice.getByRole('textbox', { name: 'Write to bob' });
    await composer.fill('Hi Bob, a word in private');
    await composer.press('Enter');
    await alice.locator('article.post', { hasText: 'Hi Bob, a word in private' }).waitFor();
    await alice.locator('.sidebar a', { hasText: 'bob' }).waitFor();
  });

  test('join an open team from the team menu (invite-only teams are not listed)', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    await world.admin.post('/api/v4/teams', { name: 'team-b', display_name: 'Team B', type: 'O' });
    await world.admin.post('/api/v4/teams', { name: 'team-c', display_name: 'Team C', type: 'I' });
    const alice = await signedIn(url, 'alice');
    await alice.getByRole('button', { name: /team menu/ }).click();
    await alice.getByRole('menuitem', { name: 'Join another team' }).click();
    const dialog = alice.getByRole('dialog', { name: 'Join another team' });
    await dialog.getByRole('button', { name: 'Join Team B' }).waitFor();
    await expect(dialog.getByRole('button', { name: 'Join Team C' }).count()).resolves.toBe(0);
    await expect(dialog.getByRole('button', { name: 'Join Team A' }).count()).resolves.toBe(0);
    expect(await axe(alice)).toEqual([]);
    await dialog.getByRole('button', { name: 'Join Team B' }).click();
    await alice.waitForURL(`${url}/team-b/channels/town-square`);
    await alice.getByRole('navigation', { name: 'Teams' }).getByRole('link', { name: 'Team B' }).waitFor();
    const teams = await world.alice.get<Array<{ name: string }>>('/api/v4/users/me/teams');
    expect(teams.map((t) => t.name).sort()).toEqual(['team-a', 'team-b']);
  });

  test('a team admin makes someone a team admin and removes someone from the team (who is moved off it live)', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const admin = await signedIn(url, 'admin');
    const bob = await signedIn(url, 'bob');
    await admin.getByRole('button', { name: /team menu/ }).click();
    await admin.getByRole('menuitem', { name: 'Manage members' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Manage members of Team A' });
    await dialog.getByLabel('Role of @alice').selectOption('admin');
    await dialog.getByText('@alice is now a team admin.').waitFor();
    const memberships = await world.alice.get<Array<{ team_id: string; roles: string }>>('/api/v4/users/me/teams/members');
    expect(memberships.find((m) => m.team_id === world.team.id)?.roles.split(' ')).toContain('team_admin');
    expect(await axe(admin)).toEqual([]);
    await admin.screenshot({ path: docsShot('team-members') });

    await dialog.getByRole('button', { name: 'Remove @bob from the team' }).click();
    await dialog.locator('.people__row[data-username="bob"]').waitFor({ state: 'detached' });
    await bob.getByRole('heading', { name: 'No teams yet' }).waitFor();

    // Alice, a team admin now, manages members too.
    const alice = await signedIn(url, 'alice');
    await alice.getByRole('button', { name: /team menu/ }).click();
    await alice.getByRole('menuitem', { name: 'Manage members' }).click();
    await alice.getByRole('dialog', { name: 'Manage members of Team A' }).getByLabel('Role of @alice').waitFor();
  });
});
