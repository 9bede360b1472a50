// Files as Mattermost serves them: UploadFile (multipart, streamed to the local directory), GetFile, GetFileInfo,
// GetFileThumbnail, GetFilePreview, GetFileInfosForPost, and file_ids on CreatePost (metadata.files), on a real server
// and database, with the official Client4 where it has methods. Every JSON answer is validated against the spec.
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import sharp from 'sharp';
import { expectAppError } from '../support/assertions';
import { client4For } from '../support/client4';
import { eventually } from '../support/eventually';
import { send, type RawAnswer } from '../support/http';
import { createUser, createWorld, startTestServer, type Actor, type TestServer, type World } from '../support/server';
import { connect } from '../support/ws';

let server: TestServer;
let world: World;
let outsider: Actor; // in the team, not in the private channel
let stranger: Actor; // in no team at all
let privateId: string;
let seq = 0;
const unique = (p: string) => `${p}${process.pid}f${++seq}`;

beforeAll(async () => {
  server = await startTestServer();
  world = await createWorld(server);
  outsider = await createUser(server, world.admin);
  stranger = await createUser(server, world.admin);
  await world.admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: outsider.id }).expect(201);
  privateId = (await world.admin.api.post('/api/v4/channels', { team_id: world.teamId, name: unique('priv'), display_name: 'P', type: 'P' }).expect(201)).body.id;
  await world.admin.api.post(`/api/v4/channels/${privateId}/members`, { user_id: world.member.id }).expect(201);
});
afterAll(() => server.close());

interface Upload {
  name: string;
  bytes: Buffer;
}

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

/** UploadFile with fetch's FormData (channel_id and client_ids first, then the files, as the apps send them). */
function upload(who: Actor, channelId: string | undefined, files: Upload[], opts: { clientIds?: string[]; query?: string } = {}): Promise<Answer> {
  const form = new FormData();
  if (channelId !== undefined) form.append('channel_id', channelId);
  for (const id of opts.clientIds ?? []) form.append('client_ids', id);
  for (const f of files) form.append('files', new Blob([f.bytes]), f.name);
  return call(`/api/v4/files${opts.query ?? ''}`, { method: 'POST', body: form, token: who.token });
}

