// The default profile picture, drawn as Mattermost draws it (its createProfileImage): a 128×128 RGBA PNG, the
// background one of 26 colours picked by the FNV-1a hash of the user id, the username's first character, upper-cased,
// in white. Mattermost sets the letter in a TrueType font (Nunito Bold); here each character is a few strokes on a
// grid, drawn with round ends and anti-aliased edges (a rounded sans like Nunito), so there is no font file and no
// dependency. A-Z and 0-9 have glyphs (usernames start with a letter); any other character leaves the colour plain.
import { deflateSync } from 'node:zlib';

const SIZE = 128;

/** Mattermost's palette, indexed by fnv32a(user id) % 26 (RGB; alpha is always 255). */
const COLORS: ReadonlyArray<readonly [number, number, number]> = [
  [197, 8, 126], [227, 207, 18], [28, 181, 105], [35, 188, 224], [116, 49, 196],
  [197, 8, 126], [197, 19, 19], [250, 134, 6], [227, 207, 18], [123, 201, 71],
  [28, 181, 105], [35, 188, 224], [116, 49, 196], [197, 8, 126], [197, 19, 19],
  [250, 134, 6], [227, 207, 18], [123, 201, 71], [28, 181, 105], [35, 188, 224],
  [116, 49, 196], [197, 8, 126], [197, 19, 19], [250, 134, 6], [227, 207, 18],
  [123, 201, 71],
];

/** FNV-1a, 32 bits, over the UTF-8 bytes of the text (Go's hash/fnv New32a). */
export function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The palette index of a user's background. */
export function avatarColorIndex(userId: string): number {
  return fnv32a(userId) % COLORS.length;
}

type Point = readonly [number, number];
/** A glyph: polylines on a grid where the baseline is y = 0 and the cap height y = 10 (y up). */
type Glyph = Point[][];

/** Points along an elliptical arc, angles in degrees (counter-clockwise from +x; `to` < `from` runs clockwise). */
function arc(cx: number, cy: number, rx: number, ry: number, from: number, to: number): Point[] {
  const steps = Math.max(4, Math.ceil(Math.abs(to - from) / 10));
  const out: Point[] = [];
  for (let i = 0; i <= steps; i++) {
    const a = ((from + ((to - from) * i) / steps) * Math.PI) / 180;
    out.push([cx + rx * Math.cos(a), cy + ry * Math.sin(a)]);
  }
  return out;
}

const GLYPHS: Record<string, Glyph> = {
  A: [[[0, 0], [3.6, 10], [7.2, 0]], [[1.4, 3.4], [5.8, 3.4]]],
  B: [[[3.4, 5], [0, 5], [0, 0], [3.8, 0], ...arc(3.8, 2.5, 2.7, 2.5, -90, 90)], [[0, 5], [0, 10], [3.4, 10], ...arc(3.4, 7.5, 2.4, 2.5, 90, -90)]],
  C: [arc(4.2, 5, 4.2, 5, 48, 312)],
  D: [[[0, 0], [0, 10], [2.6, 10], ...arc(2.6, 5, 4.6, 5, 90, -90), [0, 0]]],
  E: [[[6, 10], [0, 10], [0, 0], [6, 0]], [[0, 5.1], [5.2, 5.1]]],
  F: [[[6, 10], [0, 10], [0, 0]], [[0, 5.1], [5.2, 5.1]]],
  G: [[...arc(4.4, 5, 4.4, 5, 48, 360), [8.8, 4.6], [5, 4.6]]],
  H: [[[0, 0], [0, 10]], [[6.6, 0], [6.6, 10]], [[0, 5.1], [6.6, 5.1]]],
  I: [[[0, 0], [0, 10]]],
  J: [[[4.4, 10], [4.4, 3.2], ...arc(2.2, 3.2, 2.2, 3.2, 0, -165)]],
  K: [[[0, 0], [0, 10]], [[6.2, 10], [0.2, 3.8]], [[2.4, 6.2], [6.4, 0]]],
  L: [[[0, 10], [0, 0], [5.6, 0]]],
  M: [[[0, 0], [0, 10], [4.1, 2.6], [8.2, 10], [8.2, 0]]],
  N: [[[0, 0], [0, 10], [6.8, 0], [6.8, 10]]],
  O: [arc(4.6, 5, 4.6, 5, 0, 360)],
  P: [[[0, 0], [0, 10], [3.2, 10], ...arc(3.2, 7.1, 2.9, 2.9, 90, -90), [0, 4.2]]],
  Q: [arc(4.6, 5, 4.6, 5, 0, 360), [[5.4, 2.6], [9.2, -0.4]]],
  R: [[[0, 0], [0, 10], [3.2, 10], ...arc(3.2, 7.2, 2.8, 2.8, 90, -90), [0, 4.4]], [[2.8, 4.4], [6.2, 0]]],
  S: [[...arc(3.5, 7.5, 3.1, 2.5, 25, 270), ...arc(3.5, 2.5, 3.5, 2.5, 90, -155)]],
  T: [[[0, 10], [7, 10]], [[3.5, 10], [3.5, 0]]],
  U: [[[0, 10], [0, 3.6], ...arc(3.4, 3.6, 3.4, 3.6, 180, 360), [6.8, 10]]],
  V: [[[0, 10], [3.6, 0], [7.2, 10]]],
  W: [[[0, 10], [2.5, 0], [5, 8.2], [7.5, 0], [10, 10]]],
  X: [[[0, 10], [7, 0]], [[7, 10], [0, 0]]],
  Y: [[[0, 10], [3.5, 4.8], [7, 10]], [[3.5, 4.8], [3.5, 0]]],
  Z: [[[0.2, 10], [6.8, 10], [0, 0], [7, 0]]],
  '0': [arc(3.6, 5, 3.6, 5, 0, 360)],
  '1': [[[0.4, 8.2], [2.8, 10], [2.8, 0]]],
  '2': [[...arc(3.3, 6.9, 3.1, 3.1, 160, -35), [0, 0], [6.8, 0]]],
  '3': [[...arc(3.3, 7.5, 3, 2.5, 150, -90), ...arc(3.4, 2.6, 3.4, 2.6, 90, -150)]],
  '4': [[[5, 0], [5, 10], [0, 3.2], [7, 3.2]]],
  '5': [[[6.2, 10], [1.2, 10], [0.6, 5.6], ...arc(3.4, 3.2, 3.4, 3.2, 135, -150)]],
  '6': [arc(3.5, 3.3, 3.5, 3.3, 0, 360), [[5.4, 10], [0.3, 4.2]]],
  '7': [[[0, 10], [7, 10], [2.4, 0]]],
  '8': [arc(3.5, 7.6, 3, 2.4, 0, 360), arc(3.5, 2.7, 3.5, 2.7, 0, 360)],
  '9': [arc(3.5, 6.7, 3.5, 3.3, 0, 360), [[6.7, 5.8], [1.6, 0]]],
};

