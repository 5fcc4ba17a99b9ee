/**
 * Real k6 v1.3.0 recordings of today's bundles (../shared/samples/k6, README there) judged
 * as a user would by `paystorm check`: the ground truth for how the k6 path judges
 * completeness. Real k6 gives teardown() no counters (exec.instance throws there), so these
 * files' end markers say `planRan: false` whatever happened; the judgement comes from the
 * wall times of setup and teardown and the `iterations` points (src/history/k6-plan.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertK6 } from '../../src/history/k6.ts';
import { k6RunDirOf } from '../../src/history/k6-history.ts';
import { cli } from './helpers.ts';
import { describeWithShared, sharedPath } from '../shared-files.ts';

const sample = (name: string) => sharedPath(`samples/k6/${name}`);
const SAMPLE_FILES = ['mixed-30s-clean', 'mixed-sigint-at-12s', 'idempotency-idem-no-inflight-lock', 'rate-limit-clean'].map((n) => `samples/k6/${n}.k6.json.gz`);

let work = '';
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'paystorm-k6-real-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `paystorm check` on a copy (check writes its reports beside the file; the samples are read-only). */
async function check(name: string) {
  const file = join(work, name);
  copyFileSync(sample(name), file);
  return cli(['check', '--no-write', file]);
}

describeWithShared(SAMPLE_FILES, 'real k6 v1.3.0 recordings judged by paystorm check', () => {
  it('the clean 30 s mixed run (k6 exit 0) is complete and passes (exit 0)', async () => {
    const conv = await convertK6(sample('mixed-30s-clean.k6.json.gz'));
    expect(conv.facts.end).toMatchObject({ marker: true, planRan: true, why: '' });
    expect(conv.facts.end.ranMs).toBeGreaterThanOrEqual(30_000);
    expect(conv.facts.end.iterations.mixed).toBe(143);
    expect(conv.records.at(-1)).toMatchObject({ kind: 'end', complete: true, reason: 'done' });
    const r = await check('mixed-30s-clean.k6.json.gz');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/passed: \d+ invariants held/);
  }, 60_000);

  it('the mixed run stopped by SIGINT at about 12 s (k6 exit 105) is incomplete (exit 130), and says why truly', async () => {
    const conv = await convertK6(sample('mixed-sigint-at-12s.k6.json.gz'));
    expect(conv.facts.end.planRan).toBe(false);
    expect(conv.facts.end.why).toMatch(/teardown came 14\.3 s after setup, before the scenarios' planned 30\.0 s had passed/);
    expect(conv.records.at(-1)).toMatchObject({ kind: 'end', complete: false, reason: 'interrupted' });
    const r = await check('mixed-sigint-at-12s.k6.json.gz');
    expect(r.code, r.out).toBe(130);
    expect(r.out).toMatch(/INCOMPLETE/);
  }, 60_000);

  it('the idempotency run against idem-no-inflight-lock (k6 exit 99) is complete and fails IDEM-6 (exit 1)', async () => {
    const conv = await convertK6(sample('idempotency-idem-no-inflight-lock.k6.json.gz'));
    expect(conv.facts.end).toMatchObject({ planRan: true, iterations: { idempotency: 6 } });
    const r = await check('idempotency-idem-no-inflight-lock.k6.json.gz');
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/FAIL\s+idem-single-object\s+\d+\s+IDEM-6/);
    expect(r.out).not.toMatch(/INCOMPLETE/);
  }, 60_000);

  it('the clean rate-limit run (k6 exit 0, its one iteration done) is complete and passes', async () => {
    const conv = await convertK6(sample('rate-limit-clean.k6.json.gz'));
    expect(conv.facts.end).toMatchObject({ planRan: true, iterations: { 'rate-limit': 1 } });
    const r = await check('rate-limit-clean.k6.json.gz');
    expect(r.code, r.out).toBe(0);
  }, 120_000);

  it('check writes the converted history beside the reports only when the run has violations (their repro scripts) or with --save-history', async () => {
    const clean = join(mkdtempSync(join(work, 'history-')), 'mixed-30s-clean.k6.json.gz');
    copyFileSync(sample('mixed-30s-clean.k6.json.gz'), clean);
    const dir = k6RunDirOf(clean);
    expect((await cli(['check', clean])).code).toBe(0);
    expect(existsSync(join(dir, 'summary.json'))).toBe(true);
    expect(existsSync(join(dir, 'history.bin.gz'))).toBe(false);
    const saved = await cli(['check', '--save-history', clean]);
    expect(saved.code, saved.out).toBe(0);
    expect(existsSync(join(dir, 'history.bin.gz'))).toBe(true);
    // The saved history is judged as the k6 file was.
    const again = await cli(['check', dir]);
    expect(again.code, again.out).toBe(0);
    // A later check without it leaves no stale history behind.
    expect((await cli(['check', clean])).code).toBe(0);
    expect(existsSync(join(dir, 'history.bin.gz'))).toBe(false);

    const failing = join(mkdtempSync(join(work, 'history-')), 'idempotency-idem-no-inflight-lock.k6.json.gz');
    copyFileSync(sample('idempotency-idem-no-inflight-lock.k6.json.gz'), failing);
    const r = await cli(['check', failing]);
    expect(r.code, r.out).toBe(1);
    expect(existsSync(join(k6RunDirOf(failing), 'history.bin.gz'))).toBe(true);
    expect(readdirSync(join(k6RunDirOf(failing), 'repro')).length).toBeGreaterThan(0);
  }, 180_000);
});