async function uploadOne(who: Actor, channelId: string, file: Upload): Promise<any> {
  const res = await upload(who, channelId, [file]);
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${res.body.toString()}`);
  return res.json().file_infos[0];
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Every regular file under the storage directory. */
function storedFiles(dir = server.filesDir): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    out = statSync(full).isDirectory() ? [...out, ...storedFiles(full)] : [...out, full];
  }
  return out;
}

async function fileRows(): Promise<number> {
  const [{ n }] = await server.parley.db.knex('file_info').count({ n: '*' });
  return Number(n);
}

function randomBytes(n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 7919 + (i >> 8)) & 0xff;
  return b;
}

/** A real image of the given size, with enough detail that resizing is visible. */
function image(width: number, height: number, format: 'png' | 'jpeg'): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 31) & 0xff;
  const img = sharp(pixels, { raw: { width, height, channels: 3 } });
  return (format === 'png' ? img.png() : img.jpeg()).toBuffer();
}

describe('upload and download', () => {
  test('a file uploaded to a channel comes back byte for byte, with its FileInfo', async () => {
    const bytes = randomBytes(300_000); // more than MaximumPayloadSizeBytes: uploads are not held to it
    const before = Date.now();
    const res = await upload(world.member, world.townSquareId, [{ name: 'Report Q3.TXT', bytes }], { clientIds: ['local-1'] });
    expect(res.status).toBe(201);
    const body = res.json();
    expect(body.client_ids).toEqual(['local-1']);
    const info = body.file_infos[0];
    expect(info).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{26}$/),
      user_id: world.member.id,
      channel_id: world.townSquareId,
      create_at: expect.any(Number),
      update_at: info.create_at,
      delete_at: 0,
      name: 'Report Q3.TXT',
      extension: 'txt',
      size: bytes.length,
      mime_type: 'text/plain',
      has_preview_image: false,
      mini_preview: null,
    });
    expect(info.create_at).toBeGreaterThanOrEqual(before);

    const got = await call(`/api/v4/files/${info.id}`, { token: world.member.token });
    expect(got.status).toBe(200);
    expect(sha256(got.body)).toBe(sha256(bytes));
    expect(got.headers.get('content-type')).toBe('text/plain');
    expect(got.headers.get('content-length')).toBe(String(bytes.length));
    expect(got.headers.get('content-disposition')).toBe(`attachment;filename="Report%20Q3.TXT"; filename*=UTF-8''Report%20Q3.TXT`);
    expect(got.headers.get('cache-control')).toBe('private, max-age=86400');
    expect(got.headers.get('x-frame-options')).toBe('DENY');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(got.headers.get('x-request-id')).toMatch(/^[a-z0-9]{26}$/);

    const meta = await server.http(world.member.token).get(`/api/v4/files/${info.id}/info`).expect(200);
    expect(meta.body).toEqual(info);
    expect(meta.headers['cache-control']).toBe('max-age=2592000, private');
  });

  test('several files in one request, in order, with their client ids', async () => {
    const files = [1, 2, 3].map((i) => ({ name: `part-${i}.bin`, bytes: randomBytes(1000 * i) }));
    const res = await upload(world.member, world.townSquareId, files, { clientIds: ['a', 'b', 'c'] });
    expect(res.status).toBe(201);
    const { file_infos: infos, client_ids: clientIds } = res.json();
    expect(clientIds).toEqual(['a', 'b', 'c']);
    expect(infos.map((f: any) => [f.name, f.size, f.mime_type])).toEqual([
      ['part-1.bin', 1000, 'application/octet-stream'],
      ['part-2.bin', 2000, 'application/octet-stream'],
      ['part-3.bin', 3000, 'application/octet-stream'],
    ]);
    for (const [i, f] of infos.entries()) {
      const got = await call(`/api/v4/files/${f.id}`, { token: world.member.token });
      expect(sha256(got.body)).toBe(sha256(files[i].bytes));
    }
    // Without client ids, client_ids is an empty list.
    const plain = await upload(world.member, world.townSquareId, files.slice(0, 2));
    expect(plain.json().client_ids).toEqual([]);
  });

  test('the channel may be given in the query instead of the form', async () => {
    const res = await upload(world.member, undefined, [{ name: 'q.txt', bytes: Buffer.from('query') }], { query: `?channel_id=${world.townSquareId}` });
    expect(res.status).toBe(201);
    expect(res.json().file_infos[0].channel_id).toBe(world.townSquareId);
  });

  test('download=1 makes it an attachment; a page or a script is served as text/plain; a range is a 206', async () => {
    const png = await image(40, 20, 'png');
    const pic = await uploadOne(world.member, world.townSquareId, { name: 'pic.png', bytes: png });
    const inline = await call(`/api/v4/files/${pic.id}`, { token: world.member.token });
    expect(inline.headers.get('content-type')).toBe('image/png');
    expect(inline.headers.get('content-disposition')).toBe(`inline;filename="pic.png"; filename*=UTF-8''pic.png`);
    const attached = await call(`/api/v4/files/${pic.id}?download=1`, { token: world.member.token });
    expect(attached.headers.get('content-disposition')).toMatch(/^attachment;/);

    // A quote in the name (sent escaped, as curl does) cannot end the header's quoted name.
    const raw = await rawUpload(
      { 'Content-Type': 'multipart/form-data; boundary=xyz' },
      `--xyz\r\nContent-Disposition: form-data; name="channel_id"\r\n\r\n${world.townSquareId}\r\n--xyz\r\nContent-Disposition: form-data; name="files"; filename="x\\"; evil=.html"\r\n\r\n<script>alert(1)</script>\r\n--xyz--\r\n`,
    );
    const page = JSON.parse(raw.text).file_infos[0];
    expect([page.name, page.mime_type]).toEqual(['x"; evil=.html', 'text/html']);
    const served = await call(`/api/v4/files/${page.id}`, { token: world.member.token });
    expect(served.headers.get('content-type')).toBe('text/plain');
    expect(served.headers.get('content-disposition')).toBe(`attachment;filename="x%22;%20evil=.html"; filename*=UTF-8''x%22;%20evil=.html`);
    expect(served.headers.get('content-security-policy')).toContain('sandbox');

    const bytes = randomBytes(5000);
    const f = await uploadOne(world.member, world.townSquareId, { name: 'r.bin', bytes });
    const part = await call(`/api/v4/files/${f.id}`, { token: world.member.token, headers: { Range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 100-199/5000');
    expect(part.body.equals(bytes.subarray(100, 200))).toBe(true);
    const last = await call(`/api/v4/files/${f.id}`, { token: world.member.token, headers: { Range: 'bytes=-10' } });
    expect(last.body.equals(bytes.subarray(4990))).toBe(true);
    // A range past the end (or several) is answered with the whole file.
    const whole = await call(`/api/v4/files/${f.id}`, { token: world.member.token, headers: { Range: 'bytes=9000-' } });
    expect([whole.status, whole.body.length]).toEqual([200, 5000]);
    const again = await call(`/api/v4/files/${f.id}`, { token: world.member.token, headers: { 'If-Modified-Since': new Date(Date.now() + 60000).toUTCString() } });
    expect(again.status).toBe(304);
  });

  test('a long file name is shortened, keeping its extension; paths and control characters are dropped', async () => {
    const long = `${'é'.repeat(300)}.pdf`;
    const a = await uploadOne(world.member, world.townSquareId, { name: long, bytes: Buffer.from('%PDF') });
    expect([...a.name].length).toBe(255);
    expect(a.name.endsWith('.pdf')).toBe(true);
    expect(a.extension).toBe('pdf');
    const b = await uploadOne(world.member, world.townSquareId, { name: 'dir\\sub/na\tme.TXT', bytes: Buffer.from('x') });
    expect([b.name, b.extension]).toEqual(['name.TXT', 'txt']);
  });
});

