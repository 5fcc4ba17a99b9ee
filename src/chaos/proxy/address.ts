// Listen and upstream addresses as Go's net package reads and prints them.

import net from 'node:net';
import dns from 'node:dns/promises';

/** Go's net.SplitHostPort. */
export function splitHostPort(addr: string): { host: string; port: string } {
  const i = addr.lastIndexOf(':');
  if (i < 0) throw new Error(`address ${addr}: missing port in address`);
  let host = addr.slice(0, i);
  const port = addr.slice(i + 1);
  if (host.startsWith('[')) {
    if (!host.endsWith(']')) throw new Error(`address ${addr}: missing ']' in address`);
    host = host.slice(1, -1);
  } else if (host.includes(':')) {
    throw new Error(`address ${addr}: too many colons in address`);
  }
  return { host, port };
}

export function parsePort(addr: string, port: string): number {
  if (port === '') return 0;
  if (!/^\d+$/.test(port) || Number(port) > 65535) throw new Error(`address ${addr}: invalid port`);
  return Number(port);
}

/** Go's net.JoinHostPort. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export const WILDCARDS = new Set(['', '0.0.0.0', '::']);

/** Go's wording for common bind failures. */
export const BIND_ERRORS: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'cannot assign requested address',
};

/** Resolve a host the way Go's net.Listen does (first address, IPv4 preferred). */
export async function resolveListenHost(host: string): Promise<string> {
  if (WILDCARDS.has(host) || net.isIP(host)) return host;
  if (host === 'localhost') return '127.0.0.1';
  try {
    return (await dns.lookup(host, { family: 4 })).address;
  } catch {
    return (await dns.lookup(host)).address;
  }
}

/** Go's net.ResolveTCPAddr(listen).String(), used to decide whether populate replaces a proxy. */
export async function resolvedListenString(listen: string): Promise<string> {
  const { host, port } = splitHostPort(listen);
  const p = parsePort(listen, port);
  if (host === '') return `:${p}`;
  return joinHostPort(await resolveListenHost(host), p);
}
