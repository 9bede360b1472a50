// Calls from the server to integrations (outgoing webhooks, slash commands, interactive actions). Their URLs are
// chosen by users, so every call is checked where it connects: after DNS, on the very address the socket goes to,
// so a name that resolves to an internal address (or re-resolves to one: DNS rebinding) cannot reach the server's
// own network. The rule and its list are Mattermost's (AllowedUntrustedInternalConnections).
import * as dns from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';

// The call's shapes are the app's (the port it is injected through); this file is the adapter.
import type { OutboundOptions, OutboundRequest, OutboundResult } from '../app/outbound';
export type { OutboundOptions, OutboundRequest, OutboundResult };

export const MAX_INTEGRATION_RESPONSE_BYTES = 1024 * 1024;
const USER_AGENT = 'Parley-Bot/1.0';
const REFUSED = 'EPARLEY_REFUSED';

/** Ranges no integration call may reach unless listed (RFC 6890 special purpose, as Mattermost's list). */
const INTERNAL = new BlockList();
for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16]] as const) {
  INTERNAL.addSubnet(net, prefix, 'ipv4');
}
INTERNAL.addAddress('::', 'ipv6');
INTERNAL.addAddress('::1', 'ipv6');
INTERNAL.addSubnet('fc00::', 7, 'ipv6');
INTERNAL.addSubnet('fe80::', 10, 'ipv6');

/** The server's own addresses, read again at most once a minute (interfaces rarely change). */
let ownAddresses: { at: number; set: Set<string> } | undefined;
function isOwnAddress(address: string): boolean {
  const now = Date.now();
  if (!ownAddresses || now - ownAddresses.at > 60_000) {
    const set = new Set<string>();
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) set.add(a.address.toLowerCase());
    ownAddresses = { at: now, set };
  }
  return ownAddresses.set.has(address.toLowerCase());
}

/** `::ffff:10.0.0.1` is 10.0.0.1: checked as IPv4, so the mapped form cannot slip past the IPv4 ranges. */
function normalise(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** The allow list, parsed: hostnames compared exactly (lower case), IPs and CIDRs as a BlockList of allowed ranges. */
interface AllowList {
  hosts: Set<string>;
  ranges: BlockList;
}

const parsedLists = new Map<string, AllowList>();
function parseAllowList(text: string): AllowList {
  const cached = parsedLists.get(text);
  if (cached) return cached;
  const list: AllowList = { hosts: new Set(), ranges: new BlockList() };
  for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
    const [net, prefix] = entry.split('/');
    const family = isIP(net);
    if (family !== 0 && prefix === undefined) list.ranges.addAddress(net, family === 6 ? 'ipv6' : 'ipv4');
    else if (family !== 0 && /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32)) {
      list.ranges.addSubnet(net, Number(prefix), family === 6 ? 'ipv6' : 'ipv4');
    } else list.hosts.add(entry.toLowerCase());
  }
  if (parsedLists.size > 16) parsedLists.clear();
  parsedLists.set(text, list);
  return list;
}

/** Whether a call may connect to `address` (one the host resolved to, or an IP literal). */
export function addressAllowed(address: string, allowList: string): boolean {
  const { address: a, family } = normalise(address);
  const internal = INTERNAL.check(a, family) || isOwnAddress(a) || isOwnAddress(address);
  return !internal || parseAllowList(allowList).ranges.check(a, family);
}