describe('images', () => {
  test('a PNG gets its size, a mini preview, a 120-wide PNG thumbnail and a preview of its own size', async () => {
    const png = await image(400, 200, 'png');
    const info = await uploadOne(world.member, world.townSquareId, { name: 'wide.png', bytes: png });
    expect(info).toMatchObject({ width: 400, height: 200, has_preview_image: true, mime_type: 'image/png' });
    const mini = await sharp(Buffer.from(info.mini_preview, 'base64')).metadata();
    expect([mini.format, mini.width, mini.height]).toEqual(['jpeg', 16, 16]);

    const thumb = await call(`/api/v4/files/${info.id}/thumbnail`, { token: world.member.token });
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/png');
    const t = await sharp(thumb.body).metadata();
    expect([t.format, t.width, t.height]).toEqual(['png', 120, 60]);

    const preview = await call(`/api/v4/files/${info.id}/preview`, { token: world.member.token });
    const p = await sharp(preview.body).metadata();
    expect([p.format, p.width, p.height]).toEqual(['png', 400, 200]);
  });

  test('a JPEG wider than 1920 gets a 1920-wide preview; a portrait one a 100-high thumbnail', async () => {
    const big = await uploadOne(world.member, world.townSquareId, { name: 'big.jpg', bytes: await image(2400, 1200, 'jpeg') });
    const preview = await sharp((await call(`/api/v4/files/${big.id}/preview`, { token: world.member.token })).body).metadata();
    expect([preview.format, preview.width, preview.height]).toEqual(['jpeg', 1920, 960]);
    const thumb = await call(`/api/v4/files/${big.id}/thumbnail`, { token: world.member.token });
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    const t = await sharp(thumb.body).metadata();
    expect([t.format, t.width, t.height]).toEqual(['jpeg', 120, 60]);

    const tall = await uploadOne(world.member, world.townSquareId, { name: 'tall.jpeg', bytes: await image(300, 600, 'jpeg') });
    const tt = await sharp((await call(`/api/v4/files/${tall.id}/thumbnail`, { token: world.member.token })).body).metadata();
    expect([tt.width, tt.height]).toEqual([50, 100]);
  });

  test('an image named without an extension is still recognised by its content', async () => {
    const info = await uploadOne(world.member, world.townSquareId, { name: 'screenshot', bytes: await image(30, 30, 'png') });
    expect(info).toMatchObject({ mime_type: 'image/png', extension: '', width: 30, height: 30, has_preview_image: true });
  });

  test('a file that is not an image has no thumbnail or preview (400, as Mattermost)', async () => {
    const info = await uploadOne(world.member, world.townSquareId, { name: 'fake.png', bytes: Buffer.from('not really a png') });
    expect(info).toMatchObject({ has_preview_image: false, mime_type: 'image/png' });
    expect(info.width).toBeUndefined();
    expectAppError(await call(`/api/v4/files/${info.id}/thumbnail`, { token: world.member.token }), 400, 'api.file.get_file_thumbnail.no_thumbnail.app_error');
    expectAppError(await call(`/api/v4/files/${info.id}/preview`, { token: world.member.token }), 400, 'api.file.get_file_preview.no_preview.app_error');
  });
});

