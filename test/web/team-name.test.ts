// The web client checks a team's URL name exactly as the server does (the first-run screen says what is wrong before
// asking), suggests a valid one for most display names, and knows the first-run routes.
import fc from 'fast-check';
import { teamNameProblem as serverProblem } from '../../src/app/rules';
import { parseRoute } from '../../web/src/routes';
import { suggestTeamName, teamNameProblem } from '../../web/src/team-name';

describe('team URL names in the web client', () => {
  test.each([
    ['team-a', null],
    ['a', 'url'],
    ['ab', null],
    ['x'.repeat(64), null],
    ['x'.repeat(65), 'url'],
    ['Team', 'characters'],
    ['-team', 'characters'],
    ['team-', 'characters'],
    ['te_am', 'characters'],
    ['te__am', null],
    ['my team', 'characters'],
    ['api-team', 'reserved'],
    ['admins', 'reserved'],
    ['signup2', 'reserved'],
    ['playbooks', 'reserved'],
    ['myapi', null],
  ])('%s → %s, as the server says', (name, want) => {
    expect(teamNameProblem(name)).toBe(want);
    expect(serverProblem(name)).toBe(want);
  });

  test('any string gets the server\'s answer', () => {
    const chars = fc.constantFrom(...'ab09-_A .é'.split(''));
    fc.assert(fc.property(fc.array(chars, { maxLength: 70 }).map((a) => a.join('')), (name) => teamNameProblem(name) === serverProblem(name)), { numRuns: 2000 });
    fc.assert(fc.property(fc.string({ maxLength: 80 }), (name) => teamNameProblem(name) === serverProblem(name)), { numRuns: 2000 });
  });

  test.each([
    ['Team A', 'team-a'],
    ['  Acme  Corp!  ', 'acme-corp'],
    ['Équipe Café', 'equipe-cafe'],
    ['R&D / Ops', 'r-d-ops'],
    ['x'.repeat(63) + ' y', 'x'.repeat(63)],
  ])('"%s" suggests %s, which the server accepts', (display, want) => {
    expect(suggestTeamName(display)).toBe(want);
    expect(serverProblem(want)).toBeNull();
  });

  test('a suggestion never has a dash at either end and is at most 64 characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (display) => {
        const name = suggestTeamName(display);
        return name.length <= 64 && !name.startsWith('-') && !name.endsWith('-') && /^[a-z0-9-]*$/.test(name);
      }),
    );
  });

  test('the first-run routes', () => {
    expect(parseRoute('/signup_user_complete', '')).toEqual({ kind: 'signup', inviteId: '' });
    expect(parseRoute('/signup_user_complete/', '?id=abc123')).toEqual({ kind: 'signup', inviteId: 'abc123' });
    expect(parseRoute('/create_team', '')).toEqual({ kind: 'createTeam' });
    expect(parseRoute('/settings/profile', '')).toEqual({ kind: 'account' });
    // A team cannot be named like these pages.
    expect(serverProblem('signup_user_complete')).not.toBeNull();
    expect(serverProblem('create_team')).not.toBeNull();
  });
});
