// Browser journeys of files, search and permalinks, each on a fresh server: attaching an image and a PDF from the
// composer (the button, a paste, a drop), seen live by another person, the image's preview and the PDF downloaded
// byte-identical; an upload the server refuses as too large; a search with from: and in: whose "Jump" opens the
// post's permalink, highlighted; and permalinks opened directly (a reply opens its thread, a post the user cannot
// see says so). Every new screen is checked with axe (WCAG 2.1 A/AA) and saved as a screenshot in docs/.
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { describeBrowser, signIn } from '../support/browser';
import { Journeys, axe, docsShot } from '../support/web-journey';
import { PASSWORD, createWebWorld, type WebWorld } from '../support/web-world';
import { eventually } from '../support/eventually';
import { formatSize } from '../../web/src/files';

const journeys = new Journeys();
// Each journey starts its own server and world; on a busy shared machine (MariaDB especially) that alone can take a
// good part of a minute.
jest.setTimeout(180000);

/** A small PDF whose bytes are compared after the download (binary bytes included, to catch any re-encoding). */
function pdfBytes(): Buffer {
  const body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n';
  const bin = Buffer.alloc(4096);
  for (let i = 0; i < bin.length; i++) bin[i] = (i * 7919) & 0xff;
  return Buffer.concat([Buffer.from(body, 'latin1'), bin]);
}

async function pngBytes(width: number, height: number, color: { r: number; g: number; b: number }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } }).png().toBuffer();
}

interface ApiPost {
  id: string;
  message: string;
  file_ids?: string[];
  metadata?: { files?: Array<{ id: string; name: string; size: number; mime_type: string; has_preview_image: boolean }> };
}

async function lastPost(world: WebWorld, channelId: string): Promise<ApiPost> {
  const list = await world.admin.get<{ order: string[]; posts: Record<string, ApiPost> }>(`/api/v4/channels/${channelId}/posts?per_page=1`);
  return list.posts[list.order[0]];
}

/** A file as it crosses into the page: Buffers do not, so its bytes go as base64. */
interface InPageFile {
  name: string;
  type: string;
  b64: string;
}

/**
 * The few browser globals the in-page helpers below use. This file is type-checked without the DOM's types, so the
 * in-page functions reach them through globalThis with these types. They must stay functions: Playwright evaluates a
 * string as an expression and never calls it, even when it evaluates to a function.
 */
interface PageGlobals {
  DataTransfer: new () => { items: { add(file: unknown): unknown } };
  File: new (parts: Uint8Array[], name: string, options: { type: string }) => unknown;
  ClipboardEvent: new (type: string, init: { clipboardData: unknown; bubbles: boolean; cancelable: boolean }) => unknown;
  atob(data: string): string;
}

function inPage(file: { name: string; type: string; bytes: Buffer }): InPageFile {
  return { name: file.name, type: file.type, b64: file.bytes.toString('base64') };
}