describe('who may read and upload', () => {
  test('a file of a private channel: its members read it, a non-member gets 403 for every read', async () => {
    const bytes = randomBytes(1234);
    const info = await uploadOne(world.admin, privateId, { name: 'secret.bin', bytes });
    // A channel member other than the uploader may read it (before and after it is attached).
    expect(sha256((await call(`/api/v4/files/${info.id}`, { token: world.member.token })).body)).toBe(sha256(bytes));
    for (const who of [outsider, stranger]) {
      for (const suffix of ['', '/info', '/thumbnail', '/preview']) {
        expectAppError(await call(`/api/v4/files/${info.id}${suffix}`, { token: who.token }), 403, 'api.context.permissions.app_error');
      }
    }
  });

  test('a file of a public channel: readable by its team, not by a user outside the team', async () => {
    const info = await uploadOne(world.member, world.townSquareId, { name: 'pub.txt', bytes: Buffer.from('public') });
    expect((await call(`/api/v4/files/${info.id}`, { token: outsider.token })).status).toBe(200);
    expectAppError(await call(`/api/v4/files/${info.id}`, { token: stranger.token }), 403, 'api.context.permissions.app_error');
  });

  test('the uploader reads their own file even after leaving the channel', async () => {
    const ch = (await world.admin.api.post('/api/v4/channels', { team_id: world.teamId, name: unique('left'), display_name: 'L', type: 'P' }).expect(201)).body.id;
    await world.admin.api.post(`/api/v4/channels/${ch}/members`, { user_id: outsider.id }).expect(201);
    const info = await uploadOne(outsider, ch, { name: 'mine.txt', bytes: Buffer.from('mine') });
    await world.admin.api.delete(`/api/v4/channels/${ch}/members/${outsider.id}`).expect(200);
    expect((await call(`/api/v4/files/${info.id}`, { token: outsider.token })).status).toBe(200);
  });

  test('uploading needs upload_file in the channel: a non-member gets 403 and nothing is stored', async () => {
    const rows = await fileRows();
    const stored = storedFiles().length;
    expectAppError(await upload(outsider, privateId, [{ name: 'no.txt', bytes: randomBytes(100_000) }]), 403, 'api.context.permissions.app_error');
    expectAppError(await upload(stranger, world.townSquareId, [{ name: 'no.txt', bytes: Buffer.from('x') }]), 403, 'api.context.permissions.app_error');
    expect(await fileRows()).toBe(rows);
    expect(storedFiles().length).toBe(stored);
  });

  test('unknown and malformed ids', async () => {
    expectAppError(await call('/api/v4/files/abcdefghijkmnopqrstuwxyz12', { token: world.member.token }), 404, 'app.file_info.get.app_error');
    expectAppError(await call('/api/v4/files/abcdefghijkmnopqrstuwxyz12/info', { token: world.member.token }), 404, 'app.file_info.get.app_error');
    expectAppError(await call('/api/v4/files/not-an-id', { token: world.member.token }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await call('/api/v4/files/abcdefghijkmnopqrstuwxyz12'), 401, 'api.context.session_expired.app_error');
  });
});

describe('limits and malformed uploads', () => {
  test('a file over FileSettings.MaxFileSize is 413 and leaves nothing behind: no record, no file', async () => {
    await world.admin.api.put('/api/v4/config/patch', { FileSettings: { MaxFileSize: 50_000 } }).expect(200);
    try {
      const rows = await fileRows();
      const stored = storedFiles().length;
      expectAppError(await upload(world.member, world.townSquareId, [{ name: 'big.bin', bytes: randomBytes(50_001) }]), 413, 'api.file.upload_file.too_large_detailed.app_error');
      // The second file too large: the first one, already stored, is removed as well.
      const res = await upload(world.member, world.townSquareId, [
        { name: 'ok.bin', bytes: randomBytes(50_000) },
        { name: 'big.bin', bytes: randomBytes(400_000) },
      ]);
      expectAppError(res, 413, 'api.file.upload_file.too_large_detailed.app_error');
      expect(await fileRows()).toBe(rows);
      expect(storedFiles().length).toBe(stored);
      // Exactly at the limit is fine.
      expect((await upload(world.member, world.townSquareId, [{ name: 'edge.bin', bytes: randomBytes(50_000) }])).status).toBe(201);
    } finally {
      await world.admin.api.put('/api/v4/config/patch', { FileSettings: { MaxFileSize: 104857600 } }).expect(200);
    }
  });

  test('a request declaring more than the upload bound is refused before its body is read', async () => {
    const res = await rawUpload({ 'Content-Type': 'multipart/form-data; boundary=xyz', 'Content-Length': String(2 * 1024 ** 3) }, '--xyz\r\n');
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text).id).toBe('api.context.request_body_too_large.app_error');
  });

  test('fields after the files, missing or unknown fields, wrong counts, a body that is not a form', async () => {
    const one = [{ name: 'a.txt', bytes: Buffer.from('a') }];
    // No channel at all.
    expectAppError(await upload(world.member, undefined, one), 400, 'api.context.invalid_param.app_error');
    // A file before the channel_id: the apps always send the fields first.
    const late = new FormData();
    late.append('files', new Blob(['x']), 'x.txt');
    late.append('channel_id', world.townSquareId);
    expectAppError(await call('/api/v4/files', { method: 'POST', body: late, token: world.member.token }), 400, 'api.context.invalid_param.app_error');
    // Two different channels.
    expectAppError(await upload(world.member, world.townSquareId, one, { query: `?channel_id=${privateId}` }), 400, 'api.file.upload_file.multiple_channel_ids.app_error');
    // Client ids that do not match the files.
    expectAppError(await upload(world.member, world.townSquareId, one, { clientIds: ['a', 'b'] }), 400, 'api.file.upload_file.incorrect_number_of_client_ids.app_error');
    expectAppError(await upload(world.member, world.townSquareId, [...one, ...one], { clientIds: ['a'] }), 400, 'api.context.invalid_param.app_error');
    // An unknown field; no file at all; more than 10 files.
    const odd = new FormData();
    odd.append('channel_id', world.townSquareId);
    odd.append('colour', 'blue');
    expectAppError(await call('/api/v4/files', { method: 'POST', body: odd, token: world.member.token }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await upload(world.member, world.townSquareId, []), 400, 'api.context.invalid_param.app_error');
    const eleven = Array.from({ length: 11 }, (_, i) => ({ name: `${i}.txt`, bytes: Buffer.from(String(i)) }));
    expectAppError(await upload(world.member, world.townSquareId, eleven), 400, 'api.file.upload_file.too_many_files.app_error');
    // Not multipart: 415; a broken form: 400.
    expectAppError(await call('/api/v4/files', { method: 'POST', body: JSON.stringify({ channel_id: world.townSquareId }), headers: { 'Content-Type': 'application/json' }, token: world.member.token }), 415, 'api.context.invalid_body_param.app_error');
    const broken = await rawUpload({ 'Content-Type': 'multipart/form-data; boundary=xyz', Authorization: `Bearer ${world.member.token}` }, `--xyz\r\nContent-Disposition: form-data; name="channel_id"\r\n\r\n${world.townSquareId}\r\n--xyz\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\ntruncated`);
    expect([broken.status, JSON.parse(broken.text).id]).toEqual([400, 'api.file.upload_file.read_request.app_error']);
    expect(storedFiles().filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  test('an upload cut off by the client leaves no partial file and no record', async () => {
    const rows = await fileRows();
    const stored = storedFiles().length;
    const head = `--xyz\r\nContent-Disposition: form-data; name="channel_id"\r\n\r\n${world.townSquareId}\r\n--xyz\r\nContent-Disposition: form-data; name="files"; filename="cut.bin"\r\n\r\n`;
    await new Promise<void>((resolve) => {
      const req = http.request(`${server.url}/api/v4/files`, {
        method: 'POST',
        headers: { 'Content-Type': 'multipart/form-data; boundary=xyz', 'Content-Length': String(10_000_000), Authorization: `Bearer ${world.member.token}` },
      });
      req.on('error', () => resolve());
      req.write(head);
      req.write(randomBytes(500_000), () => {
        // The first half MB is on its way to storage: cut the connection.
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 200);
      });
    });
    await eventually(() => {
      expect(storedFiles().length).toBe(stored);
    });
    expect(await fileRows()).toBe(rows);
  });

  test('with EnableFileAttachments off, uploads are 403', async () => {
    await world.admin.api.put('/api/v4/config/patch', { FileSettings: { EnableFileAttachments: false } }).expect(200);
    try {
      expectAppError(await upload(world.member, world.townSquareId, [{ name: 'a.txt', bytes: Buffer.from('a') }]), 403, 'api.file.attachments.disabled.app_error');
      // The refused form is still read to its end: the connection serves the next request.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const form = `--xyz\r\nContent-Disposition: form-data; name="channel_id"\r\n\r\n${world.townSquareId}\r\n--xyz\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\n${'a'.repeat(100_000)}\r\n--xyz--\r\n`;
        const first = await rawUpload({ 'Content-Type': 'multipart/form-data; boundary=xyz' }, form, agent);
        expect(first.status).toBe(403);
        const second = await rawUpload({ 'Content-Type': 'multipart/form-data; boundary=xyz' }, form, agent);
        expect(second.status).toBe(403);
      } finally {
        agent.destroy();
      }
    } finally {
      await world.admin.api.put('/api/v4/config/patch', { FileSettings: { EnableFileAttachments: true } }).expect(200);
    }
  });

  test('the file settings are validated: an unknown driver or a size below 1 is refused', async () => {
    // Patched (the spec's enum), or from the environment at start-up (the config's own rule).
    expectAppError(await world.admin.api.put('/api/v4/config/patch', { FileSettings: { DriverName: 'amazons3' } }), 400, 'api.context.invalid_param.app_error');
    await expect(startTestServer({ MM_FILESETTINGS_DRIVERNAME: 'amazons3' }, server.db)).rejects.toThrow(/FileSettings.DriverName "amazons3"/);
    expectAppError(await world.admin.api.put('/api/v4/config/patch', { FileSettings: { MaxFileSize: 0 } }), 400, 'api.context.invalid_param.app_error');
    await expect(startTestServer({ MM_FILESETTINGS_MAXFILESIZE: '0' }, server.db)).rejects.toThrow(/FileSettings.MaxFileSize/);
    const config = await world.admin.api.get('/api/v4/config').expect(200);
    expect(config.body.FileSettings).toMatchObject({ DriverName: 'local', Directory: server.filesDir, MaxFileSize: 104857600, EnableFileAttachments: true });
  });
});

describe('files on posts', () => {
  test('file_ids on CreatePost: the files are attached and listed in metadata.files wherever the post is read', async () => {
    const a = await uploadOne(world.member, world.townSquareId, { name: 'a.png', bytes: await image(64, 32, 'png') });
    const b = await uploadOne(world.member, world.townSquareId, { name: 'b.txt', bytes: Buffer.from('b') });
    const socket = await connect(server.url, { token: world.admin.token });
    try {
      const created = await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'with files', file_ids: [b.id, a.id] }).expect(201);
      const post = created.body;
      expect(post.file_ids).toEqual([b.id, a.id]);
      expect(post.metadata.files.map((f: any) => [f.id, f.post_id])).toEqual([
        [b.id, post.id],
        [a.id, post.id],
      ]);
      const got = await world.admin.api.get(`/api/v4/posts/${post.id}`).expect(200);
      expect(got.body.metadata.files.map((f: any) => f.id)).toEqual([b.id, a.id]);
      const page = await world.admin.api.get(`/api/v4/channels/${world.townSquareId}/posts`).expect(200);
      expect(page.body.posts[post.id].metadata.files.map((f: any) => f.name)).toEqual(['b.txt', 'a.png']);
      const infos = await world.admin.api.get(`/api/v4/posts/${post.id}/files/info`).expect(200);
      expect(infos.body.map((f: any) => f.id)).toEqual([b.id, a.id]);
      expect((await world.member.api.get(`/api/v4/files/${a.id}/info`).expect(200)).body.post_id).toBe(post.id);
      // The posted event carries them, and says there are files, one an image (as Mattermost's apps expect).
      const event = await socket.next((f) => f.event === 'posted' && JSON.parse(f.data!.post).id === post.id);
      expect(JSON.parse(event.data!.post).metadata.files).toHaveLength(2);
      expect([event.data!.otherFile, event.data!.image]).toEqual(['true', 'true']);
      expect(socket.problems).toEqual([]);
    } finally {
      await socket.close();
    }
  });

  test('a file already attached, another user’s, another channel’s or an unknown one is refused, and nothing is posted', async () => {
    const mine = await uploadOne(world.member, world.townSquareId, { name: 'once.txt', bytes: Buffer.from('1') });
    await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'first', file_ids: [mine.id] }).expect(201);
    const theirs = await uploadOne(world.admin, world.townSquareId, { name: 'theirs.txt', bytes: Buffer.from('2') });
    const elsewhere = await uploadOne(world.member, privateId, { name: 'elsewhere.txt', bytes: Buffer.from('3') });
    const fresh = await uploadOne(world.member, world.townSquareId, { name: 'fresh.txt', bytes: Buffer.from('4') });
    const before = (await world.member.api.get(`/api/v4/channels/${world.townSquareId}/posts`).expect(200)).body.order.length;
    for (const ids of [[mine.id], [theirs.id], [elsewhere.id], ['abcdefghijkmnopqrstuwxyz12'], [fresh.id, mine.id]]) {
      expectAppError(await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'again', file_ids: ids }), 400, 'api.post.create_post.file_ids.app_error');
    }
    expect((await world.member.api.get(`/api/v4/channels/${world.townSquareId}/posts`).expect(200)).body.order.length).toBe(before);
    // The fresh file of the refused post is still free to attach.
    const ok = await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'now', file_ids: [fresh.id] }).expect(201);
    expect(ok.body.metadata.files[0].id).toBe(fresh.id);
    expectAppError(await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'x', file_ids: ['bad'] }), 400, 'model.post.is_valid.file_ids.app_error');
  });

  test('two posts racing for one file: exactly one gets it', async () => {
    const f = await uploadOne(world.member, world.townSquareId, { name: 'race.txt', bytes: Buffer.from('r') });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: `race ${i}`, file_ids: [f.id] })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400, 400]);
  });

  test('a webhook post is untouched: its attachments are Slack attachments, not files', async () => {
    const hook = (await world.admin.api.post('/api/v4/hooks/incoming', { channel_id: world.townSquareId, display_name: 'files' }).expect(201)).body.id;
    const res = await fetch(`${server.url}/hooks/${hook}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'hook', attachments: [{ text: 'att' }] }) });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-post-ids') as string;
    const post = (await world.admin.api.get(`/api/v4/posts/${id}`).expect(200)).body;
    expect(post.file_ids ?? []).toEqual([]);
    expect(post.metadata.files).toBeUndefined();
    expect(post.props.attachments).toHaveLength(1);
  });

  test('PatchPost may repeat the files but not change them', async () => {
    const f = await uploadOne(world.member, world.townSquareId, { name: 'p.txt', bytes: Buffer.from('p') });
    const g = await uploadOne(world.member, world.townSquareId, { name: 'q.txt', bytes: Buffer.from('q') });
    const post = (await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'm', file_ids: [f.id] }).expect(201)).body;
    const patched = await world.member.api.put(`/api/v4/posts/${post.id}/patch`, { message: 'edited', file_ids: [f.id] }).expect(200);
    expect(patched.body.metadata.files.map((x: any) => x.id)).toEqual([f.id]);
    expectAppError(await world.member.api.put(`/api/v4/posts/${post.id}/patch`, { file_ids: [f.id, g.id] }), 400, 'api.post.create_post.file_ids.app_error');
  });

  test('deleting the post deletes its files: every read is then 404', async () => {
    const f = await uploadOne(world.member, world.townSquareId, { name: 'gone.png', bytes: await image(20, 20, 'png') });
    const post = (await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'bye', file_ids: [f.id] }).expect(201)).body;
    const reply = await uploadOne(world.member, world.townSquareId, { name: 'reply.txt', bytes: Buffer.from('r') });
    await world.member.api.post('/api/v4/posts', { channel_id: world.townSquareId, message: 'reply', root_id: post.id, file_ids: [reply.id] }).expect(201);
    await world.member.api.delete(`/api/v4/posts/${post.id}`).expect(200);
    for (const id of [f.id, reply.id]) expectAppError(await call(`/api/v4/files/${id}`, { token: world.member.token }), 404, 'app.file_info.get.app_error');
    expectAppError(await call(`/api/v4/files/${f.id}/thumbnail`, { token: world.member.token }), 404, 'app.file_info.get.app_error');
    expectAppError(await world.member.api.get(`/api/v4/posts/${post.id}/files/info`), 404, 'app.post.get.app_error');
  });

  test('GetFileInfosForPost: a post in a private channel is 403 for a non-member', async () => {
    const f = await uploadOne(world.admin, privateId, { name: 's.txt', bytes: Buffer.from('s') });
    const post = (await world.admin.api.post('/api/v4/posts', { channel_id: privateId, message: 's', file_ids: [f.id] }).expect(201)).body;
    expectAppError(await outsider.api.get(`/api/v4/posts/${post.id}/files/info`), 403, 'api.context.permissions.app_error');
    expect((await world.member.api.get(`/api/v4/posts/${post.id}/files/info`).expect(200)).body).toHaveLength(1);
  });
});

test('Client4: uploadFile, createPost with file_ids, getFileInfosForPost, and the file at getFileUrl', async () => {
  const c = client4For(server, world.member);
  const bytes = await image(300, 100, 'jpeg');
  const form = new FormData();
  form.append('channel_id', world.townSquareId);
  form.append('client_ids', 'client-4');
  form.append('files', new Blob([bytes], { type: 'image/jpeg' }), 'client4.jpg');
  const uploaded = await c.uploadFile(form);
  expect(uploaded.client_ids).toEqual(['client-4']);
  const [info] = uploaded.file_infos;
  expect(info).toMatchObject({ name: 'client4.jpg', width: 300, height: 100, has_preview_image: true });
  const post = await c.createPost({ channel_id: world.townSquareId, message: 'via Client4', file_ids: [info.id] } as never);
  expect(post.metadata.files?.[0].id).toBe(info.id);
  const infos = await c.getFileInfosForPost(post.id);
  expect(infos.map((f) => f.id)).toEqual([info.id]);
  const file = await fetch(c.getFileUrl(info.id, Date.now()), { headers: { Authorization: `Bearer ${world.member.token}` } });
  expect(sha256(Buffer.from(await file.arrayBuffer()))).toBe(sha256(bytes));
  const thumb = await fetch(c.getFileThumbnailUrl(info.id, 0), { headers: { Authorization: `Bearer ${world.member.token}` } });
  expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).width).toBe(120);
});

/**
 * UploadFile as a raw request (exact headers, a body that may not match them), on a connection of its own unless an
 * agent is given: a request that declares more than it sends leaves its connection unusable.
 */
function rawUpload(headers: Record<string, string>, body: string, agent?: http.Agent): Promise<RawAnswer> {
  return send(server.url, { method: 'POST', path: '/api/v4/files', headers: { Authorization: `Bearer ${world.member.token}`, ...headers }, body, agent, timeoutMs: 10000 });
}
