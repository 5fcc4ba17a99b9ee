/**
 * --webhook-retry-within (WH-9 has no first retry delay in the spec): the declared bound is
 * recorded in the run record, sizes the webhooks scenario's wait and is what the oracle waits
 * before calling a failed delivery "not retried". The wait ends as soon as every failed delivery
 * was retried and the run's own events are due, so a conforming service does not make the run
 * sit out the whole bound; a service that never retries is still caught within it.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { historyRecords } from '../history-file.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(join(tmpdir(), 'paystorm-retry-wait-'));

function run(name: string, extra: string[]): Promise<{ code: number | null; stderr: string; summary: any; history: any[] }> {
  const out = join(dir, name);
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [join(root, 'bin/paystorm.js'), 'run', 'webhooks', '--out', out, '--seed', '9', ...extra], { cwd: root, env: { ...process.env, CI: 'true' } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.resume();
    const hard = setTimeout(() => child.kill('SIGKILL'), 100_000);
    child.on('error', rej);
    child.on('close', async (code) => {
      clearTimeout(hard);
      try {
        const summary = JSON.parse(readFileSync(join(out, 'latest', 'summary.json'), 'utf8'));
        res({ code, stderr, summary, history: (await historyRecords(join(out, 'latest'))) as any[] });
      } catch (e) {
        rej(new Error(`${(e as Error).message}\n${stderr.slice(-2000)}`));
      }
    });
  });
}

const inv = (s: any, id: string) => s.invariants.find((i: { id: string }) => i.id === id);

describe('--webhook-retry-within', () => {
  it('a conforming service: recorded, the wait ends once every failed delivery was retried, WH-5/WH-9 judged', { timeout: 120_000 }, async () => {
    const r = await run('clean', ['--webhook-retry-within', '2m']);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.history[0].webhooks.retryWithinMs).toBe(120_000);
    expect(r.stderr).toMatch(/awaiting a retry; waiting up to \d+ ms for retries/);
    expect(r.stderr).toMatch(/deliveries in all, none awaiting a retry/);
    expect(inv(r.summary, 'failed-delivery-retried').status).toBe('pass');
    expect(inv(r.summary, 'terminal-refund-event').status).toBe('pass');
    // Ended early: the bound here is 0.5 s + 2m15s x 0.05 = 7.25 s after the deliveries arrived.
    const lastDelivery = Math.max(...r.history.filter((h) => h.kind === 'webhook').map((h) => h.tReceived));
    const end = r.history.find((h) => h.kind === 'end');
    expect(end.tEnd - lastDelivery).toBeLessThan(6_000);
  });

  it('a service that never retries fails WH-9 once the declared bound has passed', { timeout: 120_000 }, async () => {
    const r = await run('no-retry', ['--webhook-retry-within', '20s', '--bugs', 'wh-no-retry']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/still awaiting a retry/);
    const wh9 = inv(r.summary, 'failed-delivery-retried');
    expect(wh9.status).toBe('fail');
    expect(wh9.examples[0].message).toMatch(/was not retried in the \d+ s the run went on/);
  });
});

describe('a conforming service that first retries after more than 5 minutes (variant slow-first-retry)', () => {
  it('passes when its delay is declared (the embedded variant declares it), and the 5-minute assumption would fail it', { timeout: 150_000 }, async () => {
    const [declared, assumed] = await Promise.all([run('slow-declared', ['--variant', 'slow-first-retry']), run('slow-assumed', ['--variant', 'slow-first-retry', '--webhook-retry-within', '5m'])]);
    // 2 x its 20 s first retry, in its own time at the default time scale 0.05.
    expect(declared.history[0].webhooks.retryWithinMs).toBe(800_000);
    expect(declared.code, declared.stderr.slice(-2000)).toBe(0);
    expect(inv(declared.summary, 'failed-delivery-retried').status).toBe('pass');
    // A retry seen 20 s after the failure: the wait let it in.
    const retries = declared.history.filter((h) => h.kind === 'webhook' && h.duplicate);
    expect(retries.length).toBeGreaterThan(0);
    expect(assumed.history[0].webhooks.retryWithinMs).toBe(300_000);
    expect(inv(assumed.summary, 'failed-delivery-retried').status).toBe('fail');
  });
});
