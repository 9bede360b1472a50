import type { Response } from 'supertest';
import { PASSWORD, createWorld, startTestServer, type TestServer, type World } from '../support/server';

// Every stored text field, at its limit and one past it. At the limit the value must come back intact: on MariaDB
// that proves the column holds it (code-point limits are filled with 4-byte characters, the worst case for the
// column's bytes). One past it must be a 400: a value MySQL refuses would otherwise surface as a 500, and SQLite,
// which stores anything, would accept what MySQL refuses.

let server: TestServer;
let world: World;
let seq = 0;

const EMOJI = '\u{1F600}';
/** n code points of 4 bytes each. */
const wide = (n: number) => EMOJI.repeat(n);
const ascii = (n: number) => 'a'.repeat(n);
const unique = () => `${process.pid}x${++seq}`;
/** A valid lower-case name of exactly n characters (n >= 12), unique per call. */
const nameOf = (n: number) => {
  const tag = `z${unique()}`.replace(/x/g, 'y');
  return tag + 'n'.repeat(n - tag.length);
};
const emailOf = (n: number) => `${ascii(n - '@example.com'.length - 1)}${seq++ % 10}@example.com`;

interface Limit {
  field: string;
  max: number;
  /** A value of `n` units (code points, bytes or characters, as the limit counts). */
  value: (n: number) => string;
  /** Sends the value; resolves to the response. */
  write: (value: string) => Promise<Response>;
  /** The stored value, read back after a successful write. */
  stored: (res: Response) => Promise<unknown> | unknown;
}

/** A map whose JSON is exactly `bytes` long, built around one key. */
function mapOfBytes(bytes: number, base: Record<string, string> = {}): Record<string, string> {
  const empty = JSON.stringify({ ...base, zz: '' });
  return { ...base, zz: ascii(bytes - Buffer.byteLength(empty)) };
}

const me = () => world.member.api.get('/api/v4/users/me').expect(200);
const patchMe = (body: object) => world.member.api.put('/api/v4/users/me/patch', body);
const createTeam = (fields: object) => world.admin.api.post('/api/v4/teams', { name: nameOf(20), display_name: 'Limits', type: 'O', ...fields });
const createChannel = (fields: object) =>
  world.admin.api.post('/api/v4/channels', { team_id: world.teamId, name: nameOf(20), display_name: 'Limits', type: 'O', ...fields });
const createHook = (fields: object) => world.admin.api.post('/api/v4/hooks/incoming', { channel_id: world.townSquareId, ...fields });
const lastPost = async () => {
  const list = (await world.admin.api.get(`/api/v4/channels/${world.townSquareId}/posts?per_page=1`).expect(200)).body;
  return list.posts[list.order[0]];
};

