/**
 * A remote target whose clock runs 3 s ahead, with the spec's 60 s window: the up-front window
 * check reads X-RateLimit-Reset against the answer's own Date (no false "window looks like 63 s"),
 * and the oracle judges RL-6 in the server's time and reports the offset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { DEFAULT_TEST_CARDS } from '../../src/spec/index.ts';
import { DEFAULT_KEYS, startReferenceService, type RunningService } from '../../src/target/index.ts';
import { executeRun } from '../../src/cli/run.ts';
import { resolveRunConfig } from '../../src/cli/run-checks.ts';

const sink = () => {
  let text = '';
  const w = new Writable({ write(chunk, _enc, cb) { text += chunk; cb(); } }) as Writable & { text: () => string };
  w.text = () => text;
  return w;
};

let service: RunningService;
beforeAll(async () => {
  service = await startReferenceService({ port: 0, timeScale: 0.05, rateLimit: 500, windowMs: 60_000, clockOffsetMs: 3_000 });
});
afterAll(async () => service?.close());

describe('remote target 3 s ahead', () => {
  it('is judged in its own time: RL-6 holds, the offset is a warning finding, no window warning', async () => {
    const keys = DEFAULT_KEYS.filter((k) => k.key.includes('_test_')).map((k) => `${k.merchant}:${k.key}`);
    const stderr = sink();
    const out = mkdtempSync(join(tmpdir(), 'paystorm-remote-clock-'));
    const result = await executeRun(resolveRunConfig({ target: service.url, keys, cards: { ...DEFAULT_TEST_CARDS }, scenarios: ['auth-and-input'], seed: 2, out }, null), { stdout: sink(), stderr });
    expect(stderr.text()).not.toMatch(/rate window looks like/);
    expect(stderr.text()).toMatch(/paystorm: plan: about/);
    const s = result.summary!;
    expect(s.invariants.find((i) => i.id === 'rate-reset-value')!.status).toBe('pass');
    const f = s.findings!.find((x) => x.id === 'server-clock-offset')!;
    expect(f.level).toBe('warning');
    // Within a second: the test machine is shared, and a busy service sends a cached Date late.
    const off = Number(/clock is ([\d.]+) s ahead of paystorm's/.exec(f.text)![1]);
    expect(off).toBeGreaterThan(2);
    expect(off).toBeLessThan(4);
  }, 60_000);
});
