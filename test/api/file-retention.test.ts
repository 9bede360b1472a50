// What uploads may cost the server's disk, on a real server and database: no uploads into an archived channel, the
// per-user storage quota (FileSettings.MaxUserStorageBytes), and the hourly clean-up of uploads never attached
// (UnattachedRetentionHours) and of deleted files' bytes (DeletedRetentionHours). Time is moved with atTime.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { expectAppError } from '../support/assertions';
import { atTime, createChannel, createUser, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';

let server: TestServer;
let world: World;

const HOUR = 3_600_000;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
});
afterAll(() => server.close());

interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
  json(): any;
}

async function call(path: string, init: RequestInit & { token?: string } = {}): Promise<Answer> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('Authorization', `Bearer ${init.token}`);
  const res = await fetch(server.url + path, { ...init, headers });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body, json: () => JSON.parse(body.toString('utf8')) };
}

function upload(who: Actor, channelId: string, files: Array<{ name: string; bytes: Buffer }>): Promise<Answer> {
  const form = new FormData();
  form.append('channel_id', channelId);
  for (const f of files) form.append('files', new Blob([f.bytes]), f.name);
  return call('/api/v4/files', { method: 'POST', body: form, token: who.token });
}

async function uploadOne(who: Actor, channelId: string, name: string, bytes: Buffer): Promise<any> {
  const res = await upload(who, channelId, [{ name, bytes }]);
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${res.body.toString()}`);
  return res.json().file_infos[0];
}

const bytes = (n: number) => Buffer.alloc(n, 0x61);

/** Every regular file under the storage directory. */
function storedFiles(dir = server.filesDir): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    out = statSync(full).isDirectory() ? [...out, ...storedFiles(full)] : [...out, full];
  }
  return out;
}

async function row(id: string): Promise<Record<string, unknown> | undefined> {
  return server.parley.db.knex('file_info').where({ id }).first();
}

async function rowsOf(userId: string): Promise<number> {
  const [{ n }] = await server.parley.db.knex('file_info').where({ user_id: userId }).count({ n: '*' });
  return Number(n);
}

async function patchFiles(settings: Record<string, unknown>): Promise<void> {
  await world.admin.api.put('/api/v4/config/patch', { FileSettings: settings }).expect(200);
}

/** The paths (relative to the storage directory) a file's record names. */
async function pathsOf(id: string): Promise<string[]> {
  const r = await row(id);
  return [r?.path, r?.thumbnail_path, r?.preview_path].filter((p): p is string => typeof p === 'string' && p !== '');
}

const purge = (at: number) => atTime(server, at, () => server.parley.app.files.purge());

describe('archived channels', () => {
  test('an upload into an archived channel is refused (400, as a post there) and nothing is stored', async () => {
    const channelId = await createChannel(world.admin, world.teamId, 'O', [world.member], 'archive');
    await uploadOne(world.member, channelId, 'before.txt', bytes(10));
    await world.admin.api.delete(`/api/v4/channels/${channelId}`).expect(200);
    const put = jest.spyOn(server.parley.app.files.storage, 'put');
    const filesBefore = storedFiles().length;
    const rowsBefore = await rowsOf(world.member.id);
    try {
      const res = await upload(world.member, channelId, [{ name: 'after.txt', bytes: bytes(200_000) }]);
      expectAppError(res, 400, 'api.file.upload_file.can_not_upload_to_deleted.error');
      expect(put).not.toHaveBeenCalled();
    } finally {
      put.mockRestore();
    }
    expect(storedFiles()).toHaveLength(filesBefore);
    expect(await rowsOf(world.member.id)).toBe(rowsBefore);
    // Posting there is refused with the same family of error; after a restore both work again.
    expectAppError(await world.member.api.post('/api/v4/posts', { channel_id: channelId, message: 'x' }), 400, 'api.post.create_post.can_not_post_to_deleted.error');
    await world.admin.api.post(`/api/v4/channels/${channelId}/restore`).expect(200);
    await uploadOne(world.member, channelId, 'restored.txt', bytes(10));
  });
});

describe('storage quota', () => {
  afterEach(() => patchFiles({ MaxUserStorageBytes: 10737418240, DeletedRetentionHours: 24 }));

  test('files past MaxUserStorageBytes are 413 and kept nowhere; with nothing left, no byte is even stored', async () => {
    const user = await createUser(server, world.admin);
    await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: user.id }).expect(201);
    await patchFiles({ MaxUserStorageBytes: 100_000 });
    await uploadOne(user, world.townSquareId, 'a.bin', bytes(60_000));
    const filesBefore = storedFiles().length;
    const over = await upload(user, world.townSquareId, [{ name: 'b.bin', bytes: bytes(60_000) }]);
    expectAppError(over, 413, 'api.file.upload_file.storage_quota.app_error');
    expect(over.json().message).toContain('100000 bytes');
    expect(storedFiles()).toHaveLength(filesBefore);
    expect(await rowsOf(user.id)).toBe(1);
    // What is left still fits, exactly.
    await uploadOne(user, world.townSquareId, 'c.bin', bytes(40_000));
    // Nothing left: refused before storage is written to.
    const put = jest.spyOn(server.parley.app.files.storage, 'put');
    try {
      expectAppError(await upload(user, world.townSquareId, [{ name: 'd.bin', bytes: bytes(1) }]), 413, 'api.file.upload_file.storage_quota.app_error');
      expect(put).not.toHaveBeenCalled();
    } finally {
      put.mockRestore();
    }
    // Other users are not affected by this user's files; 0 turns the quota off.
    await uploadOne(world.member, world.townSquareId, 'other.bin', bytes(60_000));
    await patchFiles({ MaxUserStorageBytes: 0 });
    await uploadOne(user, world.townSquareId, 'e.bin', bytes(60_000));
  });

  test('one request of 10 files is cut where it passes what is left: the files after it are never stored', async () => {
    const user = await createUser(server, world.admin);
    await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: user.id }).expect(201);
    await patchFiles({ MaxUserStorageBytes: 1_000_000 });
    const filesBefore = storedFiles().length;
    const put = jest.spyOn(server.parley.app.files.storage, 'put');
    try {
      const files = Array.from({ length: 10 }, (_, i) => ({ name: `part${i}.bin`, bytes: bytes(300_000) }));
      expectAppError(await upload(user, world.townSquareId, files), 413, 'api.file.upload_file.storage_quota.app_error');
      expect(put).toHaveBeenCalledTimes(4); // three fit, the fourth passes the quota
    } finally {
      put.mockRestore();
    }
    expect(storedFiles()).toHaveLength(filesBefore);
    expect(await rowsOf(user.id)).toBe(0);
    // The refused request took nothing from the allowance.
    await uploadOne(user, world.townSquareId, 'fits.bin', bytes(1_000_000));
  });

  test('concurrent uploads of one user cannot each spend the same allowance', async () => {
    const user = await createUser(server, world.admin);
    await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: user.id }).expect(201);
    await patchFiles({ MaxUserStorageBytes: 1_000_000 });
    const answers = await Promise.all([0, 1, 2].map((i) => upload(user, world.townSquareId, [{ name: `c${i}.bin`, bytes: bytes(700_000) }])));
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeLessThanOrEqual(1);
    for (const a of answers) if (a.status !== 201) expectAppError(a, 413, 'api.file.upload_file.storage_quota.app_error');
    expect(await rowsOf(user.id)).toBe(created.length);
  });

  test('a deleted post’s files count until their bytes are removed, then the space is free again', async () => {
    const user = await createUser(server, world.admin);
    await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: user.id }).expect(201);
    await patchFiles({ MaxUserStorageBytes: 100_000 });
    const f = await uploadOne(user, world.townSquareId, 'big.bin', bytes(90_000));
    const post = (await user.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'big', file_ids: [f.id] }).expect(201)).body;
    const deletedAt = Date.now();
    await atTime(server, deletedAt, () => user.api.delete(`/api/v4/posts/${post.id}`).expect(200));
    // Deleting does not free the bytes at once (else upload, attach, delete, repeat would fill the disk).
    expectAppError(await upload(user, world.townSquareId, [{ name: 'again.bin', bytes: bytes(90_000) }]), 413, 'api.file.upload_file.storage_quota.app_error');
    await purge(deletedAt + 25 * HOUR);
    expect(await row(f.id)).toBeUndefined();
    await uploadOne(user, world.townSquareId, 'again.bin', bytes(90_000));
  });

  test('the new file settings are validated, exposed by GetConfig and patchable', async () => {
    const config = await world.admin.api.get('/api/v4/config').expect(200);
    expect(config.body.FileSettings).toMatchObject({ MaxUserStorageBytes: 10737418240, UnattachedRetentionHours: 168, DeletedRetentionHours: 24 });
    for (const bad of [{ MaxUserStorageBytes: -1 }, { MaxUserStorageBytes: 1.5 }, { UnattachedRetentionHours: -1 }, { DeletedRetentionHours: 0.5 }, { DeletedRetentionHours: 876001 }]) {
      expectAppError(await world.admin.api.put('/api/v4/config/patch', { FileSettings: bad }), 400);
    }
    await expect(startTestServer({ MM_FILESETTINGS_MAXUSERSTORAGEBYTES: '-5' }, server.db)).rejects.toThrow(/FileSettings.MaxUserStorageBytes/);
  });
});

describe('clean-up of unattached and deleted files', () => {
  afterEach(() => patchFiles({ UnattachedRetentionHours: 168, DeletedRetentionHours: 24 }));

  test('uploads attached to no post are removed after UnattachedRetentionHours, record and bytes; attached ones stay', async () => {
    const t0 = Date.now();
    const [stale, attached] = await atTime(server, t0, async () => [
      await uploadOne(world.member, world.townSquareId, 'stale.txt', bytes(1000)),
      await uploadOne(world.member, world.townSquareId, 'attached.txt', bytes(1000)),
    ]);
    const fresh = await atTime(server, t0 + 100 * HOUR, () => uploadOne(world.member, world.townSquareId, 'fresh.txt', bytes(1000)));
    await atTime(server, t0 + HOUR, () => world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'kept', file_ids: [attached.id] }).expect(201));
    const stalePaths = await pathsOf(stale.id);
    expect(stalePaths.every((p) => existsSync(join(server.filesDir, p)))).toBe(true);

    // Not yet: one hour short of the default week.
    await purge(t0 + 167 * HOUR);
    expect(await row(stale.id)).toBeDefined();

    const done = await purge(t0 + 169 * HOUR);
    expect(done.unattached).toBeGreaterThanOrEqual(1);
    expect(await row(stale.id)).toBeUndefined();
    expect(stalePaths.some((p) => existsSync(join(server.filesDir, p)))).toBe(false);
    expectAppError(await call(`/api/v4/files/${stale.id}`, { token: world.member.token }), 404, 'app.file_info.get.app_error');
    // A post naming it is refused, as for any file that is not there.
    expectAppError(
      await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'late', file_ids: [stale.id] }),
      400,
      'api.post.create_post.file_ids.app_error',
    );
    for (const kept of [attached, fresh]) {
      const res = await call(`/api/v4/files/${kept.id}`, { token: world.member.token });
      expect([kept.name, res.status, res.body.length]).toEqual([kept.name, 200, 1000]);
    }
  });

  test('with UnattachedRetentionHours 0, unattached uploads are kept', async () => {
    const t0 = Date.now();
    const f = await atTime(server, t0, () => uploadOne(world.member, world.townSquareId, 'forever.txt', bytes(10)));
    await patchFiles({ UnattachedRetentionHours: 0 });
    await purge(t0 + 100_000 * HOUR);
    expect(await row(f.id)).toBeDefined();
    expect((await call(`/api/v4/files/${f.id}`, { token: world.member.token })).status).toBe(200);
  });

  test('the bytes of a deleted post’s files (thumbnail and preview too) are removed after DeletedRetentionHours', async () => {
    const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const image = await uploadOne(world.member, world.townSquareId, 'chart.png', png);
    const other = await uploadOne(world.member, world.townSquareId, 'other.txt', bytes(10));
    const post = (await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'chart', file_ids: [image.id] }).expect(201)).body;
    await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'other', file_ids: [other.id] }).expect(201);
    const paths = await pathsOf(image.id);
    expect(paths).toHaveLength(3);
    const deletedAt = Date.now();
    await atTime(server, deletedAt, () => world.member.api.delete(`/api/v4/posts/${post.id}`).expect(200));
    expect(paths.every((p) => existsSync(join(server.filesDir, p)))).toBe(true);

    await purge(deletedAt + 23 * HOUR);
    expect(await row(image.id)).toBeDefined();
    expect(paths.every((p) => existsSync(join(server.filesDir, p)))).toBe(true);

    const done = await purge(deletedAt + 25 * HOUR);
    expect(done.deleted).toBeGreaterThanOrEqual(1);
    expect(await row(image.id)).toBeUndefined();
    expect(paths.some((p) => existsSync(join(server.filesDir, p)))).toBe(false);
    // The file's own directory went with its bytes; the live file of another post is untouched.
    expect(existsSync(join(server.filesDir, paths[0], '..'))).toBe(false);
    expect((await call(`/api/v4/files/${other.id}`, { token: world.member.token })).status).toBe(200);
  });

  test('with DeletedRetentionHours 0, a deleted file’s bytes are kept (and it stays 404)', async () => {
    const f = await uploadOne(world.member, world.townSquareId, 'kept.txt', bytes(10));
    const post = (await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'k', file_ids: [f.id] }).expect(201)).body;
    await world.member.api.delete(`/api/v4/posts/${post.id}`).expect(200);
    await patchFiles({ DeletedRetentionHours: 0 });
    await purge(Date.now() + 100_000 * HOUR);
    const paths = await pathsOf(f.id);
    expect(paths.every((p) => existsSync(join(server.filesDir, p)))).toBe(true);
    expectAppError(await call(`/api/v4/files/${f.id}`, { token: world.member.token }), 404, 'app.file_info.get.app_error');
  });

  test('the clean-up is scheduled with the other hourly jobs', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const purgeSpy = jest.spyOn(server.parley.app.files, 'purge').mockResolvedValue({ unattached: 0, deleted: 0 });
    const keys = jest.spyOn(server.parley.app.hookExecution, 'purgeExpiredKeys').mockResolvedValue(0);
    try {
      const stop = server.parley.app.startMaintenance(() => undefined);
      jest.advanceTimersByTime(HOUR);
      stop();
      expect(purgeSpy).toHaveBeenCalledTimes(1);
      expect(keys).toHaveBeenCalledTimes(1);
    } finally {
      purgeSpy.mockRestore();
      keys.mockRestore();
      jest.useRealTimers();
    }
  });
});
