/**
 * Per-fault evidence (issue 11 §3): every fault window gets a `fault-reach:<proxy>/<toxic>`
 * finding computed from the history alone: info when the creates and payments of the window
 * show an effect beyond the fault-free traffic, a warning when they do not (the fault may have
 * reached nothing), when no create ran in it, or when a `timeout` window was shorter than the
 * service's declared upstream time-out. Skipped fault steps (run record `faultsSkipped`) are
 * warnings that carry the reason.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/spec/index.ts';
import type { HistoryRecord, RunRecord } from '../../src/history/index.ts';
import { judge } from '../../src/oracle/judge.ts';
import { create, fault, resetSeq, retrieve, runRec } from './fixtures.ts';

async function findingsOf(records: HistoryRecord[], run: Partial<RunRecord> = {}): Promise<Finding[]> {
  const j = await judge([runRec(run), ...records], { only: ['fault-responses-well-formed'] });
  return j.findings;
}

/** A create at t that settles `settleMs` after it was answered (seen by a retrieve). */
function payment(n: number, t: number, o: { dur?: number; settleMs?: number; status?: number } = {}): HistoryRecord[] {
  const id = `pay_00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const c = create({ id, t, dur: o.dur ?? 20, ...(o.status !== undefined ? { status: o.status } : {}) });
  if (o.status !== undefined && o.status !== 201) return [c];
  return [c, retrieve(id, { t: c.tEnd + (o.settleMs ?? 100), p: { status: 'succeeded' } })];
}

/** Fault-free traffic: 40 quick creates settling in 100 ms, between 0 and 8 s. */
function baseline(): HistoryRecord[] {
  return Array.from({ length: 40 }, (_, i) => payment(i + 1, i * 200)).flat();
}

const WINDOW = { tStart: 10_000, tEnd: 13_000 };
const timeoutFault = fault({ ...WINDOW, toxic: { name: 'paystorm_1_timeout', type: 'timeout', stream: 'downstream', toxicity: 1, attributes: { timeout: 0 } } });

describe('fault-reach findings', () => {
  beforeEach(() => resetSeq());

  it('says a fault reached the service when the payments of its window settle late', async () => {
    const inWindow = Array.from({ length: 10 }, (_, i) => payment(100 + i, 10_100 + i * 250, { settleMs: 4_000 })).flat();
    const fs = await findingsOf([...baseline(), ...inWindow, timeoutFault]);
    const f = fs.find((x) => x.id === 'fault-reach:upstream/paystorm_1_timeout')!;
    expect(f.level).toBe('info');
    expect(f.text).toMatch(/reached the service: 10 of 10 payments created in it settled late/);
    expect(f.evidence?.times).toEqual([10_000, 13_000]);
  });

  it('counts failed and slow creates on the client link', async () => {
    const inWindow = Array.from({ length: 6 }, (_, i) => payment(200 + i, 10_100 + i * 300, { status: 0, dur: 1_000 })).flat();
    const clientFault = fault({ ...WINDOW, proxy: 'client', link: 'client', toxic: { name: 'paystorm_9_latency', type: 'latency', stream: 'downstream', toxicity: 1, attributes: { latency: 3000 } } });
    const f = (await findingsOf([...baseline(), ...inWindow, clientFault])).find((x) => x.id === 'fault-reach:client/paystorm_9_latency')!;
    expect(f.level).toBe('info');
    expect(f.text).toMatch(/6 of 6 creates failed/);
    expect(f.rules).toEqual(['FT-3']);
  });

  it('warns when the window shows no more effect than the fault-free traffic', async () => {
    const inWindow = Array.from({ length: 10 }, (_, i) => payment(300 + i, 10_100 + i * 250)).flat();
    const fs = await findingsOf([...baseline(), ...inWindow, timeoutFault], { target: { url: 'http://svc', embedded: false, presentation: 'B' } });
    const f = fs.find((x) => x.id === 'fault-reach:upstream/paystorm_1_timeout')!;
    expect(f.level).toBe('warning');
    expect(f.text).toMatch(/may not have reached the service/);
    // A real target that did not declare its processor time-out is told how to size the window.
    expect(f.text).toMatch(/--upstream-timeout/);
  });

  it('warns when no create started inside the window', async () => {
    const f = (await findingsOf([...baseline(), timeoutFault])).find((x) => x.id === 'fault-reach:upstream/paystorm_1_timeout')!;
    expect(f.level).toBe('warning');
    expect(f.text).toMatch(/no create started in its window/);
  });

  it('warns when a timeout window is shorter than the declared upstream time-out, whatever the traffic did', async () => {
    const inWindow = Array.from({ length: 10 }, (_, i) => payment(400 + i, 10_100 + i * 250, { settleMs: 4_000 })).flat();
    const short = await findingsOf([...baseline(), ...inWindow, timeoutFault], { upstreamTimeoutMs: 10_000 });
    const f = short.find((x) => x.id === 'fault-reach:upstream/paystorm_1_timeout')!;
    expect(f.level).toBe('warning');
    expect(f.text).toMatch(/less than the service's declared upstream time-out \(10 s\)/);
    resetSeq();
    const long = await findingsOf([...baseline(), ...inWindow, timeoutFault], { upstreamTimeoutMs: 2_000 });
    expect(long.find((x) => x.id === 'fault-reach:upstream/paystorm_1_timeout')!.level).toBe('info');
  });

  it('reports skipped fault steps with their reason, and nothing about faults when none ran', async () => {
    const fs = await findingsOf(baseline(), {
      faultsSkipped: [
        { scenario: 'chaos', proxy: 'client', type: 'latency', reason: 'no "client" proxy: add --proxy "client=127.0.0.1:4110>svc:4010"' },
      ],
    });
    expect(fs.map((f) => [f.id, f.level])).toEqual([['fault-skipped:chaos/client', 'warning']]);
    expect(fs[0].text).toMatch(/add --proxy "client=127\.0\.0\.1:4110>svc:4010"/);
    expect(fs[0].rules).toEqual(['FT-3']);
  });
});
