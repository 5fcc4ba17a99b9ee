/**
 * Idempotency store (spec "Idempotency rules"): per API key and operation, an
 * in-flight lock, byte-for-byte replay of 2xx responses, 409 on a different
 * request, 24 h lifetime. Keys of the map are built by the caller, so scope
 * bugs live there; lock and caching bugs live here.
 */
import { LIMITS } from '../spec/index.ts';
import type { BugFlags } from './bugs.ts';

interface Entry {
  state: 'in_flight' | 'done';
  fingerprint: string;
  status: number;
  body: string;
  contentType: string;
  expiresAt: number;
}

export type IdempotencyVerdict =
  | { kind: 'proceed' }
  | { kind: 'replay'; status: number; body: string; contentType: string }
  | { kind: 'different_body' }
  | { kind: 'in_flight' };

export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly bugs: BugFlags) {}

  begin(storeKey: string, fingerprint: string, now = Date.now()): IdempotencyVerdict {
    const e = this.entries.get(storeKey);
    if (e && e.state === 'done' && now >= e.expiresAt) this.entries.delete(storeKey);
    else if (e) {
      if (e.state === 'in_flight') return { kind: 'in_flight' };
      if (e.fingerprint !== fingerprint && !this.bugs['idem-body-ignored']) return { kind: 'different_body' };
      return { kind: 'replay', status: e.status, body: e.body, contentType: e.contentType };
    }
    if (!this.bugs['idem-no-inflight-lock']) {
      this.entries.set(storeKey, { state: 'in_flight', fingerprint, status: 0, body: '', contentType: '', expiresAt: Infinity });
    }
    return { kind: 'proceed' };
  }

  /** Keeps a 2xx response for replay; any other response releases the key (IDEM-7). */
  finish(storeKey: string, fingerprint: string, status: number, body: string, contentType: string, now = Date.now()): void {
    if ((status >= 200 && status < 300) || this.bugs['idem-caches-errors']) {
      this.entries.set(storeKey, { state: 'done', fingerprint, status, body, contentType, expiresAt: now + LIMITS.idempotencyKeyLifetimeMs });
    } else {
      this.release(storeKey);
    }
  }

  release(storeKey: string): void {
    const e = this.entries.get(storeKey);
    if (e?.state === 'in_flight') this.entries.delete(storeKey);
  }

  /** Drops expired entries; entries are inserted in time order, so stop at the first live one. */
  sweep(now = Date.now()): void {
    for (const [k, e] of this.entries) {
      if (e.state === 'done' && now >= e.expiresAt) this.entries.delete(k);
      else if (e.state === 'done') break;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

/** JSON with sorted keys: two requests that differ only in key order are the same request. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
