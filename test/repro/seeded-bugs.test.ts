/**
 * Issue 15 §2's proof: for seeded bugs of different kinds (a same-key race, a refund answer, a
 * bad-input create, a rate window admitting one too many), `paystorm run` writes a repro script per violation; the script,
 * plain bash and curl, reproduces against the reference service with the bug and not against the
 * clean one; and `paystorm repro` says the same (exit 1 / 0).
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarySchema } from '../../src/spec/index.ts';
import { DEFAULT_KEYS, startReferenceService } from '../../src/target/index.ts';
import { DEFAULT_TEST_CARDS } from '../../src/spec/index.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function exec(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, CI: 'true', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const hard = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', rej);
    child.on('close', (code) => {
      clearTimeout(hard);
      res({ code, stdout, stderr });
    });
  });
}
const paystorm = (args: string[]) => exec(process.execPath, [join(root, 'bin/paystorm.js'), ...args]);

const CASES = [
  { bug: 'idem-no-inflight-lock', scenario: 'idempotency', invariant: 'idem-single-object', concurrent: true },
  { bug: 'ref-wrong-code', scenario: 'refunds', invariant: 'over-refund-refused', concurrent: false },
  { bug: 'pay-zero-amount-accepted', scenario: 'auth-and-input', invariant: 'amount-minimum', concurrent: false },
  // The script spends the window on the target first (sized from its X-RateLimit-Remaining).
  { bug: 'rl-off-by-one', scenario: 'rate-limit', invariant: 'rate-window-cap', concurrent: true },
] as const;

describe('a repro for every violation (seeded bugs)', () => {
  for (const c of CASES) {
    it(`${c.bug}: the ${c.invariant} script reproduces on the buggy service only, and paystorm repro agrees`, { timeout: 120_000 }, async () => {
      const out = mkdtempSync(join(tmpdir(), 'paystorm-repro-'));
      const r = await paystorm(['run', c.scenario, '--bugs', c.bug, '--out', out, '--seed', '7']);
      expect(r.code, r.stderr.slice(-2000)).toBe(1);
      const runDir = join(out, 'latest');
      const summary = summarySchema.parse(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')));
      const inv = summary.invariants.find((i) => i.id === c.invariant)!;
      expect(inv.status).toBe('fail');
      const id = `${c.invariant}-1`;
      expect(inv.examples[0].repro).toBe(`repro/${id}.sh`);
      const scriptPath = join(runDir, 'repro', `${id}.sh`);
      expect(existsSync(scriptPath)).toBe(true);
      const script = readFileSync(scriptPath, 'utf8');
      // Keys and card numbers only as variables.
      for (const k of DEFAULT_KEYS) expect(script).not.toContain(k.key);
      expect(script.split('\n').filter((l) => !l.startsWith('#')).join('\n')).not.toContain(DEFAULT_TEST_CARDS.succeeds);
      expect(script).toContain('PAYSTORM_KEY');
      expect(script.includes('# Concurrency:')).toBe(c.concurrent);
      if (c.bug === 'rl-off-by-one') expect(script).toMatch(/^fill_window /m);
      if (c.concurrent) expect(script).toMatch(/ &\n[\s\S]*\nwait\n/);
      expect(readFileSync(join(runDir, 'summary.md'), 'utf8')).toContain(`repro/${id}.sh`);

      // A small limit in a long window: the rate repro spends the window with few requests, and it cannot reset midway.
      const rate = c.bug === 'rl-off-by-one' ? { rateLimit: 40, windowMs: 60_000 } : {};
      const buggy = await startReferenceService({ port: 0, host: '127.0.0.1', bugs: [c.bug], timeScale: 0.2, ...rate });
      const clean = await startReferenceService({ port: 0, host: '127.0.0.1', timeScale: 0.2, ...rate });
      try {
        const env = (url: string) => ({ PAYSTORM_TARGET: url, PAYSTORM_KEY: DEFAULT_KEYS[0].key, CARD_SUCCEEDS: DEFAULT_TEST_CARDS.succeeds });
        const onBuggy = await exec('bash', [scriptPath], env(buggy.url));
        expect(onBuggy.code, onBuggy.stdout + onBuggy.stderr).toBe(1);
        expect(onBuggy.stdout).toContain(`paystorm repro ${id}: REPRODUCED`);
        const onClean = await exec('bash', [scriptPath], env(clean.url));
        expect(onClean.code, onClean.stdout + onClean.stderr).toBe(0);
        expect(onClean.stdout).toContain('not reproduced');
        // The same against a running service through paystorm's client, judged by the invariant
        // (the rate case's key spent its window above: its replay runs on the embedded service below).
        if (c.bug !== 'rl-off-by-one') {
          const viaTarget = await paystorm(['repro', runDir, id, '--target', buggy.url, '--key', `acme:${DEFAULT_KEYS[0].key}`]);
          expect(viaTarget.code, viaTarget.stdout + viaTarget.stderr).toBe(1);
        }
      } finally {
        await buggy.close();
        await clean.close();
      }
      const replayBuggy = await paystorm(['repro', runDir, id, '--bugs', c.bug]);
      expect(replayBuggy.code, replayBuggy.stdout + replayBuggy.stderr).toBe(1);
      expect(replayBuggy.stdout).toContain(`repro ${id}: reproduces`);
      const replayClean = await paystorm(['repro', runDir, id]);
      expect(replayClean.code, replayClean.stdout + replayClean.stderr).toBe(0);
      expect(replayClean.stdout).toContain('does not reproduce');
    });
  }

  it('paystorm repro: an unknown violation id is a usage error listing the known ones', { timeout: 60_000 }, async () => {
    const out = mkdtempSync(join(tmpdir(), 'paystorm-repro-'));
    await paystorm(['run', 'auth-and-input', '--bugs', 'pay-zero-amount-accepted', '--out', out, '--seed', '7']);
    const r = await paystorm(['repro', join(out, 'latest'), 'no-such-1']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('amount-minimum-1');
  });
});
