import { readFileSync } from 'node:fs';
import { AppError } from '../model';
import { defaultConfig } from '../config/settings';
import { loadSpec } from '../spec';
import { fromJson } from '../webhook/decode';
import { reservedPropsProblems } from '../webhook/reserved-props';
import { createPayloadValidator, type PayloadProblem, type PayloadValidator } from '../webhook/validate';

export interface CheckResult {
  ok: boolean;
  problems: PayloadProblem[];
}

let shared: PayloadValidator | undefined;

/**
 * Checks the JSON text of an incoming webhook payload as the server would read it (same leniencies, same schema),
 * plus what the server accepts but silently ignores: reserved `props` keys, which an integration author wants to
 * hear about. Also flags a payload over the server's default body limit (MaximumPayloadSizeBytes → 413).
 */
export function checkPayload(text: string, validate: PayloadValidator = (shared ??= createPayloadValidator(loadSpec()))): CheckResult {
  const limit = defaultConfig().ServiceSettings.MaximumPayloadSizeBytes;
  const size = Buffer.byteLength(text, 'utf8');
  const tooLarge: PayloadProblem[] =
    size > limit ? [{ path: '', rule: 'size', message: `is ${size} bytes; the server refuses bodies over ${limit} bytes by default (413)` }] : [];
  let payload: Record<string, unknown>;
  try {
    payload = fromJson(text);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { ok: false, problems: [...tooLarge, { path: '', rule: 'parse', message: err.detailedError || err.message }] };
  }
  const problems = [...tooLarge, ...validate(payload), ...reservedPropsProblems(payload)];
  return { ok: problems.length === 0, problems };
}

/** A JSON pointer as a reader writes it: "/attachments/0/fields/1" → "attachments[0].fields[1]". */
export function readablePath(pointer: string): string {
  if (pointer === '') return '(payload)';
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((out, segment) => (/^\d+$/.test(segment) ? `${out}[${segment}]` : out === '' ? segment : `${out}.${segment}`), '');
}

/** "path: message [rule]", one problem a line. */
export function formatProblem(problem: PayloadProblem): string {
  return `${readablePath(problem.path)}: ${problem.message} [${problem.rule}]`;
}

const USAGE = `Usage: npm run check-payload -- FILE...   (or "-", or nothing, to read standard input)

Checks incoming webhook payloads (JSON) against the spec's IncomingWebhookPayload schema and the server's rules.
Prints "valid" and exits 0, or prints one "path: message [rule]" line per problem and exits 1.
`;

function readInput(name: string): string {
  return name === '-' ? readFileSync(0, 'utf8') : readFileSync(name, 'utf8');
}

/** The CLI: exit 0 when every input is valid, 1 when one is not, 2 when an input cannot be read. */
export function main(argv: string[]): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const inputs = argv.length > 0 ? argv : ['-'];
  if (inputs.includes('-') && process.stdin.isTTY) {
    process.stderr.write(USAGE);
    return 2;
  }
  let status = 0;
  for (const input of inputs) {
    const label = inputs.length > 1 ? `${input === '-' ? '(stdin)' : input}: ` : '';
    let text: string;
    try {
      text = readInput(input);
    } catch (err) {
      process.stderr.write(`check-payload: cannot read ${input}: ${(err as Error).message}\n`);
      return 2;
    }
    const result = checkPayload(text);
    if (result.ok) {
      process.stdout.write(`${label}valid\n`);
      continue;
    }
    status = 1;
    process.stdout.write(`${label}invalid (${result.problems.length} problem${result.problems.length === 1 ? '' : 's'})\n`);
    for (const problem of result.problems) process.stdout.write(`  ${formatProblem(problem)}\n`);
  }
  return status;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
