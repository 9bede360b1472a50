// Uploads stream to storage (UploadFile): against a server running as its own process, 20 concurrent 20 MB uploads
// raise its resident memory by far less than the 400 MB they carry, and every file is stored whole (SHA-256 of what
// comes back). 20 uploads past FileSettings.MaxFileSize are all 413, leave nothing on disk, and memory stays bounded
// too. The server still answers afterwards.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { buildServer, spawnServer, type Build, type ServerProcess } from '../support/process';
import { createRemoteWorld, type RemoteWorld } from './support/world';

const MB = 1024 * 1024;
const UPLOADS = 20;
const SIZE = 20 * MB;
/** Growth allowed for 400 MB in flight: a server that held the uploads in memory would need all of it. */
const BOUND = 150 * MB;

let build: Build;
let db: TestDatabase;
let proc: ServerProcess;
let world: RemoteWorld;
let filesDir: string;

beforeAll(async () => {
  build = buildServer();
  db = await createTestDatabase();
  filesDir = mkdtempSync(join(tmpdir(), 'parley-upload-memory-'));
  proc = await spawnServer({ MM_SQLSETTINGS_DRIVERNAME: db.driver, MM_SQLSETTINGS_DATASOURCE: db.dataSource, MM_FILESETTINGS_DIRECTORY: filesDir }, { entry: build.entry });
  world = await createRemoteWorld(proc.url);
}, 120000);
afterAll(async () => {
  await proc?.stop();
  await db?.drop();
  build?.remove();
  if (filesDir) rmSync(filesDir, { recursive: true, force: true });
});

/** The bytes of upload `n`: a 64 KiB block of its own, repeated (cheap to make, different for every upload). */
function block(n: number): Buffer {
  const b = Buffer.alloc(64 * 1024);
  for (let i = 0; i < b.length; i++) b[i] = (i * 131 + n * 17 + (i >> 9)) & 0xff;
  return b;
}

function expectedDigest(n: number, size: number): string {
  const hash = createHash('sha256');
  const b = block(n);
  for (let sent = 0; sent < size; sent += b.length) hash.update(b.subarray(0, Math.min(b.length, size - sent)));
  return hash.digest('hex');
}

/** Streams a multipart upload of `size` bytes (never held whole by the client either); resolves with the answer. */
function streamUpload(n: number, size: number): Promise<{ status: number; text: string }> {
  const head = Buffer.from(
    `--bound\r\nContent-Disposition: form-data; name="channel_id"\r\n\r\n${world.channelId}\r\n--bound\r\nContent-Disposition: form-data; name="files"; filename="big-${n}.bin"\r\n\r\n`,
  );
  const tail = Buffer.from('\r\n--bound--\r\n');
  const b = block(n);
  return new Promise((resolve, reject) => {
    const req = http.request(`${proc.url}/api/v4/files`, {
      method: 'POST',
      agent: false,
      headers: { Authorization: `Bearer ${world.token}`, 'Content-Type': 'multipart/form-data; boundary=bound', 'Content-Length': String(head.length + size + tail.length) },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    req.setTimeout(120000, () => req.destroy(new Error('upload timed out')));
    let sent = 0;
    const pump = () => {
      while (sent < size && !answered && !req.destroyed) {
        const piece = b.subarray(0, Math.min(b.length, size - sent));
        sent += piece.length;
        if (!req.write(piece)) {
          req.once('drain', pump);
          return;
        }
      }
      if (sent >= size && !answered && !req.destroyed) req.end(tail);
    };
    req.write(head);
    pump();
  });
}

async function underLoad<T>(run: () => Promise<T>): Promise<{ result: T; baseline: number; peak: number }> {
  const baseline = proc.memory().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, proc.memory().rss)), 20);
  try {
    const result = await run();
    return { result, baseline, peak: Math.max(peak, proc.memory().rss) };
  } finally {
    clearInterval(sampler);
  }
}

function storedFiles(dir = filesDir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? storedFiles(full) : [full];
  });
}

async function download(fileId: string): Promise<string> {
  const res = await fetch(`${proc.url}/api/v4/files/${fileId}`, { headers: { Authorization: `Bearer ${world.token}` } });
  const hash = createHash('sha256');
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) hash.update(chunk);
  return hash.digest('hex');
}

test('20 concurrent 20 MB uploads: all stored whole, RSS grows by far less than the 400 MB they carry', async () => {
  // Warm the upload path first, so JIT and pools are not counted as growth.
  for (let i = 0; i < 3; i++) expect((await streamUpload(100 + i, MB)).status).toBe(201);
  const { result, baseline, peak } = await underLoad(() => Promise.all(Array.from({ length: UPLOADS }, (_, n) => streamUpload(n, SIZE))));
  console.log(`${UPLOADS} × ${SIZE / MB} MB uploads: RSS ${Math.round(baseline / MB)} MB → peak ${Math.round(peak / MB)} MB (+${Math.round((peak - baseline) / MB)} MB)`);
  for (const r of result) expect(r.status).toBe(201);
  const infos = result.map((r) => JSON.parse(r.text).file_infos[0] as { id: string; name: string; size: number });
  expect(infos.map((f) => f.size)).toEqual(Array(UPLOADS).fill(SIZE));
  expect(peak - baseline).toBeLessThan(BOUND);
  // Byte for byte: the first and the last upload, read back.
  for (const n of [0, UPLOADS - 1]) expect(await download(infos[n].id)).toBe(expectedDigest(n, SIZE));
}, 240000);

test('20 concurrent uploads past MaxFileSize: all 413, nothing left on disk, RSS bounded, the server still answers', async () => {
  const patch = await fetch(`${proc.url}/api/v4/config/patch`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${world.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ FileSettings: { MaxFileSize: 10 * MB } }),
  });
  expect(patch.status).toBe(200);
  const before = storedFiles().length;
  const { result, baseline, peak } = await underLoad(() => Promise.all(Array.from({ length: UPLOADS }, (_, n) => streamUpload(n, SIZE))));
  console.log(`${UPLOADS} × ${SIZE / MB} MB uploads over a 10 MB limit: RSS ${Math.round(baseline / MB)} MB → peak ${Math.round(peak / MB)} MB`);
  for (const r of result) {
    expect(r.status).toBe(413);
    expect(JSON.parse(r.text).id).toBe('api.file.upload_file.too_large_detailed.app_error');
  }
  expect(peak - baseline).toBeLessThan(BOUND);
  expect(storedFiles().length).toBe(before);
  const ping = await fetch(`${proc.url}/api/v4/system/ping?get_server_status=true`);
  expect(ping.status).toBe(200);
}, 240000);
