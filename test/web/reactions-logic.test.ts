// The pure parts of reactions (issue #25): how a post's reactions are merged and grouped, how who reacted is said,
// and the emoji picker's search. Table-driven, in Node.
import { EMOJI_CHOICES, reactionGlyph, searchEmoji } from '../../web/src/emoji-choices';
import { groupReactions, reactionLabel, reactorNames, withReaction, withoutReaction, type Reaction } from '../../web/src/reactions';
import type { Post } from '../../web/src/post-store';

const post = (reactions?: Reaction[]): Post =>
  ({ id: 'p1', create_at: 1, update_at: 1, delete_at: 0, user_id: 'u0', channel_id: 'c1', root_id: '', message: 'm', type: '', props: {}, metadata: reactions ? { reactions } : {} }) as unknown as Post;
const r = (user_id: string, emoji_name: string, create_at = 1): Reaction => ({ user_id, post_id: 'p1', emoji_name, create_at }) as Reaction;
const names: Record<string, string> = { me: 'me', a: 'alice', b: 'bob', c: 'carol', d: 'dave', e: 'erin' };

describe('merging reactions', () => {
  test('adding is idempotent (the event of one’s own reaction arrives after the answer)', () => {
    const once = withReaction(post(), r('a', '+1'));
    expect(once.metadata?.reactions).toEqual([r('a', '+1')]);
    expect(once.has_reactions).toBe(true);
    expect(withReaction(once, r('a', '+1'))).toBe(once);
  });
  test('removing takes only that user’s reaction with that emoji; the last one clears has_reactions', () => {
    const held = post([r('a', '+1'), r('b', '+1'), r('a', 'tada')]);
    expect(withoutReaction(held, { user_id: 'a', emoji_name: '+1' }).metadata?.reactions).toEqual([r('b', '+1'), r('a', 'tada')]);
    expect(withoutReaction(held, { user_id: 'c', emoji_name: '+1' })).toBe(held);
    expect(withoutReaction(post([r('a', '+1')]), { user_id: 'a', emoji_name: '+1' }).has_reactions).toBe(false);
  });
});

describe('grouping and naming', () => {
  const cases: Array<[string, Reaction[], string[]]> = [
    ['one person', [r('a', '+1')], ['alice reacted with :+1:']],
    ['two, in the order they reacted', [r('b', '+1'), r('a', '+1')], ['bob and alice reacted with :+1:']],
    ['the viewer first, as You', [r('a', '+1'), r('me', '+1')], ['You and alice reacted with :+1:']],
    ['emoji in the order first used', [r('a', 'tada'), r('b', '+1'), r('c', 'tada')], ['alice and carol reacted with :tada:', 'bob reacted with :+1:']],
    ['many: the rest counted', [r('a', 'x'), r('b', 'x'), r('c', 'x'), r('d', 'x'), r('e', 'x')], ['alice, bob, carol and 2 others reacted with :x:']],
  ];
  test.each(cases)('%s', (_name, reactions, want) => {
    const groups = groupReactions(reactions, 'me');
    expect(groups.map((g) => reactionLabel(g, (id) => names[id], 'me'))).toEqual(want);
  });
  test('mine is marked; a user counts once per emoji', () => {
    const [g] = groupReactions([r('me', '+1'), r('me', '+1'), r('a', '+1')], 'me');
    expect(g).toEqual({ name: '+1', userIds: ['me', 'a'], mine: true });
    expect(reactorNames(g, (id) => names[id], 'me')).toBe('You and alice');
  });
});

describe('the picker', () => {
  const cases: Array<[string, string]> = [
    ['thumbsup', '+1'],
    [':+1:', '+1'],
    ['TADA', 'tada'],
    ['check', 'heavy_check_mark'],
    ['white_check', 'white_check_mark'],
    ['thinking', 'thinking_face'],
  ];
  test.each(cases)('%s finds %s first', (query, first) => {
    expect(searchEmoji(query)[0]?.name).toBe(first);
  });
  test('an empty query offers everything; names are what the server accepts', () => {
    expect(searchEmoji('  ')).toBe(EMOJI_CHOICES);
    expect(searchEmoji('zzzz-nothing')).toEqual([]);
    for (const c of EMOJI_CHOICES) expect(c.name).toMatch(/^[a-zA-Z0-9\-+_]+$/);
    expect(new Set(EMOJI_CHOICES.map((c) => c.name)).size).toBe(EMOJI_CHOICES.length);
  });
  test('an unknown name (a custom emoji of another client) shows as :name:', () => {
    expect(reactionGlyph('+1')).toBe('👍');
    expect(reactionGlyph('partyparrot')).toBe(':partyparrot:');
  });
});
