// The hub's own JavaScript per delivered event, apart from the socket: 200 connections whose `send` does nothing, one
// `posted` event delivered to all of them 5,000 times, five rounds. `node scripts/bench/hub-deliver.mjs [ROOT]` (a
// checkout with dist/ built; this one by default), to compare two builds of src/http/realtime-hub.ts.
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

const root = process.argv[2] ?? ROOT;
const { Hub } = await import(join(root, 'dist/src/http/realtime-hub.js'));
const { broadcast } = await import(join(root, 'dist/src/app/events.js'));

const SOCKETS = 200;
const EVENTS = 5000;
const hub = new Hub({ replayEvents: () => 128, replayWindowMs: () => 60_000, maxBufferedBytes: 1e9, now: () => Date.now() });
const users = [];
for (let i = 0; i < SOCKETS; i++) {
  users.push(`user${i}`);
  const socket = { OPEN: 1, readyState: 1, bufferedAmount: 0, send() {}, terminate() {}, ping() {} };
  hub.open({ id: `session${i}`, userId: `user${i}`, roles: 'system_user', isAccessToken: false, csrfToken: '' }, socket);
}
const post = JSON.stringify({ id: 'p'.repeat(26), message: 'Build 4711 of parley passed on main: 849 tests, 0 failures.', props: { from_webhook: 'true' } });
const event = {
  event: 'posted',
  data: { post, channel_type: 'O', channel_name: 'town-square', channel_display_name: 'Town Square', sender_name: 'ci', team_id: 't'.repeat(26), set_online: false },
  broadcast: broadcast({ channel_id: 'c'.repeat(26) }),
  audience: { kind: 'users', userIds: users },
};
for (let round = 1; round <= 5; round++) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < EVENTS; i++) hub.deliver(event);
  const ns = Number(process.hrtime.bigint() - t0) / (EVENTS * SOCKETS);
  console.log(`round ${round}: ${ns.toFixed(0)} ns per delivery`);
}
