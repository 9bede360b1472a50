// A team's allowed_domains as Mattermost reads it (normalizeDomains, IsEmailAddressAllowed, IsTeamEmailAllowed):
// table-driven, exact expected values.
import { isEmailAllowed, isTeamEmailAllowed, normalizeDomains } from '../../src/app/allowed-domains';

describe('normalizeDomains', () => {
  test.each<[string, string[]]>([
    ['', []],
    ['   ', []],
    [' , @ ,', []],
    ['corp.example', ['corp.example']],
    ['Corp.Example', ['corp.example']],
    ['@corp.mattermost.com, mattermost.com mattermost.org', ['corp.mattermost.com', 'mattermost.com', 'mattermost.org']],
    ['a.example,b.example', ['a.example', 'b.example']],
    ['a.example\tb.example\nc.example', ['a.example', 'b.example', 'c.example']],
    ['a.example,,  @@b.example', ['a.example', 'b.example']],
  ])('%p → %p', (text, want) => {
    expect(normalizeDomains(text)).toEqual(want);
  });
});

describe('isEmailAllowed', () => {
  test.each<[string, string, boolean]>([
    ['anyone@anywhere.example', '', true],
    ['anyone@anywhere.example', ' , ', true],
    ['a@corp.example', 'corp.example', true],
    ['A@CORP.EXAMPLE', 'corp.example', true],
    ['a@corp.example', 'CORP.example', true],
    ['a@corp.example', 'other.example corp.example', true],
    ['a@corp.example', '@corp.example', true],
    ['a@sub.corp.example', 'corp.example', false],
    ['a@corp.example.net', 'corp.example', false],
    ['a@notcorp.example', 'corp.example', false],
    ['corp.example@example.com', 'corp.example', false],
    ['a@example.com', 'corp.example', false],
  ])('%p with %p → %p', (email, domains, want) => {
    expect(isEmailAllowed(email, domains)).toBe(want);
  });
});

describe('isTeamEmailAllowed', () => {
  test('bots are exempt (Mattermost\'s only exception); everyone else is held to the list', () => {
    const team = { allowed_domains: 'corp.example' };
    expect(isTeamEmailAllowed({ email: 'bot@example.com', is_bot: true }, team)).toBe(true);
    expect(isTeamEmailAllowed({ email: 'admin@example.com', is_bot: false }, team)).toBe(false);
    expect(isTeamEmailAllowed({ email: 'someone@corp.example' }, team)).toBe(true);
  });

  test('linear in the length of the list: a 1 MB list of separators and a 1 MB list of one-letter domains', () => {
    // Correctness on adversarial shapes; the regular expression is a single character class (no backtracking).
    expect(normalizeDomains(', @'.repeat(350_000))).toEqual([]);
    expect(normalizeDomains('a '.repeat(500_000))).toHaveLength(500_000);
    expect(isEmailAllowed('x@b', 'a '.repeat(500_000))).toBe(false);
  });
});
