/**
 * A k6 run is judged complete only when it ran its plan: the scripts' teardown() writes an
 * end marker with the plan and its wall times (k6/lib/record.ts recordEnd, k6/lib/plan.ts),
 * and src/history/k6.ts writes `complete: true, reason: 'done'` only when, judged from the
 * marker and the `iterations` points k6 wrote (src/history/k6-plan.ts), the plan ran. A file
 * cut at a line boundary (killed plain .json), a run stopped early and output without a
 * marker are interrupted (exit 130), alone and merged.
 *
 * And exchange end times include the connection's time: k6's timings.duration leaves out
 * blocked, connecting and tls_handshaking; the shim reports a new connection's time in
 * timings.connecting (test/k6/shim/http.mjs), so a span ending at sentAt + duration ends
 * before the answer was in hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceService, DEFAULT_KEYS, type RunningService } from '../../src/target/index.ts';
import { convertK6, toNdjson } from '../../src/history/k6.ts';
import { decodeK6Record } from '../../src/history/k6-record-codec.ts';
import { mergeShards } from '../../src/history/merge.ts';
import { runStop } from '../../src/history/stop.ts';
import { judgeHistory } from '../../src/cli/judge-run.ts';
import type { EndRecord, HistoryRecord } from '../../src/history/index.ts';
import { planOf, segmentShare } from '../../k6/lib/plan.ts';
import { judgeK6Plan } from '../../src/history/k6-plan.ts';
import { ROOT, buildBundles, cli, removeBundles, runShim, type ShimOptions } from './helpers.ts';

const key = (merchant: string, prefix: string) => DEFAULT_KEYS.find((k) => k.merchant === merchant && k.key.startsWith(prefix) && k.direct_api)!.key;
const KEYS = `acme:${key('acme', 'svc_test_sk_')},globex:${key('globex', 'svc_test_sk_')}`;

let bundles = '';
let work = '';
let svc: RunningService;
beforeAll(async () => {
  bundles = buildBundles();
  work = mkdtempSync(join(tmpdir(), 'paystorm-k6-end-'));
  svc = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02 });
});
afterAll(async () => {
  await svc.close();
  removeBundles();
  rmSync(work, { recursive: true, force: true });
});


let n = 0;
async function shimJson(script: string, env: Record<string, string>, opts: ShimOptions): Promise<{ file: string; requests: Awaited<ReturnType<typeof runShim>>['requests'] }> {
  const file = join(work, `${script}-${++n}.k6.json`);
  const r = await runShim(join(bundles, `${script}.js`), { TARGET: svc.url, KEYS, ...env }, { sleepScale: 0.05, timeoutMs: 60_000, ...opts, jsonOut: file });
  expect(r.fatal, r.output).toBeNull();
  expect(r.iterationErrors, r.output).toEqual([]);
  return { file, requests: r.requests };
}

async function judge(records: HistoryRecord[]) {
  const dir = mkdtempSync(join(work, 'judge-'));
  writeFileSync(join(dir, 'history.ndjson'), toNdjson(records));
  return judgeHistory(join(dir, 'history.ndjson'), { onWarning: () => {} });
}

const endOf = (records: HistoryRecord[]) => records.at(-1) as EndRecord;

/** The first `share` of the file's lines, cut at a line boundary (as a killed plain --out json leaves it). */
function cut(file: string, share: number): string {
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const out = file.replace(/\.k6\.json$/, `-cut${Math.round(share * 100)}.k6.json`);
  writeFileSync(out, lines.slice(0, Math.floor(lines.length * share)).join('\n') + '\n');
  return out;
}

