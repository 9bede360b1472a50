// Profile pictures (#25): SetProfileImage and SetDefaultProfileImage through Client4 (uploadProfileImage,
// setDefaultProfileImage), and what GetProfileImage serves after each, with the user_updated event and the errors.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { createUser, startTestServer, type Actor, type TestServer } from '../support/server';
import { send } from '../support/http';
import { connect } from '../support/ws';

let server: TestServer;
let admin: Actor;
let alice: Actor;
let bob: Actor;

const solid = (width: number, height: number, background: string) => sharp({ create: { width, height, channels: 3, background } });

/** A picture 300×100: blue, red, green thirds; its centred square is all red. */
async function thirds(): Promise<Buffer> {
  const third = (c: string) => solid(100, 100, c).png().toBuffer();
  const [blue, red, green] = await Promise.all([third('#0000ff'), third('#ff0000'), third('#00ff00')]);
  return solid(300, 100, '#000000')
    .composite([
      { input: blue, left: 0, top: 0 },
      { input: red, left: 100, top: 0 },
      { input: green, left: 200, top: 0 },
    ])
    .jpeg()
    .toBuffer();
}

/** A multipart body with one file part named `name`. */
function form(bytes: Buffer, name = 'image', type = 'image/png'): { contentType: string; body: Buffer } {
  const head = `--b\r\nContent-Disposition: form-data; name="${name}"; filename="me.png"\r\nContent-Type: ${type}\r\n\r\n`;
  return { contentType: 'multipart/form-data; boundary=b', body: Buffer.concat([Buffer.from(head), bytes, Buffer.from('\r\n--b--\r\n')]) };
}

const upload = (as: Actor, userId: string, f: { contentType: string; body: Buffer }) =>
  send(server.url, { method: 'POST', path: `/api/v4/users/${userId}/image`, headers: { Authorization: `Bearer ${as.token}`, 'Content-Type': f.contentType }, body: f.body });

async function picture(as: Actor, userId: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer; headers: Headers }> {
  const res = await fetch(`${server.url}/api/v4/users/${userId}/image`, { headers: { Authorization: `Bearer ${as.token}`, ...headers } });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

async function defaultPicture(as: Actor, userId: string): Promise<Buffer> {
  const res = await fetch(`${server.url}/api/v4/users/${userId}/image/default`, { headers: { Authorization: `Bearer ${as.token}` } });
  return Buffer.from(await res.arrayBuffer());
}

const userOf = async (id: string) => (await admin.api.get(`/api/v4/users/${id}`).expect(200)).body as { last_picture_update: number; update_at: number };

/** A PNG whose header claims `width`×`height` (the pixels are never there): enough for a header read. */
function claimedPng(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])), chunk('IEND', Buffer.alloc(0))]);
}

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  alice = await createUser(server, admin);
  bob = await createUser(server, admin);
});
afterAll(() => server.close());