const LIMITS: Limit[] = [
  ...(['nickname', 'first_name', 'last_name'] as const).map((field) => ({
    field: `user ${field}`,
    max: 64,
    value: wide,
    write: (v: string) => patchMe({ [field]: v }),
    stored: (res: Response) => res.body[field],
  })),
  { field: 'user position', max: 128, value: wide, write: (v) => patchMe({ position: v }), stored: (res) => res.body.position },
  { field: 'user username', max: 64, value: nameOf, write: (v) => patchMe({ username: v }), stored: (res) => res.body.username },
  { field: 'user email', max: 128, value: emailOf, write: (v) => patchMe({ email: v, password: PASSWORD }), stored: async () => (await me()).body.email },
  { field: 'user locale', max: 5, value: (n) => 'en_GB_x'.slice(0, n), write: (v) => patchMe({ locale: v }), stored: (res) => res.body.locale },
  {
    field: 'user timezone (JSON)',
    max: 256,
    value: (n) => ascii(n - JSON.stringify({ manualTimezone: '' }).length),
    write: (v) => patchMe({ timezone: { manualTimezone: v } }),
    stored: async () => (await me()).body.timezone.manualTimezone,
  },
  {
    field: 'user props (JSON bytes)',
    max: 65535,
    value: (n) => JSON.stringify(mapOfBytes(n)),
    write: (v) => patchMe({ props: JSON.parse(v) }),
    stored: async () => JSON.stringify((await me()).body.props),
  },
  {
    field: 'user notify_props (JSON bytes, merged)',
    max: 65535,
    value: (n) => String(n),
    // The stored map is the current one with this key added: it is that JSON which is n bytes.
    write: async (n) => {
      const { zz: _, ...current } = (await me()).body.notify_props as Record<string, string>;
      return patchMe({ notify_props: mapOfBytes(Number(n), current) });
    },
    stored: async () => String(Buffer.byteLength(JSON.stringify((await me()).body.notify_props))),
  },
  { field: 'team display_name', max: 64, value: wide, write: (v) => createTeam({ display_name: v }), stored: (res) => res.body.display_name },
  { field: 'team name', max: 64, value: nameOf, write: (v) => createTeam({ name: v }), stored: (res) => res.body.name },
  { field: 'team description', max: 255, value: wide, write: (v) => createTeam({ description: v }), stored: (res) => res.body.description },
  { field: 'team company_name', max: 64, value: wide, write: (v) => createTeam({ company_name: v }), stored: (res) => res.body.company_name },
  { field: 'team email', max: 128, value: emailOf, write: (v) => createTeam({ email: v }), stored: (res) => res.body.email },
  { field: 'team allowed_domains', max: 500, value: ascii, write: (v) => createTeam({ allowed_domains: v }), stored: (res) => res.body.allowed_domains },
  { field: 'channel name', max: 64, value: nameOf, write: (v) => createChannel({ name: v }), stored: (res) => res.body.name },
  { field: 'channel display_name', max: 64, value: wide, write: (v) => createChannel({ display_name: v }), stored: (res) => res.body.display_name },
  { field: 'channel header', max: 1024, value: wide, write: (v) => createChannel({ header: v }), stored: (res) => res.body.header },
  { field: 'channel purpose', max: 250, value: wide, write: (v) => createChannel({ purpose: v }), stored: (res) => res.body.purpose },
  {
    field: 'post message',
    max: 16383,
    value: wide,
    write: (v) => world.admin.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: v }),
    stored: async (res) => (await world.admin.api.get(`/api/v4/posts/${res.body.id}`).expect(200)).body.message,
  },
  {
    field: 'post pending_post_id',
    max: 64,
    value: ascii,
    write: (v) => world.admin.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'pending', pending_post_id: v }),
    stored: async (res) => (await world.admin.api.get(`/api/v4/posts/${res.body.id}`).expect(200)).body.pending_post_id,
  },
  { field: 'hook display_name (bytes)', max: 64, value: ascii, write: (v) => createHook({ display_name: v }), stored: (res) => res.body.display_name },
  { field: 'hook description (bytes)', max: 500, value: ascii, write: (v) => createHook({ description: v }), stored: (res) => res.body.description },
  { field: 'hook username', max: 64, value: nameOf, write: (v) => createHook({ username: v }), stored: (res) => res.body.username },
  { field: 'hook icon_url (bytes)', max: 1024, value: (n) => `https://example.com/${ascii(n - 20)}`, write: (v) => createHook({ icon_url: v }), stored: (res) => res.body.icon_url },
  {
    field: 'webhook post type',
    max: 64,
    value: (n) => `custom_${ascii(n - 7)}`,
    write: async (v) => {
      const hook = (await createHook({}).expect(201)).body;
      return world.admin.api.post(`/hooks/${hook.id}`, { text: 'typed', type: v });
    },
    stored: async () => (await lastPost()).type,
  },
  {
    field: 'access token description',
    max: 255,
    value: ascii,
    write: (v) => world.admin.api.post('/api/v4/users/me/tokens', { description: v }),
    stored: (res) => res.body.description,
  },
];

beforeAll(async () => {
  server = await startTestServer({
    MM_SERVICESETTINGS_ENABLEUSERACCESSTOKENS: 'true',
    MM_SERVICESETTINGS_ENABLEPOSTUSERNAMEOVERRIDE: 'true',
    MM_SERVICESETTINGS_ENABLEPOSTICONOVERRIDE: 'true',
  });
  world = await createWorld(server);
});
afterAll(() => server.close());

describe.each(LIMITS)('$field: at most $max', (limit) => {
  test('at the limit: stored intact', async () => {
    const value = limit.value(limit.max);
    const res = await limit.write(value);
    if (res.status >= 300) throw new Error(`refused at the limit: ${res.status} ${JSON.stringify(res.body)}`);
    expect(await limit.stored(res)).toBe(value);
  });

  test('one past the limit: a 400 AppError', async () => {
    const res = await limit.write(limit.value(limit.max + 1));
    expect({ status: res.status, status_code: res.body.status_code, id: typeof res.body.id }).toEqual({ status: 400, status_code: 400, id: 'string' });
  });
});
