// How the app calls integrations. The call itself is an adapter (src/infra/outbound-http.ts: the address rule, the
// time-out, the size cap); the composition root hands it to the app, which may not import infra.

export interface OutboundRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export type OutboundResult =
  | { ok: true; status: number; headers: Record<string, string>; body: Buffer; truncated: boolean }
  | { ok: false; kind: 'refused' | 'timeout' | 'connect' | 'invalid_url'; message: string };

export interface OutboundOptions {
  /** ServiceSettings.AllowedUntrustedInternalConnections. */
  allowList: string;
  maxBytes?: number;
  maxRedirects?: number;
}

/** Sends one call; never throws (every outcome is a value). */
export type SendOutbound = (req: OutboundRequest, options: OutboundOptions) => Promise<OutboundResult>;

/** Where no adapter was given (an app built without one): every call fails as unreachable. */
export const NO_OUTBOUND: SendOutbound = async () => ({ ok: false, kind: 'connect', message: 'outgoing calls are not configured on this server' });
