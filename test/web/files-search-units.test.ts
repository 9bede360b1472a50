// The pure parts of files and search in the web client: sizes as shown, the words a search result is highlighted
// with (Mattermost's search syntax without its filters), and the state of a composer's uploads.
import { draftKey, uploadsState } from '../../web/src/state/files-search-state';
import { extensionLabel, formatSize, hasThumbnail } from '../../web/src/files';
import { highlightTerms, markParts } from '../../web/src/search-terms';

describe('file sizes and kinds', () => {
  test.each([
    [0, '0 B'],
    [532, '532 B'],
    [1023, '1023 B'],
    [1024, '1 KB'],
    [1536, '1.5 KB'],
    [4172, '4.1 KB'],
    [10 * 1024 + 300, '10 KB'],
    [5 * 1024 * 1024, '5 MB'],
    [100 * 1024 * 1024, '100 MB'],
    [3.5 * 1024 ** 3, '3.5 GB'],
  ])('%d bytes → %s', (bytes, shown) => expect(formatSize(bytes)).toBe(shown));

  test('extension labels', () => {
    expect(extensionLabel('minutes.pdf')).toBe('PDF');
    expect(extensionLabel('archive.tar.gz')).toBe('GZ');
    expect(extensionLabel('README')).toBe('FILE');
    expect(extensionLabel('.bashrc')).toBe('FILE');
    expect(extensionLabel('x.verylongext')).toBe('FILE');
  });

  test('thumbnails only for images the server made one of', () => {
    expect(hasThumbnail({ has_preview_image: true, mime_type: 'image/png' })).toBe(true);
    expect(hasThumbnail({ has_preview_image: false, mime_type: 'image/svg+xml' })).toBe(false);
    expect(hasThumbnail({ has_preview_image: false, mime_type: 'application/pdf' })).toBe(false);
  });
});

describe('search highlights', () => {
  test('filters, exclusions and prefixes', () => {
    expect(highlightTerms('rollout from:bob in:deploys')).toEqual([{ text: 'rollout', prefix: false }]);
    expect(highlightTerms('"release notes" -draft after:2024-01-01 -in:town-square deplo*')).toEqual([
      { text: 'release notes', prefix: false },
      { text: 'deplo', prefix: true },
    ]);
    expect(highlightTerms('-"not this" on:2024-02-02 before:2024-03-01 channel:x FROM:alice')).toEqual([]);
    expect(highlightTerms('#release')).toEqual([{ text: '#release', prefix: false }]);
  });

  test('marks whole words, any case, and prefixes', () => {
    const marked = (text: string, terms: string) =>
      markParts(text, highlightTerms(terms))
        .filter((p) => p.mark)
        .map((p) => p.text);
    expect(marked('The Rollout of the rollouts', 'rollout')).toEqual(['Rollout']);
    expect(marked('Deploying the deployment', 'deplo*')).toEqual(['Deploying', 'deployment']);
    expect(marked('See the release   notes now', '"release notes"')).toEqual(['release   notes']);
    expect(marked('café au lait', 'café')).toEqual(['café']);
    // Taken literally, never as a pattern.
    expect(marked('a (b) [c]', '(b)')).toEqual(['(b)']);
    expect(marked('axb', 'a.b')).toEqual([]);
  });

  test('the parts put back together are the text', () => {
    const text = 'rollout <b>rollout</b> & more rollout';
    const parts = markParts(text, highlightTerms('rollout'));
    expect(parts.map((p) => p.text).join('')).toBe(text);
    expect(parts.filter((p) => p.mark)).toHaveLength(3);
    expect(markParts('', highlightTerms('x'))).toEqual([{ text: '', mark: false }]);
  });
});

describe('a composer\'s uploads', () => {
  const base = { name: 'a', size: 1, type: '', progress: 0 };
  test('ready, busy and failed', () => {
    expect(uploadsState(undefined)).toEqual({ ready: 0, busy: false, failed: false });
    const info = { id: 'f' } as never;
    expect(uploadsState([{ ...base, clientId: '1', info }, { ...base, clientId: '2', progress: 0.5 }])).toEqual({ ready: 1, busy: true, failed: false });
    expect(uploadsState([{ ...base, clientId: '1', info }, { ...base, clientId: '2', error: 'too large' }])).toEqual({ ready: 1, busy: false, failed: true });
  });

  test('keys per channel and thread', () => {
    expect(draftKey('c1')).toBe('c1');
    expect(draftKey('c1', 'r1')).toBe('c1:r1');
  });
});