/** Pixels per grid unit: the cap height is 46 px, as a 64 px bold face's is. */
const UNIT = 4.6;
const STROKE = 10;
/** The baseline, as in Mattermost (128 × 2/3). */
const BASELINE = 85;

/** Coverage (0..1) of each pixel by the glyph's strokes, centred horizontally on the baseline. */
function rasterize(glyph: Glyph): Float32Array {
  const coverage = new Float32Array(SIZE * SIZE);
  const xs = glyph.flat().map(([x]) => x);
  const centre = (Math.min(...xs) + Math.max(...xs)) / 2;
  const toPixel = ([x, y]: Point): Point => [SIZE / 2 + (x - centre) * UNIT, BASELINE - y * UNIT];
  const segments: Array<[Point, Point]> = [];
  for (const line of glyph) {
    const pts = line.map(toPixel);
    for (let i = 1; i < pts.length; i++) segments.push([pts[i - 1], pts[i]]);
  }
  const half = STROKE / 2;
  for (const [[ax, ay], [bx, by]] of segments) {
    const x0 = Math.max(0, Math.floor(Math.min(ax, bx) - half - 1));
    const x1 = Math.min(SIZE - 1, Math.ceil(Math.max(ax, bx) + half + 1));
    const y0 = Math.max(0, Math.floor(Math.min(ay, by) - half - 1));
    const y1 = Math.min(SIZE - 1, Math.ceil(Math.max(ay, by) + half + 1));
    const dx = bx - ax;
    const dy = by - ay;
    const len2 = dx * dx + dy * dy;
    for (let py = y0; py <= y1; py++) {
      for (let px = x0; px <= x1; px++) {
        const cx = px + 0.5;
        const cy = py + 0.5;
        const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((cx - ax) * dx + (cy - ay) * dy) / len2));
        const distance = Math.hypot(cx - (ax + t * dx), cy - (ay + t * dy));
        const c = Math.max(0, Math.min(1, half + 0.5 - distance));
        const i = py * SIZE + px;
        if (c > coverage[i]) coverage[i] = c;
      }
    }
  }
  return coverage;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An 8-bit RGBA PNG of `SIZE`×`SIZE` pixels (rows unfiltered, zlib-deflated). */
export function encodePng(rgba: Uint8Array, width = SIZE, height = SIZE): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type: RGBA
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter: none
    Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(raw, y * (width * 4 + 1) + 1);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const masks = new Map<string, Float32Array | null>();
/** Pictures already drawn: at most 26 colours × 37 characters, so the cache is small and never needs evicting. */
const pictures = new Map<string, Buffer>();

/** The character drawn for a username: its first, upper-cased ("" when it has no glyph). */
export function avatarInitial(username: string): string {
  const first = [...username][0]?.toUpperCase() ?? '';
  return first in GLYPHS ? first : '';
}

/**
 * The default picture of a user: the PNG, and a key naming what it depends on (colour and character), so an ETag
 * built on it changes exactly when the picture does.
 */
export function defaultAvatar(userId: string, username: string): { png: Buffer; key: string } {
  const color = avatarColorIndex(userId);
  const initial = avatarInitial(username);
  const key = `${color}-${initial ? initial.charCodeAt(0) : 0}`;
  let png = pictures.get(key);
  if (!png) {
    let mask = masks.get(initial);
    if (mask === undefined) {
      mask = initial ? rasterize(GLYPHS[initial]) : null;
      masks.set(initial, mask);
    }
    const [r, g, b] = COLORS[color];
    const rgba = new Uint8Array(SIZE * SIZE * 4);
    for (let i = 0; i < SIZE * SIZE; i++) {
      const c = mask ? mask[i] : 0;
      rgba[i * 4] = Math.round(r + (255 - r) * c);
      rgba[i * 4 + 1] = Math.round(g + (255 - g) * c);
      rgba[i * 4 + 2] = Math.round(b + (255 - b) * c);
      rgba[i * 4 + 3] = 255;
    }
    png = encodePng(rgba);
    pictures.set(key, png);
  }
  return { png, key };
}
