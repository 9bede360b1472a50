// Permalinks (`/{team}/pl/{post_id}`), as Mattermost's web app forms and reads them.
import { channelPath, parseRoute, permalinkPath } from '../../web/src/routes';

describe('permalink routes', () => {
  test('a permalink names its team and post', () => {
    expect(parseRoute('/team-a/pl/4x9dgbfcwtf7zmhrkjoagiqp3e', '')).toEqual({ kind: 'permalink', team: 'team-a', postId: '4x9dgbfcwtf7zmhrkjoagiqp3e' });
    expect(parseRoute('/team-a/pl/4x9dgbfcwtf7zmhrkjoagiqp3e/', '')).toEqual({ kind: 'permalink', team: 'team-a', postId: '4x9dgbfcwtf7zmhrkjoagiqp3e' });
    expect(parseRoute('/team-a/pl/4x9dgbfcwtf7zmhrkjoagiqp3e', '?x=1')).toEqual({ kind: 'permalink', team: 'team-a', postId: '4x9dgbfcwtf7zmhrkjoagiqp3e' });
  });

  test('permalinkPath and parseRoute agree', () => {
    for (const [team, id] of [
      ['team-a', 'abcdefghijklmnopqrstuvwxyz'],
      ['a.b_c-d', '0123456789abcdefghijklmnop'],
    ]) {
      expect(permalinkPath(team, id)).toBe(`/${team}/pl/${id}`);
      expect(parseRoute(permalinkPath(team, id), '')).toEqual({ kind: 'permalink', team, postId: id });
    }
  });

  test('what is not a permalink', () => {
    expect(parseRoute('/team-a/pl/', '').kind).toBe('unknown');
    expect(parseRoute('/team-a/pl', '').kind).toBe('unknown');
    expect(parseRoute('/team-a/pl/abc/def', '').kind).toBe('unknown');
    expect(parseRoute('/team-a/pl/ab%2Fcd', '').kind).toBe('unknown');
    expect(parseRoute('/team-a/pl/<script>', '').kind).toBe('unknown');
    // A channel named "pl" stays a channel.
    expect(parseRoute(channelPath('team-a', 'pl'), '')).toEqual({ kind: 'channel', team: 'team-a', channel: 'pl' });
  });
});
