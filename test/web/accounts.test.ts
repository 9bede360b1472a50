// Browser journeys of first run and accounts, each on a fresh server: the first visit to an empty server (create
// the first account, then the first team, then post), an invite link used by a second browser, and the account
// settings (profile fields, picture, password, signing out everywhere) seen by another user and another browser.
// Every new screen is checked with axe (WCAG 2.1 A/AA) and saved as a screenshot in docs/.
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { describeBrowser, signIn } from '../support/browser';
import { Journeys, axe, docsShot } from '../support/web-journey';
import { PASSWORD, createWebWorld, loginAs } from '../support/web-world';
import { eventually } from '../support/eventually';

const journeys = new Journeys();
const newPage = (opts: { width?: number; height?: number } = {}): Promise<Page> => journeys.page(opts);
const freshServer = (): Promise<string> => journeys.fresh();

describeBrowser('web client: first run and accounts', () => {
  journeys.hooks();

  test('first run: an empty server asks for the first account (system admin), then the first team, then the channel', async () => {
    const url = await freshServer();
    const page = await newPage();
    await page.goto(`${url}/`);
    await page.waitForURL(`${url}/signup_user_complete`);
    await page.getByRole('heading', { name: 'Create account' }).waitFor();
    await expect(page.locator('.notice').textContent()).resolves.toContain('it will be the system administrator');
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: docsShot('first-account') });
    // Nothing to log in with yet: no link to the login page.
    await expect(page.getByRole('link', { name: 'Log in' }).count()).resolves.toBe(0);

    // The server's own checks, shown beside the field: a bad username.
    await page.getByLabel('Email').fill('root@example.com');
    await page.getByLabel('Username').fill('all');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('.field', { has: page.getByLabel('Username') }).locator('.form-error').waitFor();
    await expect(page.getByLabel('Username').getAttribute('aria-invalid')).resolves.toBe('true');

    await page.getByLabel('Username').fill('root');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${url}/create_team`);
    await page.getByRole('heading', { name: 'Create a team' }).waitFor();
    const root = await loginAs(url, 'root');
    const me = await root.get<{ roles: string }>('/api/v4/users/me');
    expect(me.roles.split(' ').sort()).toEqual(['system_admin', 'system_user']);

    // The URL name follows the display name until edited, and is checked as the server checks it.
    await page.getByLabel('Team name').fill('Launch Crew!');
    await expect(page.getByLabel('Team URL').inputValue()).resolves.toBe('launch-crew');
    await page.getByLabel('Team URL').fill('api-crew');
    await page.getByRole('button', { name: 'Create team' }).click();
    await page.getByText('starts with a reserved word').waitFor();
    await expect(page.getByLabel('Team URL').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await root.get<unknown[]>('/api/v4/teams')).toEqual([]);
    expect(await axe(page)).toEqual([]);
    await page.getByLabel('Team URL').fill('launch-crew');
    // The error was about the old value: editing the field clears it.
    await expect(page.getByLabel('Team URL').getAttribute('aria-invalid')).resolves.toBeNull();
    await page.mouse.move(1, 1);
    await page.screenshot({ path: docsShot('create-team') });
    await page.getByRole('button', { name: 'Create team' }).click();
    await page.waitForURL(`${url}/launch-crew/channels/town-square`);
    await expect(page.locator('.sidebar .team-menu__name').textContent()).resolves.toBe('Launch Crew!');

    const composer = page.getByRole('textbox', { name: 'Write to #Town Square' });
    await composer.fill('Hello, first team');
    await composer.press('Enter');
    await page.locator('.post-list article.post', { hasText: 'Hello, first team' }).waitFor();
    const teams = await root.get<Array<{ id: string; name: string; display_name: string }>>('/api/v4/users/me/teams');
    expect(teams.map((t) => [t.name, t.display_name])).toEqual([['launch-crew', 'Launch Crew!']]);
    const channel = await root.get<{ id: string }>(`/api/v4/teams/${teams[0].id}/channels/name/town-square`);
    await eventually(async () => {
      const posts = await root.get<{ order: string[]; posts: Record<string, { message: string; type: string }> }>(`/api/v4/channels/${channel.id}/posts`);
      expect(posts.order.map((id) => posts.posts[id]).filter((p) => p.type === '').map((p) => p.message)).toEqual(['Hello, first team']);
    });

    // From now on the login page offers sign-up only where the server allows it: not by default...
    await page.getByRole('button', { name: /account menu/ }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.waitForURL(`${url}/login`);
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await expect(page.getByRole('link', { name: 'Create an account' }).count()).resolves.toBe(0);
    await page.goto(`${url}/`);
    await page.waitForURL(/\/login/);
    // ...and with an open server, yes.
    await root.put('/api/v4/config/patch', { TeamSettings: { EnableOpenServer: true } });
    await page.reload();
    await page.getByRole('link', { name: 'Create an account' }).waitFor();
    expect(await axe(page)).toEqual([]);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.waitForURL(`${url}/signup_user_complete`);
    await page.getByRole('heading', { name: 'Create account' }).waitFor();
    await expect(page.locator('.notice').count()).resolves.toBe(0);
  });

  test('an invite link, copied from the team menu, lets a second browser create an account and join the team; a regenerated link replaces it', async () => {
    const url = await freshServer();
    const world = await createWebWorld(url);
    const admin = await newPage();
    await signIn(admin, url, 'admin', PASSWORD, '/team-a/channels/town-square');
    await admin.getByRole('button', { name: /team menu/ }).click();
    await admin.getByRole('menuitem', { name: 'Invite people' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Invite people to Team A' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Regenerate link' }).waitFor();
    const link = await dialog.getByLabel('Invite link').inputValue();
    const team = await world.admin.get<{ invite_id: string }>(`/api/v4/teams/${world.team.id}`);
    expect(link).toBe(`${url}/signup_user_complete/?id=${team.invite_id}`);
    expect(await axe(admin)).toEqual([]);
    await admin.screenshot({ path: docsShot('invite') });
    await admin.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // A second browser, signed out, follows the link.
    const guest = await newPage();
    await guest.goto(link);
    await guest.getByRole('heading', { name: 'Create an account to join Team A' }).waitFor();
    expect(await axe(guest)).toEqual([]);
    await guest.screenshot({ path: docsShot('signup-invite') });
    await guest.getByLabel('Email').fill('carol@example.com');
    await guest.getByLabel('Username').fill('carol');
    await guest.getByLabel('Password').fill(PASSWORD);
    await guest.getByRole('button', { name: 'Create account' }).click();
    await guest.waitForURL(`${url}/team-a/channels/town-square`);
    const composer = guest.getByRole('textbox', { name: 'Write to #Town Square' });
    await composer.fill('Hi all, carol here');
    await composer.press('Enter');
    // The admin's page shows the new member's post live.
    await admin.locator('.post-list article.post', { hasText: 'Hi all, carol here' }).waitFor();
    const carol = await loginAs(url, 'carol');
    expect((await carol.get<Array<{ name: string }>>('/api/v4/users/me/teams')).map((t) => t.name)).toEqual(['team-a']);

    // The admin regenerates the link: the old one leads nowhere, the new one works for an existing account too.
    await admin.getByRole('button', { name: /team menu/ }).click();
    await admin.getByRole('menuitem', { name: 'Invite people' }).click();
    await dialog.getByRole('button', { name: 'Regenerate link' }).click();
    await dialog.getByText('The old one no longer works').waitFor();
    const newLink = await dialog.getByLabel('Invite link').inputValue();
    expect(newLink).not.toBe(link);
    const other = await newPage();
    await other.goto(link);
    await other.getByRole('alert').getByText('This invite link is not valid').waitFor();
    await expect(other.getByRole('button', { name: 'Create account' }).count()).resolves.toBe(0);

    await world.admin.post('/api/v4/users', { username: 'dave', email: 'dave@example.com', password: PASSWORD });
    await other.goto(newLink);
    await other.getByRole('link', { name: 'Log in' }).click();
    await other.waitForURL(/\/login\?redirect_to=/);
    await other.getByLabel('Email or username').fill('dave');
    await other.getByLabel('Password').fill(PASSWORD);
    await other.getByRole('button', { name: 'Log in' }).click();
    await other.waitForURL(`${url}/team-a/channels/town-square`);
    await other.locator('.channel-header').waitFor();
    const dave = await loginAs(url, 'dave');
    expect((await dave.get<Array<{ name: string }>>('/api/v4/users/me/teams')).map((t) => t.name)).toEqual(['team-a']);
  });

  test('account settings: profile fields and picture are saved and seen live by another user; password change; signing out of all sessions', async () => {
    const url = await freshServer();
    const world = await createWebWorld(url);
    await world.post(world.alice, world.channels.townSquare.id, 'Morning, everyone');
    const bob = await newPage();
    await signIn(bob, url, 'bob', PASSWORD, '/team-a/channels/town-square');
    const alicePost = bob.locator('.post-list article.post', { hasText: 'Morning, everyone' });
    await alicePost.waitFor();
    await expect(alicePost.locator('img.avatar').count()).resolves.toBe(0);

    const page = await newPage({ width: 1280, height: 900 });
    await signIn(page, url, 'alice', PASSWORD, '/team-a/channels/town-square');
    await page.getByRole('button', { name: /account menu/ }).click();
    await page.getByRole('menuitem', { name: 'Account settings' }).click();
    await page.waitForURL(`${url}/settings/profile`);
    await page.getByRole('heading', { name: 'Account settings', level: 1 }).waitFor();
    expect(await axe(page)).toEqual([]);

    await page.getByRole('textbox', { name: 'First name' }).fill('Alice');
    await page.getByLabel('Last name').fill('Liddell');
    await page.getByLabel('Nickname').fill('Ali');
    await page.getByLabel('Position').fill('Release manager');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Your profile was saved.').waitFor();
    const saved = await world.alice.get<{ first_name: string; last_name: string; nickname: string; position: string }>('/api/v4/users/me');
    expect([saved.first_name, saved.last_name, saved.nickname, saved.position]).toEqual(['Alice', 'Liddell', 'Ali', 'Release manager']);

    // A picture: uploaded from the file picker, shown here and, live, on alice's post in bob's browser.
    const png = await sharp({ create: { width: 200, height: 120, channels: 3, background: { r: 40, g: 150, b: 90 } } }).png().toBuffer();
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Upload a picture' }).click();
    await (await chooser).setFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
    await page.getByText('Your picture was updated.').waitFor();
    await page.locator('.settings__picture img.avatar').waitFor();
    await alicePost.locator('img.avatar').waitFor();
    const src = await alicePost.locator('img.avatar').getAttribute('src');
    expect(src).toMatch(new RegExp(`^/api/v4/users/${world.alice.id}/image\\?_=\\d+$`));
    // The picture the server serves is the uploaded one (a 128×128 PNG, green).
    const served = await fetch(`${url}${src}`, { headers: { Authorization: `Bearer ${world.bob.token}` } });
    const stats = await sharp(Buffer.from(await served.arrayBuffer())).stats();
    expect(stats.channels.slice(0, 3).map((c) => Math.round(c.mean))).toEqual([40, 150, 90]);
    await page.reload();
    await expect(page.getByLabel('Position').inputValue()).resolves.toBe('Release manager');
    await page.locator('.settings__picture img.avatar').waitFor();
    expect(await axe(page)).toEqual([]);
    await page.mouse.move(1, 1);
    await page.screenshot({ path: docsShot('account-settings'), fullPage: true });

    await page.getByRole('button', { name: 'Use the default picture' }).click();
    await page.getByText('Your picture is the default one again.').waitFor();
    await eventually(async () => expect(await alicePost.locator('img.avatar').count()).toBe(0));

    // Password: a wrong current password is refused with the server's words; the right one changes it.
    await page.getByLabel('Current password').fill('not-it');
    await page.getByLabel('New password', { exact: true }).fill('N3w-passw0rd!');
    await page.getByLabel('New password again').fill('N3w-passw0rd!');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.locator('section[aria-labelledby="settings-password"] [role="alert"]').waitFor();
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password was changed.').waitFor();
    await loginAs(url, 'alice', 'N3w-passw0rd!');

    // Signing out of all sessions: this page goes to the login page, and another browser of alice's is signed out.
    const elsewhere = await newPage();
    await signIn(elsewhere, url, 'alice', 'N3w-passw0rd!', '/team-a/channels/off-topic');
    await page.getByRole('button', { name: 'Sign out of all sessions' }).click();
    const confirm = page.getByRole('dialog', { name: 'Sign out of all sessions' });
    await confirm.waitFor();
    expect(await axe(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL(`${url}/login`);
    await page.getByText('You have been signed out of all your sessions.').waitFor();
    await elsewhere.reload();
    await elsewhere.waitForURL(/\/login/);
    await elsewhere.getByRole('button', { name: 'Log in' }).waitFor();
  });
});
