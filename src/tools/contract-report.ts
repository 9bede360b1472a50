// What the contract proxy says about the exchanges it saw: one entry per exchange (a line or a few on the terminal,
// one JSON line in --report FILE), and a summary at the end.
import type { Finding } from './contract-check';

export interface ReportEntry {
  /** When the request arrived (ISO 8601). */
  time: string;
  method: string;
  /** The path as sent (a hook key shown as <key>: it is a secret), without the query. */
  path: string;
  status: number;
  /** From the request's first byte to the answer's last, through the proxy. */
  ms: number;
  operationId?: string;
  /** The AppError id of an error answer, as the server gave it. */
  error?: string;
  findings: Finding[];
  notes: string[];
  unknown?: 'path' | 'method';
}

/** A path fit to print and keep: the key of /hooks/{hook_id} is the only credential of a webhook. */
export function displayPath(url: string): string {
  const path = url.split('?')[0];
  return path.startsWith('/hooks/') ? '/hooks/<key>' : path;
}

/**
 * An exchange as the terminal shows it: `METHOD /path → status OperationId (error id) N ms: ok | N findings`, then
 * one line per finding (✗ direction path: message) and per note (· note).
 */
export function formatEntry(e: ReportEntry): string {
  const what = [e.operationId, e.error && `(${e.error})`].filter(Boolean).join(' ');
  const verdict = e.findings.length === 0 ? 'ok' : `${e.findings.length} finding${e.findings.length === 1 ? '' : 's'}`;
  const lines = [`${e.method} ${e.path} → ${e.status}${what ? ` ${what}` : ''} ${e.ms} ms: ${verdict}`];
  for (const f of e.findings) lines.push(`  ✗ ${f.direction} ${f.path || '(request)'}: ${f.message}`);
  for (const n of e.notes) lines.push(`  · ${n}`);
  return lines.join('\n');
}

export interface Summary {
  exchanges: number;
  withFindings: number;
  requestFindings: number;
  responseFindings: number;
  unknownPaths: number;
  /** Distinct findings, most frequent first: operation (or path), direction, path, message, count. */
  distinct: Array<{ where: string; finding: Finding; count: number }>;
}

export class Tally {
  private readonly summary: Summary = { exchanges: 0, withFindings: 0, requestFindings: 0, responseFindings: 0, unknownPaths: 0, distinct: [] };
  private readonly byKey = new Map<string, Summary['distinct'][number]>();

  add(e: ReportEntry): void {
    const s = this.summary;
    s.exchanges++;
    if (e.findings.length > 0) s.withFindings++;
    if (e.unknown) s.unknownPaths++;
    for (const f of e.findings) {
      if (f.direction === 'request') s.requestFindings++;
      else s.responseFindings++;
      const where = e.operationId ?? `${e.method} ${e.path}`;
      const key = JSON.stringify([where, f.direction, f.path, f.message]);
      const seen = this.byKey.get(key);
      if (seen) seen.count++;
      else {
        const item = { where, finding: f, count: 1 };
        this.byKey.set(key, item);
        s.distinct.push(item);
      }
    }
  }

  get(): Summary {
    return { ...this.summary, distinct: [...this.summary.distinct].sort((a, b) => b.count - a.count) };
  }
}

export function formatSummary(s: Summary): string {
  const findings = s.requestFindings + s.responseFindings;
  const head =
    `contract-proxy: ${s.exchanges} exchange${s.exchanges === 1 ? '' : 's'}, ${s.exchanges - s.withFindings} ok, ${s.withFindings} with findings` +
    (findings > 0 ? ` (${s.requestFindings} in requests, ${s.responseFindings} in responses)` : '') +
    (s.unknownPaths > 0 ? `, ${s.unknownPaths} not in the spec` : '');
  const lines = [head];
  for (const d of s.distinct.slice(0, 50)) lines.push(`  ${d.count}× ${d.where} ${d.finding.direction} ${d.finding.path || '(request)'}: ${d.finding.message}`);
  if (s.distinct.length > 50) lines.push(`  ... and ${s.distinct.length - 50} more distinct findings (see --report)`);
  return lines.join('\n');
}