/** A DNS lookup that answers only with allowed addresses, so the socket connects to an address that was checked. */
function checkedLookup(allowList: string): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family ?? 0, hints: options.hints }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const allowed = addresses.filter((a) => addressAllowed(a.address, allowList));
      if (allowed.length === 0) {
        const refused = Object.assign(new Error(`address forbidden: ${hostname} resolves only to internal addresses; list it in AllowedUntrustedInternalConnections to allow it`), { code: REFUSED });
        return callback(refused, '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
}

/**
 * How long a pooled connection may sit idle (Go's DefaultTransport, which Mattermost's calls go through: 90 s). The
 * agent also needs it to heed the integration's `Keep-Alive: timeout=N` (Node applies that hint only to an agent with a
 * timeout): without it a connection the integration is about to close (Node servers: after 5 s) stays pooled, and a
 * call sent on it as the close arrives fails (ECONNRESET, socket hang up: "Command ... failed" on a loaded server).
 */
const IDLE_MS = 90_000;

/** Keep-alive agents, renewed when the allow list changes so no pooled socket outlives the rule it was checked by. */
let agents: { allowList: string; http: http.Agent; https: https.Agent } | undefined;
function agentsFor(allowList: string) {
  if (agents?.allowList !== allowList) {
    agents?.http.destroy();
    agents?.https.destroy();
    // `timeout` closes idle pooled sockets (at the server's hint less 1 s when shorter); a call in progress is bounded by
    // its own deadline below, never by it.
    agents = {
      allowList,
      http: new http.Agent({ keepAlive: true, maxSockets: 64, timeout: IDLE_MS }),
      https: new https.Agent({ keepAlive: true, maxSockets: 64, timeout: IDLE_MS }),
    };
  }
  return agents;
}

/**
 * Sends one call to an integration and reads at most `maxBytes` of its answer. Never throws: every outcome is a value
 * (an answer of any status, or why there was none). Redirects are followed only to addresses the rule allows.
 */
export async function sendOutbound(req: OutboundRequest, options: OutboundOptions): Promise<OutboundResult> {
  const deadline = Date.now() + req.timeoutMs;
  const maxRedirects = options.maxRedirects ?? 3;
  let url = req.url;
  let method = req.method;
  let body = req.body;
  for (let hop = 0; ; hop++) {
    const result = await once({ ...req, url, method, body }, options, deadline);
    // A 3xx without Location is an answer like any other.
    if (!result.ok || !('location' in result)) return result;
    if (hop >= maxRedirects) return { ok: false, kind: 'connect', message: `more than ${maxRedirects} redirects` };
    try {
      url = new URL(result.location, url).toString();
    } catch {
      return { ok: false, kind: 'invalid_url', message: 'redirect to an invalid URL' };
    }
    // 307/308 repeat the request as it was; the others become a GET without a body, as browsers do.
    if (result.status !== 307 && result.status !== 308) {
      method = 'GET';
      body = undefined;
    }
  }
}

type Hop = OutboundResult | { ok: true; status: number; location: string };

function once(req: OutboundRequest, options: OutboundOptions, deadline: number): Promise<Hop> {
  let target: URL;
  try {
    target = new URL(req.url);
  } catch {
    return Promise.resolve({ ok: false, kind: 'invalid_url', message: 'not a valid URL' });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return Promise.resolve({ ok: false, kind: 'invalid_url', message: 'only http and https URLs can be called' });
  }
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const allow = parseAllowList(options.allowList);
  // A listed hostname skips the address check (Mattermost's rule); an IP literal never goes through DNS, so it is
  // checked here.
  const trustedName = allow.hosts.has(host);
  if (!trustedName && isIP(host) && !addressAllowed(host, options.allowList)) {
    return Promise.resolve({ ok: false, kind: 'refused', message: `address forbidden: ${host} is internal; list it in AllowedUntrustedInternalConnections to allow it` });
  }
  const remaining = deadline - Date.now();
  if (remaining <= 0) return Promise.resolve({ ok: false, kind: 'timeout', message: `no complete answer within ${req.timeoutMs} ms` });
  const maxBytes = options.maxBytes ?? MAX_INTEGRATION_RESPONSE_BYTES;
  const secure = target.protocol === 'https:';
  const pool = agentsFor(options.allowList);

  return new Promise<Hop>((resolve) => {
    let settled = false;
    const finish = (hop: Hop) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(hop);
    };
    const headers: Record<string, string> = { 'User-Agent': USER_AGENT, ...req.headers };
    if (req.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(req.body));
    const request = (secure ? https : http).request(target, {
      method: req.method,
      headers,
      agent: secure ? pool.https : pool.http,
      lookup: trustedName ? undefined : checkedLookup(options.allowList),
    });
    const timer = setTimeout(() => {
      finish({ ok: false, kind: 'timeout', message: `no complete answer within ${req.timeoutMs} ms` });
      request.destroy();
    }, remaining);
    request.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === REFUSED) finish({ ok: false, kind: 'refused', message: err.message });
      else finish({ ok: false, kind: 'connect', message: err.code ? `${err.code}: ${err.message}` : err.message });
    });
    request.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && location) {
        res.resume();
        finish({ ok: true, status, location });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      res.on('data', (chunk: Buffer) => {
        if (truncated) return;
        const room = maxBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size = maxBytes;
          truncated = true;
          // The rest is never read: the connection is dropped rather than drained.
          res.destroy();
          finish({ ok: true, status, headers: flatHeaders(res.headers), body: Buffer.concat(chunks), truncated });
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => finish({ ok: true, status, headers: flatHeaders(res.headers), body: Buffer.concat(chunks), truncated }));
      res.on('error', (err) => finish({ ok: false, kind: 'connect', message: `answer cut: ${err.message}` }));
    });
    request.end(req.body);
  });
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
