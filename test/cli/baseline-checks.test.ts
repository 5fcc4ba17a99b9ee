/** Up-front checks of --baseline, --save-baseline, --trend-window and regression/drift thresholds (exit 3 before any load). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProblems } from '../../src/cli/run-checks.ts';

const dir = mkdtempSync(join(tmpdir(), 'paystorm-baseline-checks-'));

describe('run checks for baselines and drift', () => {
  it('accepts regression thresholds with a baseline and drift thresholds', () => {
    writeFileSync(join(dir, 'summary.json'), JSON.stringify({ runId: 'r', target: { url: 'x', embedded: true }, scenarios: [], metrics: { latency: {}, trends: {}, timeline: [] } }));
    const problems = runProblems({ baseline: dir, thresholds: ['http_req_duration{op:create}: p(99) < baseline * 1.2', 'trend(http_req_duration{op:create}.p99) < 10%/h', 'http_req_failed: rate<0.01'], trendWindow: '10s' });
    expect(problems).toEqual([]);
  });

  it('names each problem with its flag', () => {
    const problems = runProblems({
      thresholds: ['http_req_duration: p(99) < baseline * 1.2', 'trend(http_req_duration.p99) < 10'],
      trendWindow: '10',
      saveBaseline: join(dir, 'summary.json', 'sub'),
    });
    const by = (f: string) => problems.filter((p) => p.field === f).map((p) => p.message).join(' | ');
    expect(by('--threshold')).toMatch(/not a drift threshold/);
    expect(by('--threshold')).toMatch(/needs a baseline: add --baseline DIR/);
    expect(by('--trend-window')).not.toBe('');
    expect(by('--save-baseline')).toMatch(/is a file/);
    const missing = runProblems({ baseline: join(dir, 'nowhere') });
    expect(missing).toEqual([{ field: '--baseline', message: expect.stringMatching(/^nothing at .*nowhere/) }]);
  });
});
