import type { AddressInfo } from 'node:net';

/** Splits a Mattermost-style ListenAddress (":8065", "127.0.0.1:0", "[::1]:8065") into host and port. */
export function parseListen(address: string): { host: string | undefined; port: number } {
  const i = address.lastIndexOf(':');
  const host = i > 0 ? address.slice(0, i).replace(/^\[|\]$/g, '') : undefined;
  const port = Number(address.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535 || address.slice(i + 1).trim() === '') {
    throw new Error(`invalid ListenAddress "${address}"`);
  }
  return { host, port };
}

/** The base URL a client can use for a bound server; a wildcard address is shown as localhost. */
export function baseUrl(address: AddressInfo): string {
  const host =
    address.family === 'IPv6'
      ? address.address === '::'
        ? 'localhost'
        : `[${address.address}]`
      : address.address === '0.0.0.0'
        ? 'localhost'
        : address.address;
  return `http://${host}:${address.port}`;
}
