// Continuous mixed load against a running server: webhook senders (each post with a unique text) and API readers.
// Every answer is recorded with its latency, so a test can say what clients saw while something went wrong.
import { checkAnswer } from './answers';

export interface Answer {
  kind: 'hook' | 'api';
  at: number;
  ms: number;
  status: number;
  /** The webhook text, for read-back. */
  text?: string;
  /** Network-level failure (no HTTP answer at all). */
  error?: string;
  /** Why the answer breaks the AppError rules, if it does. */
  problem?: string | null;
  id?: string;
  detailed?: string;
}

export interface Load {
  answers: Answer[];
  stop(): Promise<void>;
}

async function one(url: string, kind: 'hook' | 'api', init: RequestInit & { path: string }, text?: string): Promise<Answer> {
  const at = Date.now();
  try {
    const res = await fetch(url + init.path, { ...init, signal: AbortSignal.timeout(30000) });
    const body = Buffer.from(await res.arrayBuffer());
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    const answer: Answer = { kind, at, ms: Date.now() - at, status: res.status, text };
    answer.problem = checkAnswer({ status: res.status, headers, text: body.toString('utf8') }, { hook: kind === 'hook', allow503: true });
    if (res.status >= 400 && headers['content-type'] === 'application/json') {
      const json = JSON.parse(body.toString('utf8'));
      answer.id = json.id;
      answer.detailed = json.detailed_error;
    }
    return answer;
  } catch (err) {
    const e = err as { cause?: { code?: string }; name?: string; message?: string };
    return { kind, at, ms: Date.now() - at, status: 0, text, error: e.cause?.code ?? e.name ?? String(e.message) };
  }
}

export function startLoad(url: string, o: { hookKey: string; token: string; channelId: string; senders?: number; readers?: number; tag: string; pauseMs?: number }): Load {
  const answers: Answer[] = [];
  let stopped = false;
  let n = 0;
  const pause = () => new Promise((r) => setTimeout(r, o.pauseMs ?? 0));
  const sender = async () => {
    while (!stopped) {
      const text = `${o.tag}-${++n}`;
      answers.push(await one(url, 'hook', { path: `/hooks/${o.hookKey}`, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text }) }, text));
      await pause();
    }
  };
  const reader = async () => {
    while (!stopped) {
      answers.push(await one(url, 'api', { path: `/api/v4/channels/${o.channelId}/posts?per_page=5`, method: 'GET', headers: { Authorization: `Bearer ${o.token}` } }));
      await pause();
    }
  };
  const running = [...Array.from({ length: o.senders ?? 10 }, sender), ...Array.from({ length: o.readers ?? 4 }, reader)];
  return {
    answers,
    stop: async () => {
      stopped = true;
      await Promise.all(running);
    },
  };
}

export function summarise(answers: Answer[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) {
    const key = `${a.kind} ${a.error ?? a.status}${a.id && a.status !== 200 ? ` ${a.id}` : ''}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}