describe('planOf (k6/lib/plan.ts): what each scenario plans, as numbers', () => {
  it('a time-based scenario plans its startTime + duration, or the sum of its stages (Go duration format, as k6 consolidates it)', () => {
    expect(planOf({ mixed: { executor: 'constant-arrival-rate', duration: '5m' } })).toEqual({ mixed: { executor: 'constant-arrival-rate', plannedMs: 300_000, plannedIterations: null } });
    expect(planOf({ s: { executor: 'ramping-vus', startTime: '10s', stages: [{ duration: '1m0s' }, { duration: '30s' }] } }).s.plannedMs).toBe(100_000);
    expect(planOf({ s: { executor: 'constant-vus', startTime: '1s', duration: '2s' } }).s.plannedMs).toBe(3_000);
  });
  it('an iteration-based scenario plans vus × iterations (per-vu) or iterations (shared); an instance of a split test its share', () => {
    expect(planOf({ i: { executor: 'per-vu-iterations', vus: 2, iterations: 3 } }).i.plannedIterations).toBe(6);
    expect(planOf({ i: { executor: 'shared-iterations', vus: 4, iterations: 40 } }).i.plannedIterations).toBe(40);
    expect(segmentShare('1/4:2/4')).toBe(0.25);
    expect(segmentShare('25%:50%')).toBe(0.25);
    expect(segmentShare('0:0.5')).toBe(0.5);
    expect(segmentShare('nonsense')).toBe(1);
    // k6 stripes iterations over segments: a share may be one short of the exact fraction.
    expect(planOf({ i: { executor: 'shared-iterations', vus: 4, iterations: 40 } }, '1/4:2/4').i.plannedIterations).toBe(9);
    // A segment does not shorten a time-based scenario.
    expect(planOf({ m: { executor: 'constant-arrival-rate', duration: '30s' } }, '1/4:2/4').m.plannedMs).toBe(30_000);
  });
  it('an executor with no checkable plan plans nothing', () => {
    expect(planOf({ x: { executor: 'externally-controlled' } }).x).toEqual({ executor: 'externally-controlled', plannedMs: null, plannedIterations: null });
  });
});

describe('judgeK6Plan (src/history/k6-plan.ts): did the run run its plan, from the marker\'s wall times and the iterations k6 wrote', () => {
  const arrival = { script: 'mixed', v: 2, scenarios: { mixed: { executor: 'constant-arrival-rate', plannedMs: 30_000, plannedIterations: null } }, setupWall: 1_000_000, wall: 1_032_400 };
  it('a time-based scenario ran its plan when teardown came at least its span after setup', () => {
    expect(judgeK6Plan(arrival, null, { mixed: 140 })).toEqual({ planRan: true, why: '', ranMs: 32_400 });
    const early = judgeK6Plan({ ...arrival, wall: 1_014_300 }, null, { mixed: 59 });
    expect(early.planRan).toBe(false);
    expect(early.why).toBe("teardown came 14.3 s after setup, before scenario mixed's planned 30.0 s had passed");
    // One millisecond short is short.
    expect(judgeK6Plan({ ...arrival, wall: 1_029_999 }, null, {}).planRan).toBe(false);
  });
  it('without a setup time in the marker, the run facts\' wall (setup) is used; without either, a time-based plan cannot be judged ran', () => {
    const { setupWall: _, ...noSetup } = arrival;
    expect(judgeK6Plan(noSetup, 1_000_000, {}).planRan).toBe(true);
    expect(judgeK6Plan(noSetup, 1_010_000, {}).planRan).toBe(false);
    const none = judgeK6Plan({ ...noSetup, setupWall: null }, null, {});
    expect(none).toMatchObject({ planRan: false, ranMs: null });
    expect(none.why).toMatch(/no setup\(\) and teardown\(\) wall times/);
  });
  it('an iteration-based scenario ran its plan when k6 wrote an iterations point for each planned iteration of it', () => {
    const m = { v: 2, scenarios: { idempotency: { executor: 'per-vu-iterations', plannedMs: null, plannedIterations: 6 } }, setupWall: 1, wall: 2 };
    expect(judgeK6Plan(m, null, { idempotency: 6 }).planRan).toBe(true);
    expect(judgeK6Plan(m, null, { idempotency: 5 }).why).toBe('5 of 6 planned iterations of scenario idempotency completed');
    // Another scenario's iterations do not count for it.
    expect(judgeK6Plan(m, null, { other: 6 }).planRan).toBe(false);
  });
  it('a script with both kinds: each scenario judged on its own', () => {
    const m = { v: 2, scenarios: { load: { executor: 'constant-vus', plannedMs: 10_000, plannedIterations: null }, once: { executor: 'shared-iterations', plannedMs: null, plannedIterations: 2 } }, setupWall: 0, wall: 10_500 };
    expect(judgeK6Plan(m, null, { load: 50, once: 2 }).planRan).toBe(true);
    expect(judgeK6Plan(m, null, { load: 50, once: 1 }).planRan).toBe(false);
    expect(judgeK6Plan({ ...m, wall: 9_000 }, null, { load: 50, once: 2 }).planRan).toBe(false);
  });
  it('a marker without a version (the real recordings): its planRan is ignored, its totals judged', () => {
    const legacy = { script: 'idempotency', planRan: false, plannedMs: null, plannedIterations: 6, runMs: 0, setupMs: 12.8, iterationsCompleted: 0, iterationsInterrupted: 0, why: '0 of 6 planned iterations completed', wall: 2_000 };
    expect(judgeK6Plan(legacy, 1_000, { idempotency: 6 }).planRan).toBe(true);
    expect(judgeK6Plan(legacy, 1_000, { idempotency: 4 }).why).toBe('4 of 6 planned iterations of the scenarios completed');
    const legacyTime = { script: 'mixed', planRan: false, plannedMs: 30_000, plannedIterations: null, wall: 40_000 };
    expect(judgeK6Plan(legacyTime, 9_000, {}).planRan).toBe(true);
    expect(judgeK6Plan(legacyTime, 20_000, {}).planRan).toBe(false);
  });
  it('no plan, or an executor with no checkable plan, is never judged ran', () => {
    expect(judgeK6Plan({ v: 2, scenarios: {}, setupWall: 0, wall: 1e9 }, null, {}).planRan).toBe(false);
    expect(judgeK6Plan({ v: 2, scenarios: { x: { executor: 'externally-controlled', plannedMs: null, plannedIterations: null } }, setupWall: 0, wall: 1e9 }, null, { x: 9 }).why).toMatch(/no plan to compare with for scenario x \(externally-controlled\)/);
  });
});

