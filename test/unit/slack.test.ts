// Slack compatibility conversions (docs/webhook-rules.md, rules 8-9), as Mattermost applies them.
import {
  AttachmentError,
  attachmentTexts,
  convertAttachment,
  convertSlackLinks,
  convertSlackMentions,
  goValueString,
  normaliseAttachments,
  referencedUserIds,
} from '../../src/app/slack';

const ALICE = 'a1b2c3d4e5f6g7h8i9j0k1l2m3';
const names = new Map([[ALICE, 'alice']]);

describe('convertSlackMentions', () => {
  test.each([
    ['<!channel> deploy', '@channel deploy'],
    ['<!here> look', '@here look'],
    ['<!all> hi', '@all hi'],
    ['<!channel> and <!channel>', '@channel and @channel'],
    [`ping <@${ALICE}>`, 'ping @alice'],
    [`ping <@${ALICE.toUpperCase()}>`, 'ping @alice'],
    ['ping <@zzzzzzzzzzzzzzzzzzzzzzzzzz>', 'ping <@zzzzzzzzzzzzzzzzzzzzzzzzzz>'],
    ['<@short>', '<@short>'],
    ['no markup', 'no markup'],
    ['<!channels> is not a mention', '<!channels> is not a mention'],
  ])('%p → %p', (input, output) => {
    expect(convertSlackMentions(input, names)).toBe(output);
  });
});

describe('convertSlackLinks', () => {
  test.each([
    ['see <http://x|label>', 'see [label](http://x)'],
    ['<https://e.com/a?b=1&c=2|two words> and <http://y|y>', '[two words](https://e.com/a?b=1&c=2) and [y](http://y)'],
    ['<http://x>', '<http://x>'],
    ['<http://x|>', '<http://x|>'],
    ['<a|b|c>', '<a|b|c>'],
    ['multi\nline <http://x|a\nb>', 'multi\nline <http://x|a\nb>'],
  ])('%p → %p', (input, output) => {
    expect(convertSlackLinks(input)).toBe(output);
  });

  test('attachments use the looser regex: a label may contain "|" and newlines', () => {
    expect(convertSlackLinks('<http://x|a|b>', true)).toBe('[a|b](http://x)');
    expect(convertSlackLinks('<http://x|a\nb>', true)).toBe('[a\nb](http://x)');
  });
});

describe('goValueString (Go %v of a JSON value)', () => {
  test.each<[unknown, string]>([
    ['text', 'text'],
    [10, '10'],
    [1.5, '1.5'],
    [-3, '-3'],
    [0, '0'],
    [123456, '123456'],
    [1000000, '1e+06'],
    [1234567, '1.234567e+06'],
    [12345678, '1.2345678e+07'],
    [-1000000, '-1e+06'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1e21, '1e+21'],
    [true, 'true'],
    [false, 'false'],
    [[1, 'a'], '[1 a]'],
    [{ b: 2, a: 1 }, 'map[a:1 b:2]'],
  ])('%p → %p', (value, text) => {
    expect(goValueString(value)).toBe(text);
  });
});

describe('normaliseAttachments', () => {
  test('null and absent are no attachments; null items and null fields are dropped', () => {
    expect(normaliseAttachments(null)).toEqual([]);
    expect(normaliseAttachments(undefined)).toEqual([]);
    expect(normaliseAttachments([null, null])).toEqual([]);
    expect(normaliseAttachments([null, { text: 'a', fields: [null, { title: 't', value: 10 }] }])).toEqual([{ text: 'a', fields: [{ title: 't', value: '10' }] }]);
  });

  test('a null member of an attachment or of a field is not given (dropped); a null short still fails', () => {
    const raw = [{ text: 'a', color: null, id: null, actions: null, fields: [{ title: null, value: null, short: false }] }];
    expect(normaliseAttachments(raw)).toEqual([{ text: 'a', fields: [{ short: false }] }]);
    expect(normaliseAttachments([{ text: 'a', fields: null }])).toEqual([{ text: 'a' }]);
    expect(() => normaliseAttachments([{ fields: [{ short: null }] }])).toThrow(AttachmentError);
  });

  test('a "__proto__" member stays an ordinary member', () => {
    const [a] = normaliseAttachments(JSON.parse('[{"__proto__":{"fields":[{"value":1}]},"text":"t"}]'));
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
    expect(a.fields).toBeUndefined();
  });

  test('field values are stringified; short accepts booleans and "true"/"false" in any case', () => {
    const [a] = normaliseAttachments([
      {
        fields: [
          { value: 1000000, short: true },
          { value: true, short: 'TRUE' },
          { value: 'kept', short: 'false' },
          { title: 'no value' },
        ],
      },
    ]);
    expect(a.fields).toEqual([
      { value: '1e+06', short: true },
      { value: 'true', short: true },
      { value: 'kept', short: false },
      { title: 'no value' },
    ]);
  });

  test.each<[string, unknown]>([
    ['an object instead of an array', { text: 'x' }],
    ['a string item', ['x']],
    ['fields as an object', [{ fields: {} }]],
    ['short = 1', [{ fields: [{ value: 'v', short: 1 }] }]],
    ['short = "yes"', [{ fields: [{ value: 'v', short: 'yes' }] }]],
    ['short = null', [{ fields: [{ value: 'v', short: null }] }]],
  ])('%s fails the whole decode', (_name, raw) => {
    expect(() => normaliseAttachments(raw)).toThrow(AttachmentError);
  });

  test('the input is not mutated', () => {
    const raw = [{ fields: [{ value: 5 }] }];
    normaliseAttachments(raw);
    expect(raw).toEqual([{ fields: [{ value: 5 }] }]);
  });
});

describe('convertAttachment', () => {
  test('pretext, text and field values get mentions and links; title gets mentions only', () => {
    const out = convertAttachment(
      {
        pretext: '<!channel> <http://p|pre>',
        text: `<@${ALICE}> <http://t|text>`,
        title: '<!here> <http://ti|title>',
        fallback: '<!channel>',
        fields: [{ title: '<!all>', value: '<http://v|value> <!all>' }],
      },
      names,
    );
    expect(out).toEqual({
      pretext: '@channel [pre](http://p)',
      text: '@alice [text](http://t)',
      title: '@here <http://ti|title>',
      fallback: '<!channel>',
      fields: [{ title: '<!all>', value: '[value](http://v) @all' }],
    });
  });

  test('attachmentTexts and referencedUserIds find every user reference', () => {
    const atts = [{ pretext: `<@${ALICE}>`, fields: [{ value: '<@bbbbbbbbbbbbbbbbbbbbbbbbbb>' }] }];
    expect(referencedUserIds(['x', ...attachmentTexts(atts)]).sort()).toEqual([ALICE, 'bbbbbbbbbbbbbbbbbbbbbbbbbb']);
  });
});
