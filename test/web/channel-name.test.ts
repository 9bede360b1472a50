// The web client checks a channel's URL name exactly as the server does (the create-channel dialog says what is wrong
// before asking) and suggests a valid one for most display names.
import fc from 'fast-check';
import { isValidChannelName } from '../../src/app/rules';
import { channelNameProblem, suggestChannelName } from '../../web/src/channel-name';

describe('channel URL names in the web client', () => {
  test.each([
    ['deploys', null],
    ['a', null],
    ['x'.repeat(64), null],
    ['x'.repeat(65), 'length'],
    ['', 'length'],
    ['Deploys', 'characters'],
    ['-deploys', 'characters'],
    ['_deploys', 'characters'],
    ['de_ploys-', null],
    ['my channel', 'characters'],
    [`${'a'.repeat(26)}__${'b'.repeat(26)}`, 'reserved'],
    ['0123456789abcdef0123456789abcdef01234567', 'reserved'],
  ])('%s → %s, as the server says', (name, want) => {
    expect(channelNameProblem(name)).toBe(want);
    expect(isValidChannelName(name)).toBe(want === null);
  });

  test('any string: the client and the server agree', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'ab0_-A .é'), maxLength: 70 }), (name) => {
        expect(channelNameProblem(name) === null).toBe(isValidChannelName(name));
      }),
    );
  });

  test.each([
    ['Release Planning', 'release-planning'],
    ['  Café  crème! ', 'cafe-creme'],
    ['Q3 / OKRs', 'q3-okrs'],
    ['snake_case name', 'snake_case-name'],
    ['日本語', ''],
  ])('%s is suggested as %s', (displayName, want) => {
    expect(suggestChannelName(displayName)).toBe(want);
  });

  test('a suggestion, when there is one, is a valid name', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (displayName) => {
        const name = suggestChannelName(displayName);
        if (name) expect([null, 'reserved']).toContain(channelNameProblem(name));
      }),
    );
  });
});
