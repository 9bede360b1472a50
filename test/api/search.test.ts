// SearchPosts over a fixed corpus, through the HTTP API (and Client4), on the run's database: every row of the table
// is a search and the exact posts it must find, newest first. The corpus has posts the caller must never see (a
// private channel they are not in, a public channel they have not joined, another team, a deleted post, an archived
// channel unless asked for), posts on day boundaries for time zones, hashtags, accents and short words.
import { testDialect } from '../support/database';
import { expectAppError } from '../support/assertions';
import { client4For } from '../support/client4';
import { atTime, createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let admin: Actor;
let member: Actor; // the caller of every search
let bob: Actor;
let teamId: string;
const ids: Record<string, string> = {};
const names: Record<string, string> = {};
let seq = 0;

const at = (iso: string) => Date.parse(iso);

async function channel(as: Actor, name: string, type: 'O' | 'P', members: Actor[], team = teamId): Promise<string> {
  const res = await as.api.post('/api/v4/channels', { team_id: team, name: `${name}-${process.pid}`, display_name: name, type }).expect(201);
  if (members.length) await as.api.post(`/api/v4/channels/${res.body.id}/members`, { user_ids: members.map((m) => m.id) }).expect(201);
  names[name] = res.body.name;
  return res.body.id;
}

async function post(key: string, as: Actor, channelId: string, iso: string, message: string, rootKey?: string): Promise<void> {
  const res = await atTime(server, at(iso), () =>
    as.api.post('/api/v4/posts', { channel_id: channelId, message, ...(rootKey ? { root_id: ids[rootKey] } : {}) }).expect(201),
  );
  ids[key] = res.body.id;
}

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  member = await createUser(server, admin, { username: `member${process.pid}` });
  bob = await createUser(server, admin, { username: `bob${process.pid}` });
  teamId = await createTeam(admin, `search${process.pid}`, [member, bob]);
  const town = (await admin.api.get(`/api/v4/teams/${teamId}/channels/name/town-square`).expect(200)).body.id;
  const off = (await admin.api.get(`/api/v4/teams/${teamId}/channels/name/off-topic`).expect(200)).body.id;
  const club = await channel(admin, 'club', 'P', [member]);
  const secret = await channel(admin, 'secret', 'P', [bob]);
  const lobby = await channel(admin, 'lobby', 'O', []);
  const old = await channel(admin, 'old', 'O', [member]);
  const dm = (await member.api.post('/api/v4/channels/direct', [member.id, bob.id]).expect(201)).body.id;
  const team2 = await createTeam(admin, `elsewhere${process.pid}`, [member]);
  const town2 = (await admin.api.get(`/api/v4/teams/${team2}/channels/name/town-square`).expect(200)).body.id;

  await post('p1', admin, town, '2024-03-10T10:00:00Z', 'Deploy of the billing service finished');
  await post('p2', bob, town, '2024-03-10T23:30:00Z', 'deployment failed on staging');
  await post('p3', member, off, '2024-03-11T12:00:00Z', 'The quick brown fox jumps over the lazy dog');
  await post('p4', bob, off, '2024-03-12T09:00:00Z', 'brown bread recipe: flour, water, salt');
  await post('p5', admin, club, '2024-03-12T15:00:00Z', 'Secret plans for the quick launch #release');
  await post('p6', admin, secret, '2024-03-12T16:00:00Z', 'deploy secret keys');
  await post('p7', admin, lobby, '2024-03-12T17:00:00Z', 'deploy lobby announcement');
  await post('p8', member, old, '2024-03-13T08:00:00Z', 'deploy archived notes');
  await post('p9', bob, dm, '2024-03-13T10:00:00Z', 'can you review the deploy script?');
  await post('p10', member, town, '2024-03-14T09:00:00Z', 'Café crème at the office');
  await post('p11', admin, town, '2024-03-14T11:00:00Z', 'go to the office at 9');
  await post('p12', admin, town, '2024-03-14T12:00:00Z', 'deploy deleted message');
  await post('p13', bob, town, '2024-03-15T08:00:00Z', 'deploy went well, thanks', 'p1');
  await post('p14', member, town2, '2024-03-15T09:00:00Z', 'deploy in another team');
  await post('p15', bob, town, '2024-03-16T09:00:00Z', '#release notes for v2 and the #releases archive');
  await post('p16', admin, town, '2024-03-16T10:00:00Z', 'release day, service-12 is up');
  await admin.api.delete(`/api/v4/posts/${ids.p12}`).expect(200);
  // Archived as DeleteChannel archives (delete_at set); the channel keeps its members and posts.
  await server.parley.db.knex('channels').where({ id: old }).update({ delete_at: at('2024-03-20T00:00:00Z') });
});
afterAll(() => server.close());