describe('SetProfileImage', () => {
  test('Client4 uploads a JPEG: stored as a 128×128 PNG of its centred square, last_picture_update moves, user_updated', async () => {
    const before = await userOf(alice.id);
    expect(before.last_picture_update).toBe(0);
    const bobSocket = await connect(server.url, { token: bob.token });
    try {
      const blob = new File([await thirds()], 'me.jpg', { type: 'image/jpeg' });
      expect(await client4For(server, alice).uploadProfileImage(alice.id, blob)).toEqual({ status: 'OK' });
      const after = await userOf(alice.id);
      expect(after.last_picture_update).toBeGreaterThan(0);
      expect(after.update_at).toBeGreaterThan(before.update_at);
      const event = await bobSocket.next((f) => f.event === 'user_updated' && (f.data?.user as { id: string }).id === alice.id);
      expect(event.data?.user).toMatchObject({ id: alice.id, last_picture_update: after.last_picture_update });
      expect(bobSocket.problems).toEqual([]);
    } finally {
      await bobSocket.close();
    }
    const res = await picture(bob, alice.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('max-age=86400, private');
    const meta = await sharp(res.body).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: 'png', width: 128, height: 128 });
    // The centred square of blue|red|green is red, edge to edge (JPEG: close to it).
    const { data } = await sharp(res.body).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    for (const x of [2, 64, 125]) {
      const i = (64 * 128 + x) * 3;
      expect(data[i]).toBeGreaterThan(200);
      expect(data[i + 1]).toBeLessThan(60);
      expect(data[i + 2]).toBeLessThan(60);
    }
    expect(res.body.equals(await defaultPicture(bob, alice.id))).toBe(false);
    // Its ETag is the picture's time; a matching If-None-Match is 304.
    const etag = res.headers.get('etag') as string;
    expect(etag).toBe(String((await userOf(alice.id)).last_picture_update));
    expect((await picture(bob, alice.id, { 'If-None-Match': etag })).status).toBe(304);
  });

  test('a PNG and a GIF are taken; an admin may set another user\'s picture; a member may not (403)', async () => {
    expect((await upload(alice, 'me', form(await solid(40, 40, '#123456').png().toBuffer()))).status).toBe(200);
    expect((await upload(alice, 'me', form(await solid(40, 30, '#654321').gif().toBuffer(), 'image', 'image/gif'))).status).toBe(200);
    expect((await upload(admin, bob.id, form(await solid(10, 10, '#00ff00').png().toBuffer()))).status).toBe(200);
    expect((await userOf(bob.id)).last_picture_update).toBeGreaterThan(0);
    const blob = new File([await solid(10, 10, '#ff00ff').png().toBuffer()], 'me.png', { type: 'image/png' });
    await expectClientError(client4For(server, alice).uploadProfileImage(bob.id, blob), 403, 'api.context.permissions.app_error');
  });

  test('the errors, as Mattermost names them; nothing changes', async () => {
    const before = await userOf(alice.id);
    const png = await solid(8, 8, '#abcdef').png().toBuffer();
    expectAppError(await upload(alice, 'me', form(png, 'file')), 400, 'api.user.upload_profile_user.no_file.app_error');
    expectAppError(await upload(alice, 'me', form(Buffer.from('not a picture at all'))), 400, 'api.user.upload_profile_user.check_image_limits.app_error');
    expectAppError(await upload(alice, 'me', form(claimedPng(10000, 10000))), 400, 'api.user.upload_profile_user.check_image_limits.app_error');
    expectAppError(await upload(alice, 'me', form(await solid(8, 8, '#abcdef').webp().toBuffer(), 'image', 'image/webp')), 400, 'api.user.upload_profile_user.decode.app_error');
    expectAppError(await upload(alice, 'me', { contentType: 'multipart/form-data; boundary=b', body: Buffer.from('--b\r\nContent-Disposition: form-data; name="image"; filename="x"\r\n\r\nabc') }), 400, 'api.user.upload_profile_user.parse.app_error');
    expectAppError(await upload(alice, 'me', { contentType: 'application/json', body: Buffer.from('{}') }), 415);
    expectAppError(await upload(admin, 'z'.repeat(26), form(png)), 400, 'api.context.invalid_url_param.app_error');
    expectAppError(await server.http().post(`/api/v4/users/${alice.id}/image`), 401);
    expect(await userOf(alice.id)).toEqual(before);
    // The uploads refused left nothing in storage: the picture only.
    expect(readdirSync(join(server.filesDir, 'users', alice.id))).toEqual(['profile.png']);
  });

  test('a body past FileSettings.MaxFileSize is 413', async () => {
    await admin.api.put('/api/v4/config/patch', { FileSettings: { MaxFileSize: 2000 } }).expect(200);
    try {
      const big = await solid(200, 200, '#000000').png({ compressionLevel: 0 }).toBuffer();
      expect(big.length).toBeGreaterThan(2000);
      expectAppError(await upload(alice, 'me', form(big)), 413, 'api.user.upload_profile_user.too_large.app_error');
    } finally {
      await admin.api.put('/api/v4/config/patch', { FileSettings: { MaxFileSize: 104857600 } }).expect(200);
    }
  });
});

describe('SetDefaultProfileImage', () => {
  test('back to the generated picture; last_picture_update is the reset time negated; user_updated', async () => {
    await upload(alice, 'me', form(await solid(20, 20, '#ff0000').png().toBuffer())).then((r) => expect(r.status).toBe(200));
    const bobSocket = await connect(server.url, { token: bob.token });
    try {
      expect(await client4For(server, alice).setDefaultProfileImage(alice.id)).toEqual({ status: 'OK' });
      const after = await userOf(alice.id);
      expect(after.last_picture_update).toBeLessThan(0);
      const event = await bobSocket.next((f) => f.event === 'user_updated' && (f.data?.user as { id: string }).id === alice.id && (f.data?.user as { last_picture_update: number }).last_picture_update < 0);
      expect(event.data?.user).toMatchObject({ last_picture_update: after.last_picture_update });
    } finally {
      await bobSocket.close();
    }
    const res = await picture(bob, alice.id);
    expect(res.body.equals(await defaultPicture(bob, alice.id))).toBe(true);
    expect(res.headers.get('cache-control')).toBe('max-age=300, private');
    // Resetting again succeeds the same way.
    await client4For(server, alice).setDefaultProfileImage(alice.id);
  });

  test("a member may not reset another user's picture (403); an admin may; an unknown user is 404", async () => {
    await expectClientError(client4For(server, alice).setDefaultProfileImage(bob.id), 403, 'api.context.permissions.app_error');
    await client4For(server, admin).setDefaultProfileImage(bob.id);
    expect((await userOf(bob.id)).last_picture_update).toBeLessThan(0);
    expectAppError(await admin.api.delete(`/api/v4/users/${'z'.repeat(26)}/image`), 404, 'app.user.missing_account.const');
  });
});
