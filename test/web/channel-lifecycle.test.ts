// Browser journeys of a channel's life and a team's members, seen live by someone else, on one server shared by the
// journeys (each uses its own channels and people): a team admin unarchives a channel from its menu (RestoreChannel)
// and a member reading it gets the composer back; the Browse channels dialog follows archives, restores and renames
// made elsewhere while it is open; the team's members dialog follows people joining and leaving the team. The new
// menu is checked with axe (WCAG 2.1 A/AA) and saved in docs/.
import type { Page } from 'playwright-core';
import { describeBrowser, signIn } from '../support/browser';
import { Journeys, axe, docsShot } from '../support/web-journey';
import { PASSWORD, createWebWorld, type Caller, type WebWorld } from '../support/web-world';

const journeys = new Journeys();

interface ChannelBody {
  id: string;
  name: string;
  display_name: string;
  delete_at: number;
}

async function signedIn(url: string, username: string, path = '/team-a/channels/town-square'): Promise<Page> {
  const page = await journeys.page();
  await signIn(page, url, username, PASSWORD, path);
  // Live from here on: what others do next reaches this page.
  await page.locator('.shell[data-live="open"]').waitFor();
  return page;
}

async function remove(url: string, who: Caller, path: string): Promise<void> {
  const res = await fetch(`${url}${path}`, { method: 'DELETE', headers: { Authorization: `Bearer ${who.token}` } });
  if (!res.ok) throw new Error(`DELETE ${path} → ${res.status} ${await res.text()}`);
}

const sidebarLink = (page: Page, name: string) => page.locator(`.sidebar a[data-channel="${name}"]`);
const composer = (page: Page) => page.getByRole('textbox', { name: /Write to/ });
const archivedNotice = (page: Page) => page.getByText('You are viewing an archived channel');

describeBrowser('web client: a channel\'s life and a team\'s members, live', () => {
  journeys.sharedHooks();
  let url: string;
  let world: WebWorld;

  beforeAll(async () => {
    url = await journeys.fresh();
    world = await createWebWorld(url);
    // Alice is a team admin (RestoreChannel needs manage_team); bob is a member.
    await world.admin.put(`/api/v4/teams/${world.team.id}/members/${world.alice.id}/roles`, { roles: 'team_user team_admin' });
  }, 120000);

  test('a team admin unarchives a channel from its menu: the composer comes back, live for a member reading it; a member is not offered it', async () => {
    await world.post(world.bob, world.channels.deploys.id, 'Deployed v1.2.3');
    await remove(url, world.admin, `/api/v4/channels/${world.channels.deploys.id}`);
    const bob = await signedIn(url, 'bob', '/team-a/channels/deploys');
    const alice = await signedIn(url, 'alice', '/team-a/channels/deploys');
    await archivedNotice(bob).waitFor();
    await archivedNotice(alice).waitFor();

    // Bob may not restore it: his menu has only the members.
    await bob.getByRole('button', { name: /channel menu/ }).click();
    await bob.getByRole('menuitem', { name: 'View members' }).waitFor();
    await expect(bob.getByRole('menuitem', { name: 'Unarchive channel' }).count()).resolves.toBe(0);
    await bob.keyboard.press('Escape');

    // Alice, a team admin, is offered it; the menu is reached and used from the keyboard.
    await alice.getByRole('button', { name: /channel menu/ }).click();
    const unarchive = alice.getByRole('menuitem', { name: 'Unarchive channel' });
    await unarchive.waitFor();
    expect(await axe(alice)).toEqual([]);
    await alice.screenshot({ path: docsShot('unarchive-menu') });
    await unarchive.focus();
    await alice.keyboard.press('Enter');
    const confirm = alice.getByRole('dialog', { name: 'Unarchive channel' });
    await confirm.getByText('Are you sure you wish to unarchive the Deploys channel?').waitFor();
    expect(await axe(alice)).toEqual([]);
    await confirm.getByRole('button', { name: 'Unarchive' }).click();

    await composer(alice).waitFor();
    await expect(archivedNotice(alice).count()).resolves.toBe(0);
    await sidebarLink(alice, 'deploys').waitFor();
    expect((await world.admin.get<ChannelBody>(`/api/v4/channels/${world.channels.deploys.id}`)).delete_at).toBe(0);

    // Bob, reading it, gets the composer back and the channel in his sidebar (channel_restored), and can post.
    await composer(bob).waitFor();
    await expect(archivedNotice(bob).count()).resolves.toBe(0);
    await sidebarLink(bob, 'deploys').waitFor();
    await composer(bob).fill('Back in business');
    await composer(bob).press('Enter');
    await alice.locator('article.post', { hasText: 'Back in business' }).waitFor();
  });

  test('Browse channels follows, while open, channels archived, unarchived and renamed by someone else', async () => {
    const roadmap = await world.admin.post<ChannelBody>('/api/v4/channels', { team_id: world.team.id, name: 'roadmap', display_name: 'Roadmap', type: 'O' });
    const bob = await signedIn(url, 'bob');
    await bob.getByRole('button', { name: 'Add channels' }).click();
    await bob.getByRole('menuitem', { name: 'Browse channels' }).click();
    const dialog = bob.getByRole('dialog', { name: 'Browse channels' });
    const row = (name: string) => dialog.locator(`.browse__row[data-channel="${name}"]`);
    await row('roadmap').waitFor();

    // Archived by the admin: it leaves the public list at once, and is among the archived ones.
    await remove(url, world.admin, `/api/v4/channels/${roadmap.id}`);
    await row('roadmap').waitFor({ state: 'detached' });
    await dialog.getByLabel('Channel type').selectOption('archived');
    await row('roadmap').waitFor();
    expect(await axe(bob)).toEqual([]);

    // Unarchived: it leaves the archived list, and is back among the public ones.
    await world.admin.post(`/api/v4/channels/${roadmap.id}/restore`, undefined);
    await row('roadmap').waitFor({ state: 'detached' });
    await dialog.getByLabel('Channel type').selectOption('public');
    await row('roadmap').waitFor();

    // Renamed: a channel bob is in shows its new name (channel_updated reaches its members).
    await world.admin.put(`/api/v4/channels/${world.channels.offTopic.id}/patch`, { display_name: 'Water Cooler' });
    await row('off-topic').getByText('Water Cooler').waitFor();
  });

  test('the team\'s members dialog follows people joining and leaving the team while it is open', async () => {
    const alice = await signedIn(url, 'alice');
    await alice.getByRole('button', { name: /team menu/ }).click();
    await alice.getByRole('menuitem', { name: 'Manage members' }).click();
    const dialog = alice.getByRole('dialog', { name: 'Manage members of Team A' });
    const row = (username: string) => dialog.locator(`.people__row[data-username="${username}"]`);
    await row('bob').waitFor();
    await dialog.getByRole('heading', { name: '3 members' }).waitFor();

    // Carol joins (added by the admin): she appears.
    const carol = await world.admin.post<{ id: string }>('/api/v4/users', { username: 'carol', email: 'carol@example.com', password: PASSWORD });
    await world.admin.post(`/api/v4/teams/${world.team.id}/members`, { team_id: world.team.id, user_id: carol.id });
    await row('carol').waitFor();
    await dialog.getByRole('heading', { name: '4 members' }).waitFor();

    // Bob leaves the team himself: he disappears.
    await remove(url, world.bob, `/api/v4/teams/${world.team.id}/members/${world.bob.id}`);
    await row('bob').waitFor({ state: 'detached' });
    await dialog.getByRole('heading', { name: '3 members' }).waitFor();
    expect(await axe(alice)).toEqual([]);
  });
});