interface Search {
  terms: string;
  is_or_search?: boolean;
  time_zone_offset?: number;
  include_deleted_channels?: boolean;
  page?: number;
  per_page?: number;
}

async function search(params: Search, as: Actor = member) {
  const res = await as.api.post(`/api/v4/teams/${teamId}/posts/search`, params).expect(200);
  expect(res.headers['cache-control']).toBe('no-cache, no-store, must-revalidate');
  return res.body as { order: string[]; posts: Record<string, { id: string; message: string }>; matches: null; has_next: boolean; next_post_id: string; prev_post_id: string };
}

const keysOf = (order: string[]) => order.map((id) => Object.keys(ids).find((k) => ids[k] === id) ?? id);
const mysql = testDialect() === 'mysql';
const user = (name: 'member' | 'bob') => (name === 'member' ? member.username : bob.username);

describe('the search table', () => {
  test.each<[string, () => Search, string[]]>([
    ['one word: only channels the caller is in (no private channel of others, no unjoined public one, no other team, no deleted post, no archived channel)', () => ({ terms: 'deploy' }), ['p13', 'p9', 'p1']],
    ['letter case does not matter', () => ({ terms: 'DEPLOY' }), ['p13', 'p9', 'p1']],
    ['a prefix', () => ({ terms: 'deploy*' }), ['p13', 'p9', 'p2', 'p1']],
    ['a short prefix', () => ({ terms: 'dep*' }), ['p13', 'p9', 'p2', 'p1']],
    ['every word (AND), in any order', () => ({ terms: 'brown quick' }), ['p3']],
    ['any word (OR)', () => ({ terms: 'brown quick', is_or_search: true }), ['p5', 'p4', 'p3']],
    ['a phrase', () => ({ terms: '"quick brown"' }), ['p3']],
    ['a phrase in the wrong order finds nothing', () => ({ terms: '"brown quick"' }), []],
    ['a phrase with stopwords', () => ({ terms: '"the office"' }), ['p11', 'p10']],
    ['a phrase with short words', () => ({ terms: '"to the office"' }), ['p11']],
    ['a word with punctuation inside is a phrase', () => ({ terms: 'service-12' }), ['p16']],
    ['accents do not matter', () => ({ terms: 'cafe CREME' }), ['p10']],
    ['a short word narrows another', () => ({ terms: 'office go' }), ['p11']],
    // MariaDB's FULLTEXT index holds no word under 3 characters (innodb_ft_min_token_size): alone, one finds nothing.
    ['a short word alone', () => ({ terms: 'go' }), mysql ? [] : ['p11']],
    ['from:', () => ({ terms: `from:${user('bob')} deploy*` }), ['p13', 'p9', 'p2']],
    ['from:@ with the value after a space', () => ({ terms: `from: @${user('bob')} deploy` }), ['p13', 'p9']],
    ['-from:', () => ({ terms: `-from:${user('bob')} deploy*` }), ['p1']],
    ['from: an unknown user finds nothing', () => ({ terms: 'from:nobody-at-all deploy' }), []],
    ['in: a channel name', () => ({ terms: 'in:town-square deploy*' }), ['p13', 'p2', 'p1']],
    ['in:~ and channel:', () => ({ terms: `channel:~${names.club} quick` }), ['p5']],
    ['in:@user is the direct channel', () => ({ terms: `in:@${user('bob')} deploy` }), ['p9']],
    ['-in:', () => ({ terms: '-in:town-square deploy*' }), ['p9']],
    ['in: a private channel the caller is not in finds nothing', () => ({ terms: `in:${names.secret} deploy` }), []],
    ['in: a public channel the caller has not joined finds nothing', () => ({ terms: `in:${names.lobby} deploy` }), []],
    ['an excluded word', () => ({ terms: 'deploy* -staging' }), ['p13', 'p9', 'p1']],
    ['an excluded phrase', () => ({ terms: 'deploy* -"went well"' }), ['p9', 'p2', 'p1']],
    ['an excluded short word', () => ({ terms: 'office -go' }), ['p10']],
    ['on: a day in UTC', () => ({ terms: 'on:2024-03-10 deploy*' }), ['p2', 'p1']],
    ['on: a day in UTC+2 (23:30 UTC is the next day there)', () => ({ terms: 'on:2024-03-10 deploy*', time_zone_offset: 7200 }), ['p1']],
    ['on: the next day in UTC+2', () => ({ terms: 'on:2024-03-11 deploy* brown', is_or_search: true, time_zone_offset: 7200 }), ['p3', 'p2']],
    ['on: a day in UTC-11 (10:00 UTC is still the day before)', () => ({ terms: 'on:2024-03-09 deploy*', time_zone_offset: -11 * 3600 }), ['p1']],
    ['after: starts the day after', () => ({ terms: 'after:2024-03-12 deploy' }), ['p13', 'p9']],
    ['before: ends the day before', () => ({ terms: 'before:2024-03-13 deploy' }), ['p1']],
    ['after: and before: together', () => ({ terms: 'after:2024-03-10 before:2024-03-15 deploy*' }), ['p9']],
    ['-on: leaves a day out', () => ({ terms: '-on:2024-03-10 deploy*' }), ['p13', 'p9']],
    ['an unreadable after: finds nothing', () => ({ terms: 'after:yesterday deploy' }), []],
    ['a hashtag: the tag itself, not the word or a longer tag', () => ({ terms: '#release' }), ['p15', 'p5']],
    ['a longer hashtag', () => ({ terms: '#releases' }), ['p15']],
    ['the plain word also finds hashtags', () => ({ terms: 'release' }), ['p16', 'p15', 'p5']],
    ['an excluded hashtag', () => ({ terms: 'release -#release' }), ['p16']],
    ['filters alone', () => ({ terms: `from:${user('member')}` }), ['p10', 'p3']],
    ['filters alone, with an exclusion', () => ({ terms: `in:town-square -deploy*` }), ['p16', 'p15', 'p11', 'p10']],
    ['archived channels with include_deleted_channels', () => ({ terms: 'deploy', include_deleted_channels: true }), ['p13', 'p9', 'p8', 'p1']],
    ['only a star finds nothing', () => ({ terms: '*' }), []],
    ['blank terms find nothing', () => ({ terms: '   ' }), []],
    ['a word nobody wrote', () => ({ terms: 'zanzibar' }), []],
  ])('%s', async (_name, params, want) => {
    const body = await search(params());
    expect(keysOf(body.order)).toEqual(want);
    expect(Object.keys(body.posts).sort()).toEqual([...body.order].sort());
    expect(body).toMatchObject({ matches: null, next_post_id: '', prev_post_id: '', has_next: false });
  });
});

