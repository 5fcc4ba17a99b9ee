/** The protocol between the history writer (main thread) and its worker thread. */
import type { ExchangeCapture } from './exchange-record.ts';

/**
 * Items go to the worker flat, as primitives in one array per batch (structured
 * clone of primitives is several times cheaper than of objects): a tag, then
 * its slots. TAG_LINE: a finished line. TAG_KEY: secret, label. TAG_CARD:
 * number. TAG_CAPTURE: CAPTURE_SLOTS slots (see pushCapture / readCapture).
 */
export type Slot = string | number | null;
export const TAG_CAPTURE = 0;
export const TAG_LINE = 1;
export const TAG_KEY = 2;
export const TAG_CARD = 3;

export type ToWorker = { items: Slot[] } | { sync: Int32Array } | { close: true };

export function pushCapture(out: Slot[], seq: number, c: Omit<ExchangeCapture, 'seq'>): void {
  const m = c.meta;
  const p = c.picked;
  out.push(
    TAG_CAPTURE,
    seq,
    m.scenario,
    m.group ?? null,
    m.op,
    m.key,
    m.idemKey ?? null,
    m.bodyDigest ?? null,
    JSON.stringify(m.sent),
    m.attempt ?? null,
    m.tIntended,
    m.tStart,
    m.wall,
    c.tEnd,
    c.status,
    p === null ? 0 : 1,
    p?.contentType ?? null,
    p?.rateLimit ?? null,
    p?.rateRemaining ?? null,
    p?.rateReset ?? null,
    p?.retryAfter ?? null,
    p?.location ?? null,
    c.body,
    c.failure,
    p?.date ?? null,
  );
}

/** Reads the capture whose tag is at `i`; returns it and the index after it. */
export function readCapture(a: Slot[], i: number): ExchangeCapture {
  const meta: ExchangeCapture['meta'] = {
    scenario: a[i + 2] as string,
    op: a[i + 4] as ExchangeCapture['meta']['op'],
    key: a[i + 5] as string,
    sent: JSON.parse(a[i + 8] as string),
    tIntended: a[i + 10] as number,
    tStart: a[i + 11] as number,
    wall: a[i + 12] as number,
  };
  if (a[i + 3] !== null) meta.group = a[i + 3] as string;
  if (a[i + 6] !== null) meta.idemKey = a[i + 6] as string;
  if (a[i + 7] !== null) meta.bodyDigest = a[i + 7] as string;
  if (a[i + 9] !== null) meta.attempt = a[i + 9] as number;
  const picked =
    a[i + 15] === 0
      ? null
      : {
          contentType: a[i + 16] as string | null,
          rateLimit: a[i + 17] as string | null,
          rateRemaining: a[i + 18] as string | null,
          rateReset: a[i + 19] as string | null,
          retryAfter: a[i + 20] as string | null,
          location: a[i + 21] as string | null,
          date: a[i + 24] as string | null,
        };
  return { seq: a[i + 1] as number, meta, tEnd: a[i + 13] as number, status: a[i + 14] as number, picked, body: a[i + 22] as string, failure: a[i + 23] as ExchangeCapture['failure'] };
}

/** Slots of a capture, its tag included. */
export const CAPTURE_SLOTS = 25;

export type FromWorker = { ready: true } | { ack: number } | { buildError: string } | { closed: true; error: string | null };

/**
 * What an item counts against the high-water mark until the worker says its
 * line reached the OS (both sides compute it the same way).
 */
export function lineCost(line: string): number {
  return line.length + 1;
}

/** A built exchange line is about the body's size plus ~500 characters of fields. */
export function captureCost(body: string): number {
  return body.length + 512;
}
