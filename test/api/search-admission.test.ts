// SearchPosts admission: at most CONCURRENT_SEARCHES searches run against the index at once per process, up to
// SEARCHES_WAITING more wait their turn, and past that a search is answered 503 at once, so a burst of expensive
// searches cannot take every database connection. The store's search is held open here (its real code runs once
// released) to make the burst overlap on any machine; everything else is the real server and database.
import { CONCURRENT_SEARCHES, SEARCHES_WAITING } from '../../src/app/search';
import { SearchStore } from '../../src/store/search-store';
import { expectAppError } from '../support/assertions';
import { eventually } from '../support/eventually';
import { createPost, createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let member: Actor;
let teamId: string;
let running = 0;
let mostAtOnce = 0;
let release: () => void = () => undefined;
let held: Promise<void> = Promise.resolve();

const original = SearchStore.prototype.search;
// Installed before the server starts: the stores wrap the method they find on first use.
const spy = jest.spyOn(SearchStore.prototype, 'search').mockImplementation(async function (this: SearchStore, q) {
  running++;
  mostAtOnce = Math.max(mostAtOnce, running);
  try {
    await held;
    return await original.call(this, q);
  } finally {
    running--;
  }
});

beforeAll(async () => {
  server = await startTestServer();
  const admin = await createUser(server);
  member = await createUser(server, admin);
  teamId = await createTeam(admin, `admission${process.pid}`, [member]);
  const town = (await member.api.get(`/api/v4/teams/${teamId}/channels/name/town-square`).expect(200)).body.id;
  await createPost(member, town, 'the deploy finished');
});
afterAll(async () => {
  spy.mockRestore();
  await server.close();
});

test('a burst of searches: some run, some wait, the rest are told the server is busy; the ones admitted all answer', async () => {
  held = new Promise((r) => (release = r));
  const extra = 3;
  const search = () => member.api.post(`/api/v4/teams/${teamId}/posts/search`, { terms: 'deploy' });
  const admitted = Array.from({ length: CONCURRENT_SEARCHES + SEARCHES_WAITING }, () => search().then((r) => r));
  // Every admitted search has reached the gate: the running ones are held in the store, the others wait.
  await eventually(() => expect(running).toBe(CONCURRENT_SEARCHES));
  await eventually(() => expect(server.parley.app.search['searches'].stats.waiting).toBe(SEARCHES_WAITING));

  const refused = await Promise.all(Array.from({ length: extra }, () => search()));
  for (const res of refused) expectAppError(res, 503, 'api.context.server_busy.app_error');

  release();
  const answers = await Promise.all(admitted);
  expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
  expect(answers.every((r) => r.body.order.length === 1)).toBe(true);
  expect(mostAtOnce).toBe(CONCURRENT_SEARCHES);
  // And the line is free again.
  held = Promise.resolve();
  expect((await search()).status).toBe(200);
});
