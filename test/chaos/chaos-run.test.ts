/**
 * Issue 6's proof: the chaos scenario against the reference service through the embedded
 * Toxiproxy-compatible proxy, every toxic in turn on the upstream link and a client-link
 * fault, fitted into 60 s. Zero violations, the fault rules judged (not skipped), every
 * fault window in summary.json and the history (cleanup is tested in schedule.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeRun } from '../../src/cli/run.ts';
import { resolveRunConfig } from '../../src/cli/run-checks.ts';
import { Writable } from 'node:stream';
import { historyPathOf, historyRecords, historyText } from '../history-file.ts';

const sink = () => {
  let text = '';
  const w = new Writable({ write(chunk, _enc, cb) { text += chunk; cb(); } }) as Writable & { text: () => string };
  w.text = () => text;
  return w;
};

describe('paystorm run chaos (embedded proxy)', () => {
  it('passes with every FT rule exercised and each fault window reported', async () => {
    const out = mkdtempSync(join(tmpdir(), 'paystorm-chaos-'));
    const stdout = sink();
    const stderr = sink();
    const result = await executeRun(resolveRunConfig({ scenarios: ['chaos'], duration: '30s', seed: 9, out }, null), { stdout, stderr });
    const summary = result.summary!;
    const bad = summary.invariants.filter((i) => i.status === 'fail' || i.status === 'error');
    expect(bad.map((i) => `${i.id}: ${i.examples[0]?.message ?? i.error}`), stdout.text()).toEqual([]);
    expect(result.exitCode, stdout.text()).toBe(0);
    for (const rule of ['FT-1', 'FT-2', 'FT-3', 'FT-4', 'FT-5']) {
      const inv = summary.invariants.find((i) => i.rules.includes(rule))!;
      expect(inv.status, rule).toBe('pass');
      expect(inv.checked, rule).toBeGreaterThan(0);
    }
    const types = summary.faults.map((f) => `${f.link}:${f.type}`);
    for (const t of ['latency', 'timeout', 'reset_peer', 'bandwidth', 'slow_close', 'slicer', 'limit_data', 'down']) expect(types).toContain(`upstream:${t}`);
    expect(types).toContain('client:latency');
    for (const f of summary.faults) expect(f.tEnd).toBeGreaterThan(f.tStart);
    // The history says which requests ran inside which window: the windows are there to match them against.
    const history = await historyText(result.runDir!);
    expect(history.match(/"kind":"fault"/g)!.length).toBe(summary.faults.length);
  }, 240_000);
});
