/**
 * The steps of `paystorm run` one at a time (src/cli/run-steps/): each takes what the earlier
 * ones gave it, so each can be run alone. Servers listen on port 0 only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { EXIT, PaystormError } from '../../src/spec/index.ts';
import { readRunSettings } from '../../src/cli/run-steps/settings.ts';
import { RunScope, type RunIo } from '../../src/cli/run-steps/scope.ts';
import { resolveTarget } from '../../src/cli/run-steps/target.ts';
import { openChaos } from '../../src/cli/run-steps/chaos.ts';
import { probeTarget } from '../../src/cli/run-steps/probe.ts';
import { judgeRun } from '../../src/cli/run-steps/judge.ts';
import { reportRun } from '../../src/cli/run-steps/report.ts';
import { endRec, ex, runRec } from '../oracle/fixtures.ts';

const KEY = 'svc_test_sk_abcdefgh1234';

function captured(): RunIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  return { stdout, stderr, out: () => out, err: () => err };
}

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'paystorm-steps-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('run steps', () => {
  it('settings: an embedded-only flag with --target stops the run before anything starts (exit 3)', async () => {
    const err = await readRunSettings({ target: 'http://127.0.0.1:9', keys: [KEY], timeScale: 0.1 }, captured()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaystormError);
    expect((err as PaystormError).exitCode).toBe(EXIT.usage);
    expect((err as Error).message).toMatch(/--time-scale only applies to the embedded target/);
  });

  it('settings: --webhook-retry-within is a duration longer than 0, refused by name otherwise (exit 3)', async () => {
    const ok = await readRunSettings({ out: tempDir(), scenarios: ['webhooks'], webhookRetryWithin: '1h' }, captured());
    expect(ok.webhookRetryWithinMs).toBe(3_600_000);
    // The embedded service's own first retry is known (about a second of its time): declared with the 5-minute bound.
    expect((await readRunSettings({ out: tempDir(), scenarios: ['webhooks'] }, captured())).webhookRetryWithinMs).toBe(300_000);
    // A remote target's is not known unless declared.
    expect((await readRunSettings({ out: tempDir(), scenarios: ['webhooks'], target: 'http://127.0.0.1:9', keys: [KEY] }, captured())).webhookRetryWithinMs).toBeUndefined();
    for (const [value, message] of [
      ['0s', /--webhook-retry-within: must be longer than 0/],
      ['5', /--webhook-retry-within: "5" has no unit/],
      ['soon', /--webhook-retry-within: expected a duration/],
    ] as const) {
      const err = await readRunSettings({ out: tempDir(), webhookRetryWithin: value }, captured()).catch((e: unknown) => e);
      expect(err, value).toBeInstanceOf(PaystormError);
      expect((err as PaystormError).exitCode).toBe(EXIT.usage);
      expect((err as Error).message).toMatch(message);
    }
  });

  it('resolve target, open chaos, probe on the embedded target; cleanup closes what they started', async () => {
    const io = captured();
    const settings = await readRunSettings({ out: tempDir(), scenarios: ['mixed'] }, io);
    expect(settings.embedded).toBe(true);
    const scope = new RunScope(io);
    try {
      const resolved = await resolveTarget(settings, scope);
      expect(resolved.receiver?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(resolved.stack).not.toBeNull();
      const chaos = await openChaos(settings, resolved, scope);
      expect(chaos.targetUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(chaos.chaos).not.toBeNull();
      const target = await probeTarget(settings, chaos.targetUrl, io);
      expect(target).toEqual({ url: chaos.targetUrl, embedded: true, presentation: 'B', rateLimit: { limit: 120, windowMs: 3_000 } });
      await scope.cleanup();
      await expect(fetch(`${chaos.targetUrl}/v1/payments`)).rejects.toThrow();
      await expect(fetch(resolved.receiver!.url)).rejects.toThrow();
      // Nothing measured, so no run folder.
      expect(existsSync(settings.runDir)).toBe(false);
    } finally {
      await scope.cleanup();
    }
  });

  it('--variant rate-limit-configured: the embedded service admits the variant\'s limit (not the embedded default) and the probe learns it; a different --rate-limit is refused', async () => {
    const io = captured();
    const settings = await readRunSettings({ out: tempDir(), scenarios: ['mixed'], variant: 'rate-limit-configured' }, io);
    const limit = settings.variant!.options.rateLimit!;
    expect(limit).not.toBe(120);
    const scope = new RunScope(io);
    try {
      const resolved = await resolveTarget(settings, scope);
      const chaos = await openChaos(settings, resolved, scope);
      const target = await probeTarget(settings, chaos.targetUrl, io);
      expect(target.rateLimit).toEqual({ limit, windowMs: 3_000 });
    } finally {
      await scope.cleanup();
    }
    const err = await readRunSettings({ out: tempDir(), variant: 'rate-limit-configured', rateLimit: 120 }, captured()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaystormError);
    expect((err as PaystormError).exitCode).toBe(EXIT.usage);
    expect((err as Error).message).toMatch(/drop --rate-limit 120/);
  });

  it('resolve target with --target: no receiver without --webhook-port, no embedded stack', async () => {
    const io = captured();
    const settings = await readRunSettings({ target: 'http://127.0.0.1:9', keys: [KEY], out: tempDir() }, io);
    const scope = new RunScope(io);
    expect(await resolveTarget(settings, scope)).toEqual({ receiver: null, stack: null });
    expect(io.err()).toMatch(/no --cards file/);
  });

  it('probe: an unreachable target is exit 4', async () => {
    const io = captured();
    const settings = await readRunSettings({ target: 'http://127.0.0.1:9', keys: [KEY], out: tempDir() }, io);
    const err = await probeTarget(settings, 'http://127.0.0.1:9', io).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaystormError);
    expect((err as PaystormError).exitCode).toBe(EXIT.target);
    expect((err as Error).message).toMatch(/is unreachable/);
  });

  it('probe: a server that is not this API is exit 4', async () => {
    const server: Server = createServer((_req, res) => res.writeHead(404).end('no'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const io = captured();
      const settings = await readRunSettings({ target: url, keys: [KEY], out: tempDir() }, io);
      const err = await probeTarget(settings, url, io).catch((e: unknown) => e);
      expect((err as PaystormError).exitCode).toBe(EXIT.target);
      expect((err as Error).message).toMatch(/does not look like the Card Payment Service API/);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  const history = () => [
    runRec({ scenarios: [{ name: 'mixed', rules: [] }] }),
    ...Array.from({ length: 30 }, (_, i) => ({ ...ex({ t: i * 10, status: 200 }), scenario: 'mixed' })),
    endRec({ tEnd: 1_000, requests: 30 }),
  ];

  it('judge: an in-memory history, with the scenario defaults from the code and the user thresholds', async () => {
    const summary = await judgeRun(history(), { thresholds: ['http_reqs: count>100'] }, false);
    const user = summary.thresholds.find((t) => t.expr === 'http_reqs: count>100');
    expect(user).toMatchObject({ ok: false, value: 30 });
    // mixed's own default threshold, taken from scenarios/mixed.ts since the run record names it only.
    expect(summary.thresholds.some((t) => t.expr.startsWith('http_req_failed'))).toBe(true);
    expect(summary.invariants.length).toBeGreaterThan(10);
    expect([EXIT.violation, EXIT.threshold]).toContain(summary.exitCode);
  });

  it('report: writes the reports into the run folder and <out>/latest, saves a baseline, prints the verdict', async () => {
    const out = tempDir();
    const runDir = join(out, 'run-1');
    const io = captured();
    const summary = await judgeRun(history(), { thresholds: [] }, false);
    const result = await reportRun(summary, { runDir, outDir: out, cfg: { saveBaseline: join(out, 'base') } }, io);
    expect(result).toEqual({ exitCode: summary.exitCode, summary, runDir });
    for (const f of ['summary.json', 'junit.xml', 'summary.md', 'report.html']) {
      expect(existsSync(join(runDir, f)), f).toBe(true);
      expect(existsSync(join(out, 'latest', f)), `latest/${f}`).toBe(true);
    }
    expect(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')).exitCode).toBe(summary.exitCode);
    expect(io.err()).toMatch(/baseline saved: /);
    expect(io.out()).toContain(`reports: ${runDir} (copied to ${join(out, 'latest')})`);
  });
});
