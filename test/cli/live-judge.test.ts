/**
 * `paystorm run` judges its history while it is written: the verdict it prints is the live judge's
 * and equals `paystorm check` of the written file; `--abort-on-violation` stops the run at a
 * confirmed violation (a seeded double charge) with exit 1, reports and repro; a run killed with
 * SIGKILL leaves its last snapshot and a history that `check` judges (exit 130, incomplete).
 */
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeRun } from '../../src/cli/run.ts';
import { resolveRunConfig } from '../../src/cli/run-checks.ts';
import { bufferIo } from '../../src/cli/selftest.ts';
import { judgeHistory } from '../../src/cli/judge-run.ts';
import { abortOnViolationOf } from '../../src/cli/run-steps/settings.ts';
import { abortsOn, judgeYieldsToLoad, snapshotEveryMs } from '../../src/cli/run-steps/judge.ts';
import { EXIT, PaystormError, type Summary } from '../../src/spec/index.ts';
import type { EndRecord, ExchangeRecord } from '../../src/history/index.ts';
import { historyPathOf, historyRecords } from '../history-file.ts';

const root = join(import.meta.dirname, '../..');

describe('--abort-on-violation ids', () => {
  it('takes invariant ids and rule ids, and refuses any other naming it (exit 3)', () => {
    expect(abortOnViolationOf(undefined)).toBeNull();
    expect(abortOnViolationOf(true)).toBe('any');
    const ids = abortOnViolationOf(['idem-single-object', 'RL-1']);
    expect(abortsOn(ids, { invariant: 'idem-single-object', rules: ['IDEM-6'] })).toBe(true);
    expect(abortsOn(ids, { invariant: 'rate-window-cap', rules: ['RL-1', 'RL-3'] })).toBe(true);
    expect(abortsOn(ids, { invariant: 'idem-replay', rules: ['IDEM-3'] })).toBe(false);
    expect(abortsOn(null, { invariant: 'idem-replay', rules: ['IDEM-3'] })).toBe(false);
    let err: unknown;
    try {
      abortOnViolationOf(['IDEM-6', 'mixed']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PaystormError);
    expect((err as PaystormError).exitCode).toBe(EXIT.usage);
    expect((err as Error).message).toMatch(/--abort-on-violation: "mixed" is neither an invariant id nor a rule id/);
  });

  it('the live judge yields to a saturated load unless a violation must stop the run (--abort-on-violation, any ids)', () => {
    expect(judgeYieldsToLoad({ abortOnViolation: null })).toBe(true);
    expect(judgeYieldsToLoad({ abortOnViolation: abortOnViolationOf(true) })).toBe(false);
    expect(judgeYieldsToLoad({ abortOnViolation: abortOnViolationOf(['IDEM-6']) })).toBe(false);
  });

  it('snapshots every 5 minutes by default only for a run planned over 15 minutes; --snapshot-every wins', () => {
    expect(snapshotEveryMs({ snapshotEveryMs: undefined }, 20 * 60_000)).toBe(5 * 60_000);
    expect(snapshotEveryMs({ snapshotEveryMs: undefined }, 10 * 60_000)).toBeNull();
    expect(snapshotEveryMs({ snapshotEveryMs: 60_000 }, 60_000)).toBe(60_000);
  });
});

describe('paystorm run judged live', () => {
  it('stops at a seeded double charge soon after the violating exchange, exit 1, reports and repro written; the verdict equals check of the file', async () => {
    const out = mkdtempSync(join(tmpdir(), 'paystorm-live-'));
    const io = bufferIo();
    const cfg = resolveRunConfig({ scenarios: ['idempotency', 'mixed'], duration: '20s', bugs: ['idem-no-inflight-lock'], seed: 1, out, abortOnViolation: true }, null);
    const result = await executeRun(cfg, io);
    expect(io.text()).not.toMatch(/judging the history file instead/);
    expect(io.text()).toMatch(/--abort-on-violation: idem-single-object \(IDEM-6\) violated/);
    expect(result.exitCode).toBe(EXIT.violation);
    const summary = result.summary!;
    expect(summary.complete).toBe(false);
    expect(summary.invariants.find((i) => i.id === 'idem-single-object')!.status).toBe('fail');
    // The run ended early: mixed (20 s) never ran to its end.
    expect(summary.scenarios.find((s) => s.name === 'mixed')!.status).not.toBe('finished');
    expect(readdirSync(join(result.runDir!, 'repro'))).toContain('idem-single-object-1.sh');
    for (const f of ['summary.json', 'report.html', 'junit.xml']) expect(existsSync(join(result.runDir!, f))).toBe(true);

    const records = await historyRecords(result.runDir!);
    const end = records.find((r) => r.kind === 'end') as EndRecord;
    expect(end.reason).toBe('violation: idem-single-object');
    // The stop came after the violating exchange (the later of the two objects' answers), and soon.
    const seqs = summary.invariants.find((i) => i.id === 'idem-single-object')!.examples[0].seqs!;
    const violating = records.filter((r): r is ExchangeRecord => r.kind === 'exchange' && seqs.includes(r.seq));
    const second = [...violating].sort((a, b) => a.tEnd - b.tEnd)[1];
    expect(end.tEnd).toBeGreaterThan(second.tEnd);
    expect(end.tEnd - second.tEnd).toBeLessThan(15_000);

    // One judge: the run's summary is what check of the written file gives.
    const again = await judgeHistory(historyPathOf(result.runDir!), { scenarioThresholds: () => [], onWarning: () => {} });
    // (writing the reports links each example to its repro script: not part of the judgement)
    expect(again).toEqual(withoutRepro(summary));
  }, 120_000);

  it('a run killed with SIGKILL leaves its last snapshot, and check judges the history it holds: exit 130, incomplete', async () => {
    const out = mkdtempSync(join(tmpdir(), 'paystorm-kill-'));
    // Settling is not what this test judges: at the embedded service's real delays (--time-scale 1:
    // a processor call may take 10 s, not 0.5 s) a loaded machine does not fail it.
    const args = ['run', 'mixed', '--duration', '60s', '--snapshot-every', '2s', '--seed', '2', '--time-scale', '1', '--out', out];
    const child = spawn(process.execPath, [join(root, 'bin/paystorm.js'), ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    const summaryPath = () => {
      const dir = readdirSync(out).find((d) => d !== 'latest');
      return dir ? join(out, dir, 'summary.json') : null;
    };
    const deadline = Date.now() + 90_000;
    let snapshots = 0;
    let last: Summary | null = null;
    // Two snapshots written: the second shows more of the run than the first.
    while (Date.now() < deadline && snapshots < 2) {
      await new Promise((r) => setTimeout(r, 250));
      const p = summaryPath();
      if (!p || !existsSync(p)) continue;
      const s = JSON.parse(readFileSync(p, 'utf8')) as Summary;
      if (s.snapshotAtMs !== last?.snapshotAtMs) {
        snapshots++;
        last = s;
      }
    }
    child.kill('SIGKILL');
    await exited;
    expect(snapshots, stderr).toBe(2);
    const runDir = join(summaryPath()!, '..');
    const left = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
    expect(left.snapshot).toBe(true);
    expect(left.complete).toBe(false);
    expect(readFileSync(join(runDir, 'report.html'), 'utf8')).toMatch(/id="snapshot"/);

    const check = spawnSync(process.execPath, [join(root, 'bin/paystorm.js'), 'check', runDir], { cwd: root, encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(EXIT.interrupted);
    const judged = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
    expect(judged.snapshot).toBeUndefined();
    expect(judged.complete).toBe(false);
    // Everything the history holds: at least what the last snapshot saw.
    expect((judged.metrics as { requests: number }).requests).toBeGreaterThanOrEqual((left.metrics as { requests: number }).requests);
  }, 150_000);
});

function withoutRepro(s: Summary): Summary {
  return { ...s, invariants: s.invariants.map((i) => ({ ...i, examples: i.examples.map(({ repro: _repro, ...e }) => e) })) };
}
