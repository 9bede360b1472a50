// Slack text conventions in webhook posts (docs/webhook-rules.md, rule 9) and mentions (rule 12): a webhook post's mentions
// count like an ordinary post's, and may mention the hook's own creator.
import { expectAppError } from '../support/assertions';
import { createUser, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { addToChannel, createChannel, createHook, expectOk, lastPost, postJson, uniqueName } from './hooks-support';

let server: TestServer;
let world: World;
let alice: Actor;
let bob: Actor;
let creator: Actor; // owns the hooks; a plain team member
let channelId: string; // creator, alice, bob and the admin are members
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
  alice = await createUser(server, world.admin, { username: uniqueName('alice') });
  bob = await createUser(server, world.admin, { username: uniqueName('bob') });
  creator = world.member;
  for (const u of [alice, bob]) {
    await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: u.id }).expect(201);
  }
  channelId = await createChannel(world.admin, world.teamId, uniqueName('mentions'));
  for (const u of [alice, bob, creator]) await addToChannel(world.admin, channelId, u.id);
  key = (await createHook(world.admin, { channel_id: channelId, user_id: creator.id, display_name: 'Notifier' })).id;
});
afterAll(() => server.close());

async function send(payload: Record<string, unknown>) {
  expectOk(await postJson(server, key, payload));
  return lastPost(world.admin, channelId);
}

describe('Slack text conventions', () => {
  test.each([
    ['<!channel> build broke', '@channel build broke'],
    ['<!here> deploy starting', '@here deploy starting'],
    ['<!all> lunch', '@all lunch'],
    ['see <http://x.example/a?b=1|the report>', 'see [the report](http://x.example/a?b=1)'],
    ['bare <http://x.example>', 'bare <http://x.example>'],
    ['<!channel> and <https://ci.example/42|build 42>', '@channel and [build 42](https://ci.example/42)'],
  ])('%p → %p', async (text, message) => {
    expect((await send({ text })).message).toBe(message);
  });

  test('<@USERID> becomes @username; an unknown id is left alone', async () => {
    expect((await send({ text: `ping <@${alice.id}>` })).message).toBe(`ping @${alice.username}`);
    expect((await send({ text: 'ping <@zzzzzzzzzzzzzzzzzzzzzzzzzz>' })).message).toBe('ping <@zzzzzzzzzzzzzzzzzzzzzzzzzz>');
  });

  test('attachments: pretext, text and field values are converted; title gets mentions only', async () => {
    const post = await send({
      attachments: [
        {
          pretext: '<!channel> <http://p|pre>',
          text: `<@${bob.id}> <http://t|text>`,
          title: '<!here> <http://ti|title>',
          fields: [{ title: 'f', value: '<http://v|value>' }],
        },
      ],
    });
    expect(post.props.attachments).toEqual([
      {
        pretext: '@channel [pre](http://p)',
        text: `@${bob.username} [text](http://t)`,
        title: '@here <http://ti|title>',
        fields: [{ title: 'f', value: '[value](http://v)' }],
      },
    ]);
  });
});

