// The payload checker integration authors run before they point a script at a server (`npm run check-payload`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPayload, formatProblem, readablePath } from '../../src/tools/check-payload';
import { reservedPropsProblems } from '../../src/webhook/reserved-props';

const lines = (text: string) => checkPayload(text).problems.map(formatProblem);

describe('checkPayload', () => {
  const table: Array<[string, string, string[]]> = [
    ['plain text', '{"text":"Build #42 passed"}', []],
    ['every field, well typed', JSON.stringify({ text: 'hi', channel: '#town-square', username: 'ci', icon_url: 'https://x/y.png', icon_emoji: ':ghost:', type: 'custom_ci', props: { card: 'details' }, root_id: '', priority: { priority: 'urgent' } }), []],
    ['attachments only (Slack)', '{"attachments":[{"fallback":"f","color":"#36a64f","fields":[{"title":"t","value":"v","short":true}]}]}', []],
    ['keys in another case, as Go decodes them', '{"Text":"hi"}', []],
    ['raw newline inside a string, as the server accepts', '{"text":"two\nlines"}', []],
    ['empty text', '{"text":""}', ['(payload): either a non-empty "text" or at least one attachment is required [anyOf]']],
    ['empty object', '{}', ['(payload): either a non-empty "text" or at least one attachment is required [anyOf]']],
    ['empty attachments', '{"attachments":[]}', ['(payload): either a non-empty "text" or at least one attachment is required [anyOf]']],
    ['type without custom_', '{"text":"hi","type":"foo"}', ['type: must be empty or start with "custom_" [pattern]']],
    ['wrong field types', '{"text":"hi","username":5,"channel":["a"],"props":"x"}', ['channel: must be string [type]', 'username: must be string [type]', 'props: must be object [type]']],
    ['nested attachment field', '{"attachments":[{"fields":[{"title":1}]}]}', ['attachments[0].fields[0].title: must be string [type]']],
    ['text of the wrong type', '{"text":5}', ['text: must be string [type]']],
    ['not an object', '["hi"]', ['(payload): The payload must be a JSON object. [parse]']],
    [
      'reserved props',
      '{"text":"hi","props":{"from_webhook":"false","webhook_display_name":"x","override_username":"ceo","override_icon_url":"u","override_icon_emoji":"e","attachments":[],"card":"kept"}}',
      [
        'props.from_webhook: reserved key; the server always sets it to "true" [reserved]',
        "props.webhook_display_name: reserved key; the server sets it to the hook's display name [reserved]",
        'props.override_username: reserved key; the server drops it: send the top-level "username" (used when EnablePostUsernameOverride is on) [reserved]',
        'props.override_icon_url: reserved key; the server drops it: send the top-level "icon_url" (used when EnablePostIconOverride is on) [reserved]',
        'props.override_icon_emoji: reserved key; the server drops it: send the top-level "icon_emoji" (used when EnablePostIconOverride is on) [reserved]',
        'props.attachments: reserved key; the server drops it: send the top-level "attachments" [reserved]',
      ],
    ],
  ];

  test.each(table)('%s', (_name, text, want) => {
    expect(lines(text)).toEqual(want);
    expect(checkPayload(text).ok).toBe(want.length === 0);
  });

  test('invalid JSON is reported with the parser message', () => {
    expect(lines('{"text": "hi",}')).toEqual([expect.stringMatching(/^\(payload\): The payload is not valid JSON: .+ \[parse\]$/)]);
  });

  test('a payload over the default body limit is reported (the server answers 413)', () => {
    expect(lines(JSON.stringify({ text: 'x'.repeat(300_000) }))).toEqual(['(payload): is 300011 bytes; the server refuses bodies over 300000 bytes by default (413) [size]']);
  });

  test('reserved keys are matched exactly, only in props', () => {
    expect(reservedPropsProblems({ text: 'hi', from_webhook: 'x', props: { From_Webhook: 'x' } })).toEqual([]);
    expect(reservedPropsProblems({ props: ['from_webhook'] })).toEqual([]);
  });

  test.each([
    ['', '(payload)'],
    ['/text', 'text'],
    ['/attachments/0/fields/12/value', 'attachments[0].fields[12].value'],
    ['/props/a~1b~0c', 'props.a/b~c'],
  ])('readablePath(%j) is %j', (pointer, want) => {
    expect(readablePath(pointer)).toBe(want);
  });
});

describe('the CLI', () => {
  const root = join(__dirname, '../..');
  // Built as `npm run check-payload` builds it, into a private directory: other suites run dist/ concurrently.
  const out = join(root, 'dist', `.check-payload-test-${process.pid}`);
  const cli = join(out, 'src/tools/check-payload.js');
  let dir: string;

  beforeAll(() => {
    const tsc = [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', out];
    const build = spawnSync(process.execPath, tsc, { cwd: root, encoding: 'utf8' });
    expect(build.stdout + build.stderr).toBe('');
    dir = mkdtempSync(join(tmpdir(), 'check-payload-'));
    writeFileSync(join(dir, 'good.json'), '{"text":"hello"}');
    writeFileSync(join(dir, 'bad.json'), '{"text":"","props":{"from_webhook":"false"}}');
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  const run = (args: string[], input?: string) => spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', input });

  test('a valid file: "valid", exit 0', () => {
    const r = run([join(dir, 'good.json')]);
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 0, stdout: 'valid\n' });
  });

  test('an invalid file: one line per problem, exit 1', () => {
    const r = run([join(dir, 'bad.json')]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe(
      'invalid (2 problems)\n' +
        '  (payload): either a non-empty "text" or at least one attachment is required [anyOf]\n' +
        '  props.from_webhook: reserved key; the server always sets it to "true" [reserved]\n',
    );
  });

  test('standard input, with "-" or with no argument', () => {
    expect(run(['-'], '{"text":"hi"}')).toMatchObject({ status: 0, stdout: 'valid\n' });
    expect(run([], '{"text":"hi","type":"foo"}')).toMatchObject({ status: 1, stdout: 'invalid (1 problem)\n  type: must be empty or start with "custom_" [pattern]\n' });
    expect(run([], 'not json')).toMatchObject({ status: 1, stdout: expect.stringContaining('[parse]') });
  });

  test('several files: each labelled; exit 1 if any is invalid', () => {
    const r = run([join(dir, 'good.json'), join(dir, 'bad.json')]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^${join(dir, 'good.json')}: valid\n${join(dir, 'bad.json')}: invalid \\(2 problems\\)\n`));
  });

  test('a file that cannot be read: exit 2 with the reason', () => {
    const r = run([join(dir, 'missing.json')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot read .*missing\.json: ENOENT/);
  });
});