/** Drops files (made in the page) on an element, as a drag from the desktop does. */
async function dropFiles(page: Page, selector: string, files: Array<{ name: string; type: string; bytes: Buffer }>): Promise<void> {
  const transfer = await page.evaluateHandle((list: InPageFile[]) => {
    const g = globalThis as unknown as PageGlobals;
    const dt = new g.DataTransfer();
    for (const f of list) dt.items.add(new g.File([Uint8Array.from(g.atob(f.b64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
    return dt;
  }, files.map(inPage));
  await page.dispatchEvent(selector, 'dragenter', { dataTransfer: transfer });
  await page.dispatchEvent(selector, 'dragover', { dataTransfer: transfer });
  await page.locator('.drop-overlay').waitFor();
  await page.dispatchEvent(selector, 'drop', { dataTransfer: transfer });
}

/** Pastes a file into a text box, as a paste of a copied image or file does. */
async function pasteFile(page: Page, label: string, file: { name: string; type: string; bytes: Buffer }): Promise<void> {
  await page.getByRole('textbox', { name: label }).evaluate((el, f: InPageFile) => {
    const g = globalThis as unknown as PageGlobals;
    const dt = new g.DataTransfer();
    dt.items.add(new g.File([Uint8Array.from(g.atob(f.b64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
    el.dispatchEvent(new g.ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, inPage(file));
}

describeBrowser('web client: files, search and permalinks', () => {
  journeys.hooks();

  test('attach an image (button) and a PDF (drop), another person sees them live, the preview opens and the PDF downloads byte-identical', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const alice = await journeys.page();
    const bob = await journeys.page();
    await signIn(alice, url, 'alice', PASSWORD, '/team-a/channels/town-square');
    await signIn(bob, url, 'bob', PASSWORD, '/team-a/channels/town-square');
    const image = await pngBytes(640, 400, { r: 40, g: 120, b: 200 });
    const pdf = pdfBytes();

    // The attach button opens the file chooser; the image is uploaded at once and listed with its size.
    const chooser = alice.waitForEvent('filechooser');
    await alice.getByRole('button', { name: 'Attach files' }).click();
    await (await chooser).setFiles([{ name: 'harbour.png', mimeType: 'image/png', buffer: image }]);
    const attachments = alice.getByRole('list', { name: 'Attachments' });
    await attachments.getByRole('button', { name: 'Remove harbour.png' }).waitFor();
    // A drop of a file anywhere on the channel attaches it too.
    await dropFiles(alice, 'main#main', [{ name: 'minutes.pdf', type: 'application/pdf', bytes: pdf }]);
    await attachments.getByRole('button', { name: 'Remove minutes.pdf' }).waitFor();
    // Both uploaded: their sizes shown where the progress was.
    await attachments.locator('.upload', { hasText: 'minutes.pdf' }).locator('.upload__meta', { hasText: formatSize(pdf.length) }).waitFor();
    await attachments.locator('.upload', { hasText: 'harbour.png' }).locator('.upload__meta', { hasText: formatSize(image.length) }).waitFor();
    await expect(alice.locator('.upload progress').count()).resolves.toBe(0);
    expect(await axe(alice)).toEqual([]);

    const composer = alice.getByRole('textbox', { name: 'Write to #Town Square' });
    await composer.fill('Harbour photo and the minutes');
    await composer.press('Enter');
    await attachments.waitFor({ state: 'detached' });

    // Sent with both file ids, in order.
    let sent!: ApiPost;
    await eventually(async () => {
      sent = await lastPost(world, world.channels.townSquare.id);
      expect(sent.message).toBe('Harbour photo and the minutes');
      expect(sent.metadata?.files?.map((f) => f.name)).toEqual(['harbour.png', 'minutes.pdf']);
    });
    expect(sent.file_ids).toEqual(sent.metadata?.files?.map((f) => f.id));

    // Bob sees the post live: the thumbnail (loaded) and the PDF's card.
    for (const page of [alice, bob]) {
      const post = page.locator(`.post-list article[data-post-id="${sent.id}"]`);
      await post.getByRole('button', { name: 'Open harbour.png' }).waitFor();
      await eventually(async () => {
        expect(await post.locator('.file-thumb img').evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).complete && (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(120);
      });
      await post.locator('.file-card', { hasText: 'minutes.pdf' }).waitFor();
      await expect(post.locator('.file-card').textContent()).resolves.toContain(formatSize(pdf.length));
    }

    // The next message's attachments sit above the box, the sent ones in the post: the screen of attachments.
    const chooser2 = alice.waitForEvent('filechooser');
    await alice.getByRole('button', { name: 'Attach files' }).click();
    await (await chooser2).setFiles([{ name: 'sunset.png', mimeType: 'image/png', buffer: await pngBytes(400, 300, { r: 230, g: 140, b: 60 }) }]);
    await attachments.locator('.upload', { hasText: 'sunset.png' }).locator('.upload__meta').waitFor();
    expect(await axe(alice)).toEqual([]);
    await alice.mouse.move(1, 1);
    await alice.screenshot({ path: docsShot('attachments') });
    await attachments.getByRole('button', { name: 'Remove sunset.png' }).click();
    await attachments.waitFor({ state: 'detached' });

    // The preview: the image (GetFilePreview), the arrow keys move to the next file, Escape closes it.
    const post = bob.locator(`.post-list article[data-post-id="${sent.id}"]`);
    await post.getByRole('button', { name: 'Open harbour.png' }).click();
    const preview = bob.getByRole('dialog', { name: 'harbour.png' });
    await preview.waitFor();
    await eventually(async () => {
      expect(await preview.locator('img').evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).complete && (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(640);
    });
    await expect(preview.locator('img').getAttribute('src')).resolves.toBe(`/api/v4/files/${sent.file_ids?.[0]}/preview`);
    expect(await axe(bob)).toEqual([]);
    await bob.screenshot({ path: docsShot('file-preview') });
    await bob.keyboard.press('ArrowRight');
    await bob.getByRole('dialog', { name: 'minutes.pdf' }).waitFor();
    await expect(bob.getByRole('dialog').textContent()).resolves.toContain('File 2 of 2');
    await bob.keyboard.press('ArrowLeft');
    await bob.getByRole('dialog', { name: 'harbour.png' }).waitFor();
    await bob.keyboard.press('Escape');
    await preview.waitFor({ state: 'detached' });
    // Focus is back on the thumbnail that opened it.
    await eventually(async () => expect(await bob.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe('Open harbour.png'));

    // The PDF's download link (GetFile with download=1) gives the very bytes uploaded.
    const download = bob.waitForEvent('download');
    await post.getByRole('link', { name: 'Download minutes.pdf' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('minutes.pdf');
    const got = await readFile((await file.path()) as string);
    expect(got.equals(pdf)).toBe(true);
  });

  test('a pasted file is attached; one can be removed before sending; a file over the server limit shows its 413 error', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    await world.admin.put('/api/v4/config/patch', { FileSettings: { MaxFileSize: 200 * 1024 } });
    const alice = await journeys.page();
    await signIn(alice, url, 'alice', PASSWORD, '/team-a/channels/deploys');
    const label = 'Write to #Deploys';
    const attachments = alice.getByRole('list', { name: 'Attachments' });

    await pasteFile(alice, label, { name: 'screenshot.png', type: 'image/png', bytes: await pngBytes(300, 200, { r: 200, g: 60, b: 60 }) });
    await attachments.locator('.upload', { hasText: 'screenshot.png' }).locator('.upload__meta').waitFor();
    await pasteFile(alice, label, { name: 'notes.txt', type: 'text/plain', bytes: Buffer.from('remove me') });
    await attachments.getByRole('button', { name: 'Remove notes.txt' }).click();
    await expect(attachments.locator('.upload').count()).resolves.toBe(1);

    // Too big: the server's 413, said beside the file; the message can still be sent without it.
    const chooser = alice.waitForEvent('filechooser');
    await alice.getByRole('button', { name: 'Attach files' }).click();
    await (await chooser).setFiles([{ name: 'huge.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(300 * 1024, 7) }]);
    const error = attachments.locator('.upload', { hasText: 'huge.bin' }).getByRole('alert');
    await error.waitFor();
    await expect(error.textContent()).resolves.toMatch(/too large|exceeds|larger/i);
    expect(await axe(alice)).toEqual([]);

    await alice.getByRole('textbox', { name: label }).press('Enter');
    await attachments.waitFor({ state: 'detached' });
    await eventually(async () => {
      const post = await lastPost(world, world.channels.deploys.id);
      expect(post.message).toBe('');
      expect(post.metadata?.files?.map((f) => f.name)).toEqual(['screenshot.png']);
    });
    await alice.locator('.post-list .file-thumb[aria-label="Open screenshot.png"]').waitFor();
  });

  test('search with from: and in:, results in the right-hand panel, "Jump" opens the permalink with the post highlighted', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const target = await world.post(world.bob, world.channels.deploys.id, 'The rollout of version 7 is done');
    await world.post(world.alice, world.channels.deploys.id, 'Another rollout message by alice');
    await world.post(world.bob, world.channels.townSquare.id, 'A rollout mentioned in town square');
    // Enough later posts that the post found is not on the channel's first page.
    for (let i = 0; i < 62; i++) await world.post(world.admin, world.channels.deploys.id, `filler ${i}`);

    const alice = await journeys.page();
    await signIn(alice, url, 'alice', PASSWORD, '/team-a/channels/town-square');
    const box = alice.getByRole('searchbox', { name: 'Search' });
    await box.fill('rollout from:bob in:deploys');
    await box.press('Enter');
    const panel = alice.getByRole('complementary', { name: 'Search Results' });
    await panel.getByRole('status').filter({ hasText: '1 result for "rollout from:bob in:deploys"' }).waitFor();
    const result = panel.locator('.search-result');
    await expect(result.count()).resolves.toBe(1);
    await expect(result.locator('.search-result__channel').textContent()).resolves.toBe('~Deploys');
    await expect(result.locator('.search-result__author').textContent()).resolves.toBe('bob');
    await expect(result.locator('mark').allTextContents()).resolves.toEqual(['rollout']);
    await expect(result.locator('.search-result__text').textContent()).resolves.toBe('The rollout of version 7 is done');
    expect(await axe(alice)).toEqual([]);
    await alice.mouse.move(1, 1);
    await alice.screenshot({ path: docsShot('search') });

    // A search without results says so.
    await box.fill('rollout from:alice in:town-square');
    await box.press('Enter');
    await panel.getByText('No results for "rollout from:alice in:town-square"').waitFor();
    await box.fill('rollout from:bob in:deploys');
    await box.press('Enter');
    await panel.getByRole('status').filter({ hasText: '1 result' }).waitFor();

    // Jump: the channel opens at the post (fetched beyond the first page), highlighted; the address is the channel's.
    await result.getByRole('link', { name: /Jump/ }).click();
    await alice.waitForURL(`${url}/team-a/channels/deploys`);
    const highlighted = alice.locator(`.post-list article.post--highlight[data-post-id="${target.id}"]`);
    await highlighted.waitFor();
    await eventually(async () => {
      const inView = await highlighted.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const list = (el.closest('.post-list') as typeof el).getBoundingClientRect();
        return r.top >= list.top && r.bottom <= list.bottom;
      });
      expect(inView).toBe(true);
    });
    await alice.mouse.move(1, 1);
    await alice.screenshot({ path: docsShot('permalink') });
    // The results stay beside the channel.
    await panel.locator('.search-result').waitFor();
    expect(await axe(alice)).toEqual([]);
    // The highlight fades after a few seconds.
    await alice.locator('.post--highlight').waitFor({ state: 'detached', timeout: 10000 });
  });

  test('a permalink opened directly: the channel at the post, a reply with its thread, a post the user cannot see says so', async () => {
    const url = await journeys.fresh();
    const world = await createWebWorld(url);
    const root = await world.post(world.bob, world.channels.offTopic.id, 'Lunch at noon?');
    const reply = await world.post(world.alice, world.channels.offTopic.id, 'Yes, see you there', { root_id: root.id });
    const hidden = await world.admin.post<{ id: string }>('/api/v4/channels', { team_id: world.team.id, name: 'admins-only', display_name: 'Admins Only', type: 'P' });
    const secret = await world.post(world.admin, hidden.id, 'Not for alice');

    const alice = await journeys.page();
    await signIn(alice, url, 'alice', PASSWORD, `/team-a/pl/${root.id}`);
    await alice.waitForURL(`${url}/team-a/channels/off-topic`);
    await alice.locator(`.post-list article.post--highlight[data-post-id="${root.id}"]`).waitFor();

    // A reply: its channel, and its thread beside it.
    await alice.goto(`${url}/team-a/pl/${reply.id}`);
    await alice.waitForURL(`${url}/team-a/channels/off-topic`);
    await alice.locator(`.post-list article.post--highlight[data-post-id="${reply.id}"]`).waitFor();
    const thread = alice.getByRole('complementary', { name: 'Thread' });
    await thread.locator(`article[data-post-id="${reply.id}"]`).waitFor();

    // Not visible to alice (a private channel she is not in), and a post that does not exist.
    for (const id of [secret.id, 'abcdefghijklmnopqrstuvwxyz']) {
      await alice.goto(`${url}/team-a/pl/${id}`);
      await alice.getByText('Message not found. It was deleted, or it is in a channel you cannot see.').waitFor();
      expect(await axe(alice)).toEqual([]);
    }
  });
});