describe('mentions', () => {
  async function counts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    // Read as stored: the API shows another user's counts as -1 (system admins included), and a user's own request
    // would make them active for @here.
    for (const u of [alice, bob, creator, world.admin]) {
      out[u.username] = (await server.parley.app.deps.stores.channels.getMember(channelId, u.id))?.mention_count ?? NaN;
    }
    return out;
  }

  async function delta(payload: Record<string, unknown>): Promise<Record<string, number>> {
    const before = await counts();
    await send(payload);
    const after = await counts();
    return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
  }

  test('"@alice" increments alice\'s mention_count only', async () => {
    expect(await delta({ text: `hey @${alice.username}` })).toEqual({ [alice.username]: 1, [bob.username]: 0, [creator.username]: 0, [world.admin.username]: 0 });
  });

  test('a trailing period and upper case still mention', async () => {
    const d = await delta({ text: `thanks @${alice.username.toUpperCase()}.` });
    expect(d[alice.username]).toBe(1);
  });

  test("the hook's creator can be mentioned by its own webhook", async () => {
    const d = await delta({ text: `@${creator.username} your build finished` });
    expect(d).toEqual({ [alice.username]: 0, [bob.username]: 0, [creator.username]: 1, [world.admin.username]: 0 });
  });

  test('@channel, <!channel> and @all increment every member, the creator included', async () => {
    for (const text of ['@channel release', '<!channel> release', '<!all> release']) {
      expect(await delta({ text })).toEqual({ [alice.username]: 1, [bob.username]: 1, [creator.username]: 1, [world.admin.username]: 1 });
    }
  });

  test('<@USERID> mentions that user', async () => {
    expect((await delta({ text: `<@${bob.id}> please look` }))[bob.username]).toBe(1);
  });

  test('mentions in attachment pretext and text count; one post mentions a user once', async () => {
    const d = await delta({ text: `@${alice.username}`, attachments: [{ pretext: `@${alice.username} @${bob.username}`, text: `@${bob.username}` }] });
    expect(d).toEqual({ [alice.username]: 1, [bob.username]: 1, [creator.username]: 0, [world.admin.username]: 0 });
  });

  test('@here increments only members active in the last minutes', async () => {
    const knex = server.parley.db.knex;
    await knex('users').whereIn('id', [alice.id, creator.id]).update({ last_activity_at: Date.now() });
    await knex('users').whereIn('id', [bob.id, world.admin.id]).update({ last_activity_at: 0 });
    const d = await delta({ text: '<!here> standup' });
    expect(d).toEqual({ [alice.username]: 1, [bob.username]: 0, [creator.username]: 1, [world.admin.username]: 0 });
  });

  test('a user outside the channel is not counted, and the post still succeeds', async () => {
    const outsider = await createUser(server, world.admin, { username: uniqueName('carol') });
    const post = await send({ text: `@${outsider.username} hi` });
    expect(post.message).toBe(`@${outsider.username} hi`);
  });

  test('a split message counts a mention in each part', async () => {
    const text = `@${alice.username} ` + 'x'.repeat(16383) + ` @${alice.username}`;
    expect((await delta({ text }))[alice.username]).toBe(2);
  });

  test('in a DM reached by @username, the recipient is mentioned', async () => {
    expectOk(await postJson(server, key, { text: 'direct note', channel: `@${alice.username}` }));
    const dm = (await creator.api.post('/api/v4/channels/direct', [creator.id, alice.id]).expect(201)).body.id;
    const member = await alice.api.get(`/api/v4/channels/${dm}/members/${alice.id}`).expect(200);
    expect(member.body.mention_count).toBe(1);
    // For webhook posts the owner is mentioned in the DM too (Mattermost's rule for from_webhook posts).
    const own = await creator.api.get(`/api/v4/channels/${dm}/members/${creator.id}`).expect(200);
    expect(own.body.mention_count).toBe(1);
  });
});

// No input may stall other requests. Payloads at the body limit built for the passes
// that were quadratic (a mention ending in a long run of "."; "<a|" repeated in an attachment) are answered at once
// and converted as before. The old code took over ten seconds on each; linear code takes well under one.
describe('adversarial payloads at the body limit', () => {
  const BUDGET_MS = 5000;
  // At the body limit the text is converted (linearly), then refused: props are at most 65536 bytes as JSON.
  const SIZE = 290_000;
  // Within the props bound: posted.
  const FITS = 60_000;
  test.each<[string, (n: number) => string]>([
    ['a mention ending in a run of "." (attachment text)', (n) => `@a${'.'.repeat(n)}b`],
    ['"<a|" repeated (attachment text)', (n) => '<a|'.repeat(n / 3)],
  ])('%s', async (_name, make) => {
    let start = Date.now();
    const res = await postJson(server, key, { attachments: [{ text: make(SIZE) }] });
    expect(Date.now() - start).toBeLessThan(BUDGET_MS);
    expectAppError(res, 400, 'web.incoming_webhook.split_props_length.app_error');
    start = Date.now();
    const post = await send({ attachments: [{ text: make(FITS) }] });
    expect(Date.now() - start).toBeLessThan(BUDGET_MS);
    expect(post.props.attachments[0].text).toBe(make(FITS));
  });
});
