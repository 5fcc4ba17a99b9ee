/**
 * End to end through `paystorm run` on the embedded target (short runs): a refund-path variant
 * passes the refunds scenario and reports the served path as the `refund-path` finding; the
 * refund mutants fail the invariant citing their rule (the clean runs pass in the default-suite
 * and variant tests).
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarySchema, type Summary } from '../../src/spec/index.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function run(args: string[]): Promise<{ code: number | null; summary: Summary; stderr: string }> {
  const out = mkdtempSync(join(tmpdir(), 'paystorm-refunds-'));
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [join(root, 'bin/paystorm.js'), 'run', ...args, '--out', out, '--seed', '11'], { cwd: root, env: { ...process.env, CI: 'true' } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const hard = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', rej);
    child.on('close', (code) => {
      clearTimeout(hard);
      try {
        res({ code, stderr, summary: summarySchema.parse(JSON.parse(readFileSync(join(out, 'latest', 'summary.json'), 'utf8'))) });
      } catch (e) {
        rej(new Error(`no summary (exit ${code}): ${stderr.slice(-2000)} ${(e as Error).message}`));
      }
    });
  });
}

const status = (s: Summary, id: string) => s.invariants.find((i) => i.id === id)?.status;

describe('refunds end to end', () => {
  it('refund-path-refunds-only: the refunds scenario passes on the served path and says which it is', { timeout: 100_000 }, async () => {
    const r = await run(['refunds', '--variant', 'refund-path-refunds-only']);
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    const f = r.summary.findings?.find((x) => x.id === 'refund-path');
    expect(f?.text).toMatch(/serves POST \/v1\/refunds; POST \/v1\/payments\/\{id\}\/refund answered 405/);
    expect(status(r.summary, 'refund-accepted')).toBe('pass');
  });

  it('ref-stuck-pending fails refund-settles (REF-1)', { timeout: 100_000 }, async () => {
    const r = await run(['refunds', '--bugs', 'ref-stuck-pending']);
    expect(r.code).toBe(1);
    expect(status(r.summary, 'refund-settles')).toBe('fail');
    expect(r.summary.invariants.find((i) => i.id === 'refund-settles')!.examples[0].message).toMatch(/still pending .* after it was made/);
  });

  it('ref-accepts-bad-amount fails bad-refund-no-effect (REF-4)', { timeout: 100_000 }, async () => {
    const r = await run(['auth-and-input', '--bugs', 'ref-accepts-bad-amount']);
    expect(r.code).toBe(1);
    expect(status(r.summary, 'bad-refund-no-effect')).toBe('fail');
  });
});
