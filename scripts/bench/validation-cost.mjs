// What request validation costs per request, measured in-process on the server's own validators (compiled from the
// spec: openapi-backend's, as src/http/validation.ts binds them, and src/webhook/validate.ts), for the three paths of
// `npm run bench`'s validation section: the webhook payload, CreatePost's body, GetPostsForChannel's parameters.
// Each check runs on the request the load sends, many times; the answer is CPU µs per request, which the bench sets
// against the server's whole CPU per request of the same path.
//   node scripts/bench/validation-cost.mjs [--root=DIR]   (a built checkout; default this one) → one JSON line
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

const rootArg = process.argv.slice(2).find((a) => a.startsWith('--root='));
const root = rootArg ? rootArg.slice('--root='.length) : ROOT;
const require = createRequire(import.meta.url);
const { loadSpec } = require(join(root, 'dist/src/spec.js'));
const { specRoutes } = require(join(root, 'dist/src/http/spec-routes.js'));
const { Validators, openContract } = require(join(root, 'dist/src/http/validation.js'));
const { createPayloadValidator } = require(join(root, 'dist/src/webhook/validate.js'));

const spec = loadSpec();
const validators = new Validators(await openContract(spec), specRoutes(spec));
const payload = createPayloadValidator(spec);
const ID = 'abcdefghijkmnopqrstuwxyz12';

/** CPU µs per call of fn, over enough calls to take about half a second (after a warm-up). */
function cost(fn) {
  for (let i = 0; i < 20000; i++) fn();
  let n = 0;
  const start = process.cpuUsage();
  const until = process.hrtime.bigint() + 500_000_000n;
  while (process.hrtime.bigint() < until) {
    for (let i = 0; i < 1000; i++) fn();
    n += 1000;
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const hookBody = '{"text":"Build 1234 of the service finished in 3 minutes 12 seconds: all tests passed.","username":"ci-bot","icon_emoji":":robot:"}';
const postBody = JSON.stringify({ channel_id: ID, message: 'A message posted through the API, as a client would.' });
const create = validators.for('CreatePost');
const page = validators.for('GetPostsForChannel');
// The bodies are parsed once: parsing is the endpoint's work with or without validation. Body checks do not change
// what they check; the parameter check converts the query's strings in place, so each call gets fresh objects.
const hook = JSON.parse(hookBody);
// The headers a client sends with each request (openapi-backend reads the declared ones and the cookies from them).
const HEADERS = { host: '127.0.0.1:8065', 'content-type': 'application/json', authorization: 'Bearer abcdefghijkmnopqrstuwxyz12', 'x-requested-with': 'XMLHttpRequest', 'user-agent': 'bench', accept: '*/*' };
const post = JSON.parse(postBody);
const out = {
  webhook: cost(() => payload(hook)),
  CreatePost: cost(() => create.request({ params: {}, query: {}, headers: HEADERS, body: post })),
  GetPostsForChannel: cost(() => page.request({ params: { channel_id: ID }, query: { page: '0', per_page: '60' }, headers: HEADERS, body: undefined })),
};
console.log(JSON.stringify(out));