test('paging: per_page and page walk the results, has_next says whether more follow', async () => {
  const pages = [];
  for (let page = 0; page < 3; page++) pages.push(await search({ terms: 'deploy*', per_page: 2, page }));
  expect(pages.map((p) => keysOf(p.order))).toEqual([['p13', 'p9'], ['p2', 'p1'], []]);
  expect(pages.map((p) => p.has_next)).toEqual([true, false, false]);
  expect(keysOf((await search({ terms: 'deploy*', per_page: 3, page: 1 })).order)).toEqual(['p1']);
  // per_page 0 asks for nothing; a page past the deepest result served is empty.
  expect((await search({ terms: 'deploy*', per_page: 0 })).order).toEqual([]);
  expect((await search({ terms: 'deploy*', per_page: 200, page: 50 })).order).toEqual([]);
});

test('the posts come whole, with their thread counts', async () => {
  const body = await search({ terms: 'billing' });
  expect(body.posts[ids.p1]).toMatchObject({ id: ids.p1, message: 'Deploy of the billing service finished', reply_count: 1 });
});

test('an edit changes what matches at once, and a deletion removes the post at once', async () => {
  const town = (await member.api.get(`/api/v4/teams/${teamId}/channels/name/town-square`).expect(200)).body.id;
  const id = (await member.api.post('/api/v4/posts', { channel_id: town, message: `kumquat harvest ${++seq}` }).expect(201)).body.id;
  expect((await search({ terms: 'kumquat' })).order).toEqual([id]);
  await member.api.put(`/api/v4/posts/${id}/patch`, { message: 'persimmon harvest' }).expect(200);
  expect((await search({ terms: 'kumquat' })).order).toEqual([]);
  expect((await search({ terms: 'persimmon' })).order).toEqual([id]);
  // Pinning leaves the message as it is: still found.
  await member.api.put(`/api/v4/posts/${id}/patch`, { is_pinned: true }).expect(200);
  expect((await search({ terms: 'persimmon' })).order).toEqual([id]);
  await member.api.delete(`/api/v4/posts/${id}`).expect(200);
  expect((await search({ terms: 'persimmon' })).order).toEqual([]);
});

