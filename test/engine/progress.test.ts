import { describe, expect, it } from 'vitest';
import { Progress, isCi } from '../../src/engine/index.ts';
import { HISTORY_VERSION, type ExchangeRecord } from '../../src/spec/index.ts';

function rec(status: number, failure: ExchangeRecord['failure'] = null): ExchangeRecord {
  return { v: HISTORY_VERSION, kind: 'exchange', seq: 1, scenario: 's', op: 'list', key: 'k', sent: {}, tIntended: 0, tStart: 0, tEnd: 1, wall: 0, status, contentType: null, rate: null, retryAfter: null, json: false, error: null, payment: null, refund: null, list: null, failure };
}

function sink(isTTY: boolean) {
  const out: string[] = [];
  return { out, stream: { isTTY, write: (s: string) => out.push(s) } };
}

describe('progress', () => {
  it('counts requests, errors, 429s, dropped and violations into one line', () => {
    let t = 0;
    const { stream } = sink(false);
    const p = new Progress({ clock: { now: () => t }, stream, totalMs: 60_000 });
    p.onRecord(rec(200));
    p.onRecord(rec(429));
    p.onRecord(rec(503));
    p.onRecord(rec(0, 'timeout'));
    p.addDropped(2);
    p.addViolations();
    t = 5_000;
    expect(p.line()).toMatch(/^paystorm 5s\/1m00s {2}4 req .*errors 2 {2}429s 1 {2}dropped 2 {2}violations 1$/);
  });

  it('prints plain lines without carriage returns when not on a TTY', async () => {
    const { out, stream } = sink(false);
    const p = new Progress({ clock: { now: () => 0 }, stream, plainIntervalMs: 20 });
    expect(p.plain).toBe(true);
    p.start();
    await new Promise((r) => setTimeout(r, 70));
    p.log('hello');
    p.stop();
    expect(out.length).toBeGreaterThanOrEqual(3);
    expect(out.join('')).not.toContain('\r');
    expect(out).toContain('hello\n');
  });

  it('redraws one line in place on a TTY, and keeps log lines apart from it', async () => {
    const { out, stream } = sink(true);
    const p = new Progress({ clock: { now: () => 0 }, stream, ttyIntervalMs: 10, plain: false });
    p.start();
    await new Promise((r) => setTimeout(r, 50));
    p.log('note');
    p.stop();
    const redraws = out.filter((s) => s.startsWith('\r\x1b[2Kpaystorm'));
    expect(redraws.length).toBeGreaterThanOrEqual(2);
    expect(out.some((s) => s === 'note\n')).toBe(true);
    expect(out.at(-1)!.endsWith('\n')).toBe(true);
  });

  it('treats CI=true as CI and CI=false as not', () => {
    expect(isCi({ CI: 'true' })).toBe(true);
    expect(isCi({ CI: '1' })).toBe(true);
    expect(isCi({ CI: 'false' })).toBe(false);
    expect(isCi({})).toBe(false);
  });
});
