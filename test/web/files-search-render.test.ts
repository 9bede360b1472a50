// The components of files and search rendered against a state object built by hand (no server, no actions run): a
// composer's uploads, a post's files, a permalink's highlighted post and the search results.
import { describeBrowser } from '../support/browser';
import { useStateRenderer } from '../support/web-render';

const ME = 'm'.repeat(26);
const BOB = 'b'.repeat(26);
const TEAM = 't'.repeat(26);
const C1 = 'c'.repeat(26);
const user = (id: string, username: string) => ({ id, username, roles: 'system_user', create_at: 1, update_at: 1, delete_at: 0 });
const file = (id: string, name: string, mime_type: string, size: number, has_preview_image: boolean) => ({
  id, user_id: BOB, channel_id: C1, create_at: 1, update_at: 1, delete_at: 0, name, extension: name.split('.').pop(), size, mime_type, has_preview_image,
});
const post = (id: string, message: string, extra: object = {}) => ({ id, create_at: Date.UTC(2025, 0, 2, 9, 30), update_at: 1, delete_at: 0, user_id: BOB, channel_id: C1, root_id: '', message, type: '', props: {}, ...extra });
const STATE = {
  boot: 'ready',
  me: user(ME, 'alice'),
  users: { [ME]: user(ME, 'alice'), [BOB]: user(BOB, 'bob') },
  teams: [{ id: TEAM, name: 'team-a', display_name: 'Team A', type: 'O' }],
  currentTeamId: TEAM,
  currentChannelId: C1,
  channels: { [C1]: { id: C1, team_id: TEAM, name: 'deploys', display_name: 'Deploys', type: 'O', delete_at: 0, create_at: 1, update_at: 1, header: '', purpose: '', last_post_at: 0, creator_id: ME } },
  teamChannels: { [TEAM]: [C1] },
};
const withFiles = post('p1', 'Photos and minutes', {
  file_ids: ['f1', 'f2'],
  metadata: { files: [file('f1'.padEnd(26, '1'), 'harbour.png', 'image/png', 4812, true), file('f2'.padEnd(26, '2'), 'minutes.pdf', 'application/pdf', 4266, false)] },
});

describeBrowser('web client: files and search rendered from a state object', () => {
  const { render } = useStateRenderer({
    imports: `
    import { PostItem } from './web/src/components/Post';
    import { UploadList } from './web/src/components/ComposerFiles';
    import { SearchResults } from './web/src/components/Search';
    `,
    components: `{
      Post: (s) => h(PostItem, { post: s.posts.byId.p1, continuation: false, replyContext: false }),
      Uploads: (s) => h(UploadList, { channelId: s.currentChannelId }),
      Search: () => h(SearchResults, {}),
    }`,
    state: STATE,
  });

  test('a post with files: the image as a thumbnail, the PDF as a card with its size and download link', async () => {
    const { text, html } = await render('Post', { posts: { byId: { p1: withFiles }, deleted: {}, channels: {}, threads: {} } });
    expect(text).toContain('Photos and minutes');
    expect(html).toContain(`src="/api/v4/files/${'f1'.padEnd(26, '1')}/thumbnail"`);
    expect(html).toContain('aria-label="Open harbour.png"');
    expect(text).toContain('minutes.pdf');
    expect(text).toContain('PDF 4.2 KB');
    expect(html).toContain(`href="/api/v4/files/${'f2'.padEnd(26, '2')}?download=1"`);
    expect(html).toContain('aria-label="Download minutes.pdf"');
    expect(html).not.toContain('post--highlight');
  });

  test('a permalink\'s post is highlighted', async () => {
    const { html } = await render('Post', { posts: { byId: { p1: withFiles }, deleted: {}, channels: {}, threads: {} }, highlightPostId: 'p1' });
    expect(html).toContain('post--highlight');
  });

  test('uploads: progress while running, size when done, the reason when refused, each removable', async () => {
    const { text, html } = await render('Uploads', {
      uploads: {
        [C1]: [
          { clientId: 'u1', name: 'big.mov', size: 5 * 1024 * 1024, type: 'video/quicktime', progress: 0.42 },
          { clientId: 'u2', name: 'notes.txt', size: 532, type: 'text/plain', progress: 1, info: file('f3'.padEnd(26, '3'), 'notes.txt', 'text/plain', 532, false) },
          { clientId: 'u3', name: 'huge.bin', size: 1, type: '', progress: 0, error: 'huge.bin is too large.' },
        ],
      },
    });
    expect(text).toContain('42%');
    expect(html).toMatch(/<progress[^>]*aria-label="Uploading big.mov"/);
    expect(text).toContain('532 B');
    expect(text).toContain('huge.bin is too large.');
    for (const name of ['big.mov', 'notes.txt', 'huge.bin']) expect(html).toContain(`aria-label="Remove ${name}"`);
    expect((await render('Uploads')).html).toBe('');
  });

  test('search results: channel, author, the words marked, a Jump to the permalink; no results said so', async () => {
    const found = post('p2', 'The rollout is <b>done</b>');
    const { text, html } = await render('Search', {
      rhs: { kind: 'search' },
      search: { terms: 'rollout from:bob in:deploys', teamId: TEAM, status: 'done', order: ['p2'], posts: { p2: found }, hasNext: false, page: 0 },
    });
    expect(text).toContain('1 result for "rollout from:bob in:deploys"');
    expect(text).toContain('~Deploys');
    expect(text).toContain('bob');
    expect(html).toContain('<mark>rollout</mark>');
    // Text stays text.
    expect(html).toContain('&lt;b&gt;done&lt;/b&gt;');
    expect(html).toContain('href="/team-a/pl/p2"');
    const none = await render('Search', { search: { terms: 'nothing', teamId: TEAM, status: 'done', order: [], posts: {}, hasNext: false, page: 0 } });
    expect(none.text).toContain('No results for "nothing"');
    const failed = await render('Search', { search: { terms: 'x', teamId: TEAM, status: 'error', error: 'Boom.', order: [], posts: {}, hasNext: false, page: 0 } });
    expect(failed.text).toContain('Boom.');
  });
});