test('a reply deleted with its thread is gone too', async () => {
  const town = (await member.api.get(`/api/v4/teams/${teamId}/channels/name/town-square`).expect(200)).body.id;
  const root = (await member.api.post('/api/v4/posts', { channel_id: town, message: 'tangerine root' }).expect(201)).body.id;
  const reply = (await bob.api.post('/api/v4/posts', { channel_id: town, message: 'tangerine reply', root_id: root }).expect(201)).body.id;
  expect((await search({ terms: 'tangerine' })).order).toEqual([reply, root]);
  await member.api.delete(`/api/v4/posts/${root}`).expect(200);
  expect((await search({ terms: 'tangerine' })).order).toEqual([]);
});

test('another member sees their own channels: bob finds the private channel he is in, not the one he is not', async () => {
  expect(keysOf((await search({ terms: 'deploy secret' }, bob)).order)).toEqual(['p6']);
  expect(keysOf((await search({ terms: 'quick launch' }, bob)).order)).toEqual([]);
});

test('errors: no terms, too many parts, a team the caller is not in', async () => {
  expectAppError(await member.api.post(`/api/v4/teams/${teamId}/posts/search`, { terms: '' }), 400, 'api.context.invalid_param.app_error');
  expectAppError(await member.api.post(`/api/v4/teams/${teamId}/posts/search`, {}), 400, 'api.context.invalid_param.app_error');
  expectAppError(
    await member.api.post(`/api/v4/teams/${teamId}/posts/search`, { terms: Array.from({ length: 33 }, (_, i) => `w${i}`).join(' ') }),
    400,
    'api.post.search_posts.too_many_terms.app_error',
  );
  expectAppError(await member.api.post(`/api/v4/teams/${teamId}/posts/search`, { terms: 'x'.repeat(1025) }), 400, 'api.context.invalid_param.app_error');
  const stranger = await createUser(server, admin);
  expectAppError(await stranger.api.post(`/api/v4/teams/${teamId}/posts/search`, { terms: 'deploy' }), 403, 'api.context.permissions.app_error');
});

test('limits (review H1, L5): one-letter prefixes, more than 3 prefixes or 16 words, control characters are a 400, never a 500', async () => {
  const searchFor = (terms: string, extra: Record<string, unknown> = {}) => member.api.post(`/api/v4/teams/${teamId}/posts/search`, { terms, ...extra });
  const cases: Array<[string, string]> = [
    [Array.from('abcdefghijklmnopqrstuvwxyz', (l) => `${l}*`).join(' '), 'api.post.search_posts.prefix_too_short.app_error'],
    ['a*'.repeat(512), 'api.post.search_posts.prefix_too_short.app_error'],
    ['deploy -q*', 'api.post.search_posts.prefix_too_short.app_error'],
    ['de* qu* la* sc*', 'api.post.search_posts.too_many_prefix_terms.app_error'],
    ['a*'.repeat(511) + 'a', 'api.post.search_posts.too_many_terms.app_error'],
    ['hel\u0000lo', 'api.post.search_posts.invalid_characters.app_error'],
    ['#ta\u0000g', 'api.post.search_posts.invalid_characters.app_error'],
    ['-ab\u0000c', 'api.post.search_posts.invalid_characters.app_error'],
  ];
  for (const [terms, id] of cases) {
    expectAppError(await searchFor(terms, { is_or_search: true }), 400, id);
  }
  // At the limits, the search runs.
  await searchFor('de* qu* la*', { is_or_search: true }).expect(200);
  await searchFor(Array.from({ length: 16 }, (_, i) => `w${i}`).join(' ')).expect(200);
  await searchFor('tab\tand\nnewline').expect(200);
});

test("Client4's searchPosts and searchPostsWithParams work unchanged", async () => {
  const client = client4For(server, member);
  const plain = await client.searchPosts(teamId, 'deploy', false);
  expect(keysOf(plain.order)).toEqual(['p13', 'p9', 'p1']);
  expect(plain.posts[ids.p9].message).toBe('can you review the deploy script?');
  const either = await client.searchPosts(teamId, 'brown quick', true);
  expect(keysOf(either.order)).toEqual(['p5', 'p4', 'p3']);
  const withParams = await client.searchPostsWithParams(teamId, {
    terms: 'on:2024-03-10 deploy*',
    is_or_search: false,
    time_zone_offset: 7200,
    include_deleted_channels: false,
    page: 0,
    per_page: 20,
  });
  expect(keysOf(withParams.order)).toEqual(['p1']);
  expect(withParams.matches).toBeNull();
});