describe('the end marker (shim against the reference service)', () => {
  let complete = '';
  // Another shard of the same test, made right after (merge refuses shards more than a minute
  // apart, as two tests): its own key, so the shards' rate-limit readings are their own.
  let other = '';
  beforeAll(async () => {
    complete = (await shimJson('mixed', { DURATION: '3s' }, { iterations: 'plan', seed: 7 })).file;
    other = (await shimJson('mixed', { DURATION: '3s', KEYS: `acme:${key('acme', 'api_test_sk_')}` }, { iterations: 'plan', seed: 11 })).file;
  }, 90_000);

  it('a complete run: the marker says the plan ran, complete and done, and paystorm check passes (exit 0)', async () => {
    const lines = readFileSync(complete, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; metric: string; data: { metadata?: Record<string, string> } });
    const markers = lines.filter((l) => l.type === 'Point' && l.data.metadata?.paystorm_end !== undefined);
    expect(markers.length).toBe(1);
    // The run facts say this script writes a marker.
    const run = lines.find((l) => l.data?.metadata?.paystorm_run !== undefined)!;
    expect(JSON.parse(run.data.metadata!.paystorm_run).endMarker).toBe(true);
    const conv = await convertK6(complete);
    expect(conv.facts.end).toMatchObject({ marker: true, planRan: true, why: '' });
    expect(endOf(conv.records)).toMatchObject({ complete: true, reason: 'done' });
    const r = await cli(['check', '--no-write', complete]);
    expect(r.code, r.out).toBe(0);
  });

  it('the same file cut at a line boundary (50, 70, 85% of its lines) is interrupted, never a pass (exit 130)', async () => {
    for (const share of [0.5, 0.7, 0.85]) {
      const warnings: string[] = [];
      const conv = await convertK6(cut(complete, share), { onWarning: (m) => warnings.push(m) });
      expect(conv.facts.end.marker).toBe(false);
      expect(endOf(conv.records)).toMatchObject({ complete: false, reason: 'interrupted' });
      expect(warnings.join('\n')).toMatch(/no end marker, though the script writes one in teardown\(\)/);
      const s = await judge(conv.records);
      expect(s.verdict).toBe('fail');
      expect(s.complete).toBe(false);
      expect(s.exitCode, s.reason).toBe(130);
    }
    const r = await cli(['check', '--no-write', cut(complete, 0.7)]);
    expect(r.code, r.out).toBe(130);
    expect(r.out).toMatch(/interrupted/);
  });

  it('a run stopped early (a graceful interrupt after 3 iterations of a 3 s scenario): teardown still writes the marker, which says the plan did not run (exit 130)', async () => {
    const { file } = await shimJson('mixed', { DURATION: '3s' }, { iterations: 'plan', seed: 7, interruptAfter: 3 });
    const conv = await convertK6(file);
    expect(conv.facts.end).toMatchObject({ marker: true, planRan: false });
    expect(conv.facts.end.why).toMatch(/did not run its plan \(teardown came [\d.]+ s after setup, before scenario mixed's planned 3\.0 s had passed\)/);
    expect(endOf(conv.records)).toMatchObject({ complete: false, reason: 'interrupted' });
    expect((await judge(conv.records)).exitCode).toBe(130);
  });

  it('an iteration-based script: complete when its planned iterations ran, interrupted when fewer did', async () => {
    const one = await shimJson('idempotency', { IDEM_VUS: '1', IDEM_ITERATIONS: '1' }, { iterations: 'plan' });
    expect(endOf((await convertK6(one.file)).records)).toMatchObject({ complete: true, reason: 'done' });
    // The script plans 1 VU × 4 iterations; an interrupt after the first leaves three undone.
    const fewer = await shimJson('idempotency', { IDEM_VUS: '1', IDEM_ITERATIONS: '4' }, { iterations: 'plan', interruptAfter: 1 });
    const conv = await convertK6(fewer.file);
    expect(conv.facts.end.why).toMatch(/1 of 4 planned iterations of scenario idempotency completed/);
    expect(endOf(conv.records)).toMatchObject({ complete: false, reason: 'interrupted' });
  });

  it('merged: a complete shard and a cut one make an interrupted run (exit 130); two complete shards a complete one', async () => {
    const a = await convertK6(complete);
    const b = await convertK6(cut(other, 0.7));
    const merged = mergeShards([
      { source: 'a.k6.json', kind: 'k6', records: a.records },
      { source: 'b.k6.json', kind: 'k6', records: b.records },
    ]);
    const end = endOf(merged.records);
    expect(end).toMatchObject({ complete: false, reason: 'shard b.k6.json: interrupted' });
    expect(runStop(end).kind).toBe('interrupted');
    const ok = mergeShards([
      { source: 'a', kind: 'k6', records: a.records },
      { source: 'b', kind: 'k6', records: (await convertK6(other)).records },
    ]);
    expect(endOf(ok.records)).toMatchObject({ complete: true, reason: 'done' });
    // Each shard's marker evidence stays in the merged run's facts.
    const facts = (ok.records[0] as { facts?: { merge?: { facts: { k6?: { end?: { planRan: boolean } } } | null }[] } }).facts;
    expect(facts?.merge?.map((m) => m.facts?.k6?.end?.planRan)).toEqual([true, true]);
    const r = await cli(['merge', complete, cut(other, 0.85), '--out', join(work, 'merged-cut')]);
    expect(r.code, r.out).toBe(130);
  });
});

describe('exchange end times include the connection time (k6 timings.duration does not)', () => {
  it('every recorded span ends when the answer was in hand, on new connections too', async () => {
    // Every request opens a new connection taking 60 ms (timings.connecting), as with noConnectionReuse.
    const { file, requests } = await shimJson('mixed', {}, { iterations: 6, seed: 7, noReuse: true, connectMs: 60 });
    const records = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; data: { metadata?: Record<string, string> } })
      .filter((l) => l.type === 'Point' && l.data.metadata?.paystorm_record !== undefined)
      .map((l) => decodeK6Record(l.data.metadata!.paystorm_record) as { tStart: number; tEnd: number });
    // One record per request, in the order they were answered.
    expect(records.length).toBe(requests.length);
    expect(requests.every((q) => q.connectMs === 60)).toBe(true);
    records.forEach((x, i) => {
      const q = requests[i];
      expect(x.tStart).toBeLessThanOrEqual(q.receivedAt);
      // At sentAt + timings.duration the span would end 60 ms before the answer came. (The slack is
      // the shim's own hand-back from its fetch worker, which k6 does not have.)
      expect(x.tEnd, `${q.method} ${q.url}`).toBeGreaterThanOrEqual(q.receivedAt - 20);
      expect(x.tEnd - x.tStart).toBeGreaterThanOrEqual(60);
    });
  });

  it('a batch request: its span ends at send + blocked + connecting + tls_handshaking + duration', async () => {
    const rl = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02, rateLimit: 15, windowMs: 1000 });
    try {
      const file = join(work, 'rl.k6.json');
      const r = await runShim(join(bundles, 'rate-limit.js'), { TARGET: rl.url, KEYS, WINDOW_MS: '1000', RL_BATCH: '5' }, { sleepScale: 1, timeoutMs: 60_000, jsonOut: file, connectMs: 40 });
      expect(r.fatal, r.output).toBeNull();
      const records = readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; data: { metadata?: Record<string, string> } })
        .filter((l) => l.type === 'Point' && l.data.metadata?.paystorm_record !== undefined)
        .map((l) => decodeK6Record(l.data.metadata!.paystorm_record) as { tStart: number; tEnd: number; group?: string });
      expect(records.length).toBe(r.requests.length);
      // The first batch opens new connections (the VU had one): those requests spent 40 ms connecting.
      const connected = r.requests.map((q, i) => ({ q, x: records[i] })).filter(({ q, x }) => q.connectMs > 0 && x.group !== undefined);
      expect(connected.length).toBeGreaterThan(0);
      for (const { q, x } of connected) {
        // sentAt + timings.duration alone would end the span before the 40 ms of connecting were over.
        expect(x.tEnd - x.tStart).toBeGreaterThanOrEqual(40);
        expect(x.tEnd).toBeLessThanOrEqual(q.receivedAt + 1);
      }
    } finally {
      await rl.close();
    }
  });
});
