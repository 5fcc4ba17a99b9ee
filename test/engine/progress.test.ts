import { describe, expect, it } from 'vitest';
import { LiveRun, Progress, isCi } from '../../src/engine/index.ts';
import { HISTORY_VERSION, type ExchangeRecord } from '../../src/history/index.ts';

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
    p.addViolation({ invariant: 'idem-single-object' });
    t = 5_000;
    expect(p.line()).toMatch(/^paystorm 5s\/1m00s {2}4 req .*errors 2 {2}429s 1 {2}dropped 2 {2}violations 1 \(first: idem-single-object\)$/);
  });

  it('as a LiveRun watcher, counts what the run reports and names the first violation found', () => {
    const { stream } = sink(false);
    const p = new Progress({ clock: { now: () => 1000 }, stream });
    const live = new LiveRun(() => {});
    live.watch(p.watcher());
    live.record(rec(429));
    live.dropped(3, 's');
    live.scenario('mixed', 0, 2);
    const evidence = { message: 'x' };
    live.violation({ invariant: 'refund-sum-bounded', rules: ['REF-1'], evidence, t: 10 });
    live.violation({ invariant: 'idem-single-object', rules: ['IDEM-6'], evidence, t: 20 });
    expect(p.line()).toMatch(/mixed 1\/2 {2}1 req .*429s 1 {2}dropped 3 {2}violations 2 \(first: refund-sum-bounded\)$/);
    expect(live.violations.map((v) => v.invariant)).toEqual(['refund-sum-bounded', 'idem-single-object']);
  });

  it('says while the live judge yields to a saturated load (its violations count may lag), and stops saying it when it judges again', () => {
    const { stream } = sink(false);
    const p = new Progress({ clock: { now: () => 1000 }, stream });
    const live = new LiveRun(() => {});
    live.watch(p.watcher());
    expect(p.line()).not.toMatch(/yielding/);
    live.judging(true);
    expect(p.line()).toMatch(/violations 0 \(judge yielding to the saturated load\)$/);
    live.judging(false);
    expect(p.line()).toMatch(/violations 0$/);
  });

  it('drops a watcher that throws and keeps telling the others', () => {
    const notes: string[] = [];
    const live = new LiveRun((m) => notes.push(m));
    let seen = 0;
    live.watch({ record: () => { throw new Error('boom'); } });
    live.watch({ record: () => void seen++ });
    live.record(rec(200));
    live.record(rec(200));
    expect(seen).toBe(2);
    expect(notes).toEqual([expect.stringContaining('dropped: boom')]);
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

describe('progress: phase, live p99, first tick, overrun', () => {
  const ex = (tStart: number, tEnd: number, status = 200): ExchangeRecord => ({ ...rec(status), tStart, tEnd });

  it('shows the running scenario and the phase with its time left, and drops the phase when it runs out', () => {
    let t = 1_000;
    const { stream } = sink(false);
    const p = new Progress({ clock: { now: () => t }, stream });
    p.setScenario('rate-limit', 2, 6);
    p.phase('waiting for the rate window to reset', 2_500);
    t = 2_000;
    expect(p.line()).toMatch(/^paystorm 2s {2}rate-limit 3\/6 {2}.* {2}\| waiting for the rate window to reset \(1\.5s left\)$/);
    t = 3_600;
    expect(p.line()).not.toContain('|');
    p.phase('waiting for webhook deliveries');
    expect(p.line()).toMatch(/\| waiting for webhook deliveries$/);
    p.setScenario('webhooks', 3, 6);
    expect(p.line()).not.toContain('|');
  });

  it('shows the p99 of the requests answered in the last seconds', () => {
    let t = 0;
    const p = new Progress({ clock: { now: () => t }, stream: sink(false).stream });
    expect(p.line()).toContain('p99 -');
    for (let i = 0; i < 99; i++) p.onRecord(ex(0, 10));
    p.onRecord(ex(0, 500));
    t = 1_000;
    expect(p.liveP99()).toBe(10);
    p.onRecord(ex(600, 1_000));
    expect(p.liveP99()).toBe(400);
    expect(p.line()).toContain('p99 400ms');
    t = 10_000;
    expect(p.liveP99()).toBeNull();
  });

  it('reads the real rate on the first tick after start, not 0/s', () => {
    let t = 0;
    const p = new Progress({ clock: { now: () => t }, stream: sink(false).stream, plainIntervalMs: 60_000 });
    p.start();
    for (let i = 0; i < 50; i++) p.onRecord(rec(200));
    t = 250;
    expect(Math.round(p.currentRate())).toBe(200);
    p.stop();
  });

  it('says the run is over its planned duration, and by how much, instead of 30s/20s', () => {
    let t = 30_000;
    const p = new Progress({ clock: { now: () => t }, stream: sink(false).stream, totalMs: 20_000 });
    p.setScenario('webhooks', 5, 6);
    p.phase('waiting for webhook retries');
    expect(p.line()).toMatch(/^paystorm 30s \(planned 20s, over by 10s\) {2}webhooks 6\/6 .*\| waiting for webhook retries$/);
    t = 10_000;
    expect(p.line()).toMatch(/^paystorm 10s\/20s /);
  });
});

describe('progress on a narrow TTY', () => {
  it('cuts the redrawn line to the terminal width so \\r can redraw it in place', async () => {
    const out: string[] = [];
    const stream = { isTTY: true, columns: 60, write: (s: string) => out.push(s) };
    const p = new Progress({ clock: { now: () => 1_000 }, stream, ttyIntervalMs: 10, plain: false });
    p.setScenario('rate-limit', 7, 9);
    p.phase('waiting for the end of rate window 2, then probing its edge', 5_000);
    p.start();
    await new Promise((r) => setTimeout(r, 40));
    p.stop();
    const redraws = out.filter((s) => s.startsWith('\r\x1b[2Kpaystorm') && !s.endsWith('\n'));
    expect(redraws.length).toBeGreaterThan(0);
    for (const r of redraws) expect([...r.slice(5)].length).toBeLessThan(60);
    expect(redraws[0]).toMatch(/…$/);
  });
});
