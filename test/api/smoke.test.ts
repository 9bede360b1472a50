import { createWorld, startTestServer, type TestServer } from '../support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

test('a post written through the API is read back with its channel', async () => {
  const { admin, townSquareId } = await createWorld(server);
  const post = await admin.api.post('/api/v4/posts', { channel_id: townSquareId, message: 'hello' }).expect(201);
  const list = await admin.api.get(`/api/v4/channels/${townSquareId}/posts?page=0&per_page=30&skipFetchThreads=false`).expect(200);
  expect(list.headers['content-type']).toBe('application/json');
  expect(list.body.order).toEqual([post.body.id]);
  expect(list.body.posts[post.body.id].message).toBe('hello');
});
