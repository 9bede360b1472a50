// Looking users up and managing their roles: GetUsersByUsernames, UpdateUserRoles, GetProfileImage and
// GetDefaultProfileImage (the generated picture, decoded here), AutocompleteUsers; over real HTTP on the run's database.
import { inflateSync } from 'node:zlib';
import { expectAppError } from '../support/assertions';
import { createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let sysadmin: Actor;
let alice: Actor;
let bob: Actor;
let seq = 0;

const unique = (prefix = 'u') => `${prefix}${process.pid}x${++seq}`;

beforeAll(async () => {
  server = await startTestServer();
  sysadmin = await createUser(server);
  alice = await createUser(server, sysadmin);
  bob = await createUser(server, sysadmin);
});
afterAll(() => server.close());

describe('GetUsersByUsernames', () => {
  test('returns the users found, sorted, sanitised for the caller; unknown names are left out; letter case ignored', async () => {
    const res = await alice.api.post('/api/v4/users/usernames', [bob.username, 'nobody-here', alice.username.toUpperCase(), bob.username]).expect(200);
    const expected = [alice, bob].sort((a, b) => (a.username < b.username ? -1 : 1)).map((u) => u.id);
    expect(res.body.map((u: { id: string }) => u.id)).toEqual(expected);
    const theirs = res.body.find((u: { id: string }) => u.id === bob.id);
    expect(theirs.notify_props).toEqual({});
    expect(theirs).not.toHaveProperty('password');
    const own = res.body.find((u: { id: string }) => u.id === alice.id);
    expect(own.notify_props).not.toEqual({});
  });

  test('an empty list or a body that is not a list of names is 400; no session 401', async () => {
    expectAppError(await alice.api.post('/api/v4/users/usernames', []), 400, 'api.context.invalid_param.app_error');
    expectAppError(await alice.api.post('/api/v4/users/usernames', { usernames: [bob.username] }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await alice.api.post('/api/v4/users/usernames', [1, 2]), 400, 'api.context.invalid_param.app_error');
    expectAppError(await server.http().post('/api/v4/users/usernames', [bob.username]), 401, 'api.context.session_expired.app_error');
  });
});

describe('UpdateUserRoles', () => {
  test('a system admin promotes a user, whose existing session gains the rights at once, and demotes them again', async () => {
    const carol = await createUser(server, sysadmin);
    expectAppError(await carol.api.get('/api/v4/config'), 403, 'api.context.permissions.app_error');
    expect((await sysadmin.api.put(`/api/v4/users/${carol.id}/roles`, { roles: 'system_user system_admin' }).expect(200)).body).toEqual({ status: 'OK' });
    expect((await carol.api.get('/api/v4/users/me').expect(200)).body.roles).toBe('system_user system_admin');
    await carol.api.get('/api/v4/config').expect(200);
    await carol.api.put(`/api/v4/users/${carol.id}/roles`, { roles: 'system_user' }).expect(200);
    expectAppError(await carol.api.get('/api/v4/config'), 403, 'api.context.permissions.app_error');
    await sysadmin.api.put(`/api/v4/users/${carol.id}/roles`, { roles: '  system_user   system_user_access_token ' }).expect(200);
    expect((await sysadmin.api.get(`/api/v4/users/${carol.id}`).expect(200)).body.roles).toBe('system_user system_user_access_token');
  });

  test('invalid roles 400 (before permissions, as in Mattermost); a plain user 403; an unknown user 400', async () => {
    for (const roles of ['system_admin', '', 'system_user team_admin', 'system_user bogus', 'system_guest']) {
      expectAppError(await sysadmin.api.put(`/api/v4/users/${bob.id}/roles`, { roles }), 400, 'api.context.invalid_param.app_error');
    }
    expectAppError(await sysadmin.api.put(`/api/v4/users/${bob.id}/roles`, {}), 400, 'api.context.invalid_param.app_error');
    expectAppError(await alice.api.put(`/api/v4/users/${alice.id}/roles`, { roles: 'system_user system_admin' }), 403, 'api.context.permissions.app_error');
    expectAppError(await alice.api.put(`/api/v4/users/${bob.id}/roles`, { roles: 'system_user' }), 403, 'api.context.permissions.app_error');
    expectAppError(await sysadmin.api.put('/api/v4/users/aaaaaaaaaaaaaaaaaaaaaaaaaa/roles', { roles: 'system_user' }), 400, 'app.user.missing_account.const');
    expect((await alice.api.get('/api/v4/users/me').expect(200)).body.roles).toBe('system_user');
  });

  test('the last active system admin keeps the role, also when two admins demote each other at once', async () => {
    expectAppError(await sysadmin.api.put(`/api/v4/users/${sysadmin.id}/roles`, { roles: 'system_user' }), 400, 'app.user.update.lastAdmin.app_error');
    const dave = await createUser(server, sysadmin);
    await sysadmin.api.put(`/api/v4/users/${dave.id}/roles`, { roles: 'system_user system_admin' }).expect(200);
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all([
        dave.api.put(`/api/v4/users/${sysadmin.id}/roles`, { roles: 'system_user' }),
        sysadmin.api.put(`/api/v4/users/${dave.id}/roles`, { roles: 'system_user' }),
      ]);
      // One wins. The other is refused: as the last admin's demotion (400) when it read the roles first, or as no
      // longer an admin at all (403) when its session was read after the winner committed.
      const statuses = answers.map((a) => a.status).sort();
      expect([[200, 400], [200, 403]]).toContainEqual(statuses);
      const loser = answers.find((a) => a.status !== 200);
      expect(loser?.body.id).toBe(loser?.status === 400 ? 'app.user.update.lastAdmin.app_error' : 'api.context.permissions.app_error');
      expect((await alice.api.get('/api/v4/users?role=system_admin&active=true').expect(200)).body).toHaveLength(1);
      // Back to two admins: whoever kept the role promotes the other.
      const keeper = answers[0].status === 200 ? dave : sysadmin;
      const demoted = keeper === dave ? sysadmin : dave;
      await keeper.api.put(`/api/v4/users/${demoted.id}/roles`, { roles: 'system_user system_admin' }).expect(200);
    }
    // A deactivated admin does not count: demoting the only active one is refused.
    await sysadmin.api.put(`/api/v4/users/${dave.id}/active`, { active: false }).expect(200);
    expectAppError(await sysadmin.api.put(`/api/v4/users/${sysadmin.id}/roles`, { roles: 'system_user' }), 400, 'app.user.update.lastAdmin.app_error');
  });
});

/** The palette and hash Mattermost picks a default picture's background with (written out here independently). */
const PALETTE = [
  [197, 8, 126], [227, 207, 18], [28, 181, 105], [35, 188, 224], [116, 49, 196], [197, 8, 126], [197, 19, 19],
  [250, 134, 6], [227, 207, 18], [123, 201, 71], [28, 181, 105], [35, 188, 224], [116, 49, 196], [197, 8, 126],
  [197, 19, 19], [250, 134, 6], [227, 207, 18], [123, 201, 71], [28, 181, 105], [35, 188, 224], [116, 49, 196],
  [197, 8, 126], [197, 19, 19], [250, 134, 6], [227, 207, 18], [123, 201, 71],
];
function fnv1a32(text: string): number {
  let h = 2166136261n;
  for (const b of Buffer.from(text)) h = ((h ^ BigInt(b)) * 16777619n) & 0xffffffffn;
  return Number(h);
}

/** Decodes an 8-bit RGBA, non-interlaced PNG whose rows use filter 0 (as the server writes them). */
function decodePng(png: Buffer): { width: number; height: number; pixel(x: number, y: number): number[] } {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  let offset = 8;
  const idat: Buffer[] = [];
  let width = 0;
  let height = 0;
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('ascii', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      expect([data[8], data[9], data[12]]).toEqual([8, 6, 0]);
    }
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  expect(raw.length).toBe((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) if (raw[y * (width * 4 + 1)] !== 0) throw new Error(`row ${y} has filter ${raw[y * (width * 4 + 1)]}`);
  return {
    width,
    height,
    pixel: (x, y) => {
      const at = y * (width * 4 + 1) + 1 + x * 4;
      return [raw[at], raw[at + 1], raw[at + 2], raw[at + 3]];
    },
  };
}

function whitePixels(img: ReturnType<typeof decodePng>): number {
  let n = 0;
  for (let y = 0; y < img.height; y++) for (let x = 0; x < img.width; x++) if (img.pixel(x, y).join() === '255,255,255,255') n++;
  return n;
}

const binary = (res: { on: (e: string, f: (c: Buffer) => void) => void }, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};

describe('GetProfileImage and GetDefaultProfileImage', () => {
  test("a 128×128 PNG: the background Mattermost's hash picks from the id, the username's initial in white, centred", async () => {
    const res = await alice.api.get(`/api/v4/users/${bob.id}/image`).buffer(true).parse(binary).expect(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['cache-control']).toBe('max-age=300, private');
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
    const img = decodePng(res.body);
    expect([img.width, img.height]).toEqual([128, 128]);
    expect(img.pixel(0, 0)).toEqual([...PALETTE[fnv1a32(bob.id) % 26], 255]);
    expect(img.pixel(127, 127)).toEqual([...PALETTE[fnv1a32(bob.id) % 26], 255]);
    // The glyph: solid white strokes between the cap line (about y 39) and the baseline (85), around the middle.
    expect(whitePixels(img)).toBeGreaterThan(400);
    for (let y = 0; y < 30; y++) for (const x of [0, 64, 127]) expect(img.pixel(x, y)[0]).not.toBe(255);
    const def = await alice.api.get(`/api/v4/users/${bob.id}/image/default`).buffer(true).parse(binary).expect(200);
    expect(def.headers['content-type']).toBe('image/png');
    expect(def.body.equals(res.body)).toBe(true);
  });

  test('the ETag follows the picture: 304 while it matches; a new initial changes both', async () => {
    const user = await createUser(server, sysadmin, { username: unique('kim') });
    const first = await user.api.get(`/api/v4/users/me/image`).buffer(true).parse(binary).expect(200);
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    await user.api.get(`/api/v4/users/${user.id}/image?_=0`).set('If-None-Match', etag).expect(304);
    // Same initial: same picture, same tag.
    await user.api.put('/api/v4/users/me/patch', { username: unique('kate') }).expect(200);
    await user.api.get(`/api/v4/users/${user.id}/image`).set('If-None-Match', etag).expect(304);
    await user.api.put('/api/v4/users/me/patch', { username: unique('zed') }).expect(200);
    const changed = await user.api.get(`/api/v4/users/${user.id}/image`).set('If-None-Match', etag).buffer(true).parse(binary).expect(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.body.equals(first.body)).toBe(false);
    // Same colour (same id), another glyph.
    expect(decodePng(changed.body).pixel(0, 0)).toEqual(decodePng(first.body).pixel(0, 0));
  });

  test('different users get their own colours; the picture is stable for a user', async () => {
    const colours = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const u = await createUser(server, sysadmin);
      const a = await alice.api.get(`/api/v4/users/${u.id}/image`).buffer(true).parse(binary).expect(200);
      const b = await alice.api.get(`/api/v4/users/${u.id}/image`).buffer(true).parse(binary).expect(200);
      expect(a.body.equals(b.body)).toBe(true);
      const px = decodePng(a.body).pixel(1, 1);
      expect(px).toEqual([...PALETTE[fnv1a32(u.id) % 26], 255]);
      colours.add(px.join());
    }
    expect(colours.size).toBeGreaterThan(1);
  });

  test('a browser loads it with its session cookie alone (an <img>); unknown user 404; no session 401', async () => {
    const login = await server.http().post('/api/v4/users/login', { login_id: alice.username, password: 'Passw0rd!' }).set('X-Requested-With', 'XMLHttpRequest').expect(200);
    const cookies = (login.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]).join('; ');
    const res = await fetch(`${server.url}/api/v4/users/${bob.id}/image`, { headers: { Cookie: cookies } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expectAppError(await alice.api.get('/api/v4/users/aaaaaaaaaaaaaaaaaaaaaaaaaa/image'), 404, 'app.user.missing_account.const');
    expectAppError(await alice.api.get('/api/v4/users/aaaaaaaaaaaaaaaaaaaaaaaaaa/image/default'), 404, 'app.user.missing_account.const');
    expectAppError(await server.http().get(`/api/v4/users/${bob.id}/image`), 401, 'api.context.session_expired.app_error');
  });
});

describe('AutocompleteUsers', () => {
  let teamId: string;
  let channelId: string;
  let privateId: string;
  let tag: string;
  const people: Record<string, Actor> = {};
  const names = (list: Array<{ username: string }>) => list.map((u) => u.username);

  beforeAll(async () => {
    tag = `q${process.pid}x${++seq}`;
    const spec: Array<[string, Record<string, string>]> = [
      ['ann', { username: `${tag}ann`, first_name: 'Annabel', last_name: 'Zorro', nickname: 'annie' }],
      ['ben', { username: `${tag}ben`, first_name: 'Benedict', last_name: 'Young', nickname: '' }],
      ['cat', { username: `${tag}cat`, first_name: 'Catalina', last_name: 'Xu', nickname: 'kitty' }],
      ['dan', { username: `${tag}dan`, first_name: 'Daniel', last_name: 'Zorro', nickname: '' }],
      ['under', { username: `${tag}a_b`, first_name: '', last_name: '', nickname: '' }],
      ['plain', { username: `${tag}axb`, first_name: '', last_name: '', nickname: '' }],
    ];
    for (const [key, fields] of spec) people[key] = await createUser(server, sysadmin, { ...fields, email: `${fields.username}-mail@example.com` });
    teamId = await createTeam(people.ann, `${tag}team`, [people.ben, people.cat, people.dan, people.under, people.plain, alice]);
    channelId = (await people.ann.api.post('/api/v4/channels', { team_id: teamId, name: `${tag}chan`, display_name: 'C', type: 'O' }).expect(201)).body.id;
    for (const key of ['ben', 'cat']) await people.ann.api.post(`/api/v4/channels/${channelId}/members`, { user_id: people[key].id }).expect(201);
    privateId = (await people.ann.api.post('/api/v4/channels', { team_id: teamId, name: `${tag}priv`, display_name: 'P', type: 'P' }).expect(201)).body.id;
    // Dan is deactivated: never suggested.
    await sysadmin.api.put(`/api/v4/users/${people.dan.id}/active`, { active: false }).expect(200);
  });

  test('with a channel: its members in users, the rest of the team in out_of_channel, sorted by username', async () => {
    const res = await alice.api.get(`/api/v4/users/autocomplete?in_team=${teamId}&in_channel=${channelId}&name=${tag}`).expect(200);
    expect(names(res.body.users)).toEqual([`${tag}ann`, `${tag}ben`, `${tag}cat`]);
    expect(names(res.body.out_of_channel)).toEqual([`${tag}a_b`, `${tag}axb`]);
  });

  test('with a team only: its members, and no out_of_channel; with neither: everyone', async () => {
    const team = await alice.api.get(`/api/v4/users/autocomplete?in_team=${teamId}&name=${tag}`).expect(200);
    expect(names(team.body.users)).toEqual([`${tag}a_b`, `${tag}ann`, `${tag}axb`, `${tag}ben`, `${tag}cat`]);
    expect(team.body).not.toHaveProperty('out_of_channel');
    // Client4 sends empty parameters for what it was not given.
    const everyone = await bob.api.get(`/api/v4/users/autocomplete?in_team=&in_channel=&name=${tag}&limit=25`).expect(200);
    expect(names(everyone.body.users)).toEqual([`${tag}a_b`, `${tag}ann`, `${tag}axb`, `${tag}ben`, `${tag}cat`]);
  });

  test('matches the start of username, nickname, first and last name, ignoring case and a leading @; never e-mail', async () => {
    const find = async (name: string) => names((await alice.api.get(`/api/v4/users/autocomplete?in_team=${teamId}&name=${encodeURIComponent(name)}`).expect(200)).body.users);
    expect(await find(`@${tag.toUpperCase()}CA`)).toEqual([`${tag}cat`]);
    expect(await find('kitt')).toEqual([`${tag}cat`]);
    expect(await find('benedi')).toEqual([`${tag}ben`]);
    expect(await find('zorr')).toEqual([`${tag}ann`]);
    expect(await find('annabel zor')).toEqual([`${tag}ann`]);
    expect(await find('nabel')).toEqual([]);
    expect(await find(`${tag}ann-mail`)).toEqual([]);
    expect(await find('example.com')).toEqual([]);
    // "_" and "%" are themselves, not wildcards.
    expect(await find(`${tag}a_`)).toEqual([`${tag}a_b`]);
    expect(await find(`${tag}%`)).toEqual([]);
  });

  test('full names are searched only where the caller may see them', async () => {
    await sysadmin.api.put('/api/v4/config/patch', { PrivacySettings: { ShowFullName: false } }).expect(200);
    try {
      expect((await alice.api.get(`/api/v4/users/autocomplete?in_team=${teamId}&name=benedi`).expect(200)).body.users).toEqual([]);
      const hidden = (await alice.api.get(`/api/v4/users/autocomplete?in_team=${teamId}&name=kitty`).expect(200)).body.users[0];
      expect(hidden).toMatchObject({ username: `${tag}cat`, first_name: '', last_name: '' });
      expect(names((await sysadmin.api.get(`/api/v4/users/autocomplete?in_team=${teamId}&name=benedi`).expect(200)).body.users)).toEqual([`${tag}ben`]);
    } finally {
      await sysadmin.api.put('/api/v4/config/patch', { PrivacySettings: { ShowFullName: true } }).expect(200);
    }
  });

  test('limit caps each list', async () => {
    const res = await alice.api.get(`/api/v4/users/autocomplete?in_team=${teamId}&in_channel=${channelId}&name=${tag}&limit=2`).expect(200);
    expect(names(res.body.users)).toEqual([`${tag}ann`, `${tag}ben`]);
    expect(names(res.body.out_of_channel)).toEqual([`${tag}a_b`, `${tag}axb`]);
    const one = await alice.api.get(`/api/v4/users/autocomplete?in_team=${teamId}&name=${tag}&limit=1`).expect(200);
    expect(one.body.users).toHaveLength(1);
  });

  test('permissions and errors', async () => {
    expectAppError(await alice.api.get(`/api/v4/users/autocomplete?in_channel=${channelId}&name=x`), 400, 'api.user.autocomplete_users.missing_team_id.app_error');
    expectAppError(await alice.api.get(`/api/v4/users/autocomplete?in_team=${teamId}&in_channel=${privateId}&name=x`), 403, 'api.context.permissions.app_error');
    expectAppError(await bob.api.get(`/api/v4/users/autocomplete?in_team=${teamId}&name=x`), 403, 'api.context.permissions.app_error');
    expectAppError(await alice.api.get(`/api/v4/users/autocomplete?in_team=${teamId}&in_channel=aaaaaaaaaaaaaaaaaaaaaaaaaa&name=x`), 404, 'app.channel.get.existing.app_error');
    expectAppError(await alice.api.get('/api/v4/users/autocomplete?in_team=not-an-id'), 400, 'api.context.invalid_param.app_error');
    expectAppError(await server.http().get('/api/v4/users/autocomplete?name=x'), 401, 'api.context.session_expired.app_error');
    await people.ann.api.get(`/api/v4/users/autocomplete?in_team=${teamId}&in_channel=${privateId}&name=x`).expect(200);
  });
});
