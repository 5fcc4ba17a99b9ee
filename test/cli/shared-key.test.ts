/**
 * --shared-key: a key used like --key but marked shared in the run record (keys[].shared), on
 * which the rate limit's lower bound (rate-no-early-429) is only observed. End to end on the
 * embedded service with the rl-early-429 mutant (the rate-limit scenario alone, ~10 s a run).
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { RunRecord } from '../../src/history/index.ts';
import { DEFAULT_KEYS } from '../../src/target/index.ts';
import { executeRun } from '../../src/cli/run.ts';
import { type RunConfig } from '../../src/cli/config.ts';
import { resolveRunConfig } from '../../src/cli/run-checks.ts';
import { historyPathOf, historyRecords, historyText } from '../history-file.ts';

const sink = () => new Writable({ write(_c, _e, cb) { cb(); } });
const arg = (i: number) => `${DEFAULT_KEYS[i].merchant}:${DEFAULT_KEYS[i].key}`;
// The rate-limit scenario probes the last test key of the first merchant (acme's no-Direct-API key, index 3).
const owned = [arg(0), arg(1)];
const probed = arg(3);

async function run(cfg: RunConfig) {
  const out = mkdtempSync(join(tmpdir(), 'paystorm-shared-key-'));
  const result = await executeRun(resolveRunConfig({ scenarios: ['rate-limit'], bugs: ['rl-early-429'], seed: 3, out, ...cfg }, null), { stdout: sink(), stderr: sink() });
  const run = JSON.parse((await historyText(result.runDir!)).split('\n')[0]) as RunRecord;
  return { summary: result.summary!, run, exitCode: result.exitCode };
}

describe('paystorm run --shared-key', () => {
  it('judges an early 429 on a key the run owns, and only observes it on a shared key', async () => {
    const own = await run({ keys: [...owned, probed] });
    expect(own.summary.invariants.find((i) => i.id === 'rate-no-early-429')!.status).toBe('fail');
    expect(own.exitCode).toBe(1);
    expect(own.run.keys.some((k) => k.shared)).toBe(false);

    const shared = await run({ keys: owned, sharedKeys: [probed] });
    const inv = shared.summary.invariants.find((i) => i.id === 'rate-no-early-429')!;
    expect(inv.status).toBe('not-exercised');
    expect(inv.reason).toMatch(/shared/);
    expect(shared.summary.findings?.find((f) => f.id === 'rate-early-429-shared-key')?.level).toBe('observation');
    expect(shared.run.keys.filter((k) => k.shared).map((k) => k.last4)).toEqual([DEFAULT_KEYS[3].key.slice(-4)]);
    expect(shared.exitCode).toBe(0);
  }, 90_000);

  it('refuses a key given both ways, and a live shared key without --allow-live', () => {
    expect(() => resolveRunConfig({ keys: [arg(0)], sharedKeys: [arg(0)] }, null)).toThrow(/--shared-key.*also given with --key/s);
    expect(() => resolveRunConfig({ keys: [arg(0)], sharedKeys: [arg(2)] }, null)).toThrow(/--shared-key.*live key/s);
  });
});
