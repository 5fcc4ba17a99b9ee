/**
 * paystorm against a target it did not start: `paystorm serve` in its own process,
 * `paystorm run --target` with keys, a cards file and a webhook receiver the
 * target delivers to. This is the path a staging deployment takes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TEST_CARDS } from '../../src/spec/index.ts';
import { DEFAULT_KEYS } from '../../src/target/index.ts';
import { portBelowEphemeralRange } from './ports.ts';
import { historyPathOf, historyRecords, historyText } from '../history-file.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/paystorm.js');
const SECRET = 'whsec_remoteTargetTest000000000000';

const receiverPort = () => portBelowEphemeralRange();

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, CI: 'true' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const hard = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('close', (code) => {
      clearTimeout(hard);
      res({ code, stdout, stderr });
    });
  });
}

let serve: ChildProcess;
let targetUrl = '';
let webhookPort = 0;
const dir = mkdtempSync(join(tmpdir(), 'paystorm-remote-'));
const cardsFile = join(dir, 'cards.json');
const keyArgs = DEFAULT_KEYS.filter((k) => k.key.includes('_test_') && k.direct_api).flatMap((k) => ['--key', `${k.merchant}:${k.key}`]);

beforeAll(async () => {
  webhookPort = await receiverPort();
  writeFileSync(cardsFile, JSON.stringify(DEFAULT_TEST_CARDS));
  serve = spawn(process.execPath, [bin, 'serve', '--port', '0', '--presentation', 'A', '--rate-limit', '150', '--window-ms', '3000', '--time-scale', '0.05', '--webhook-url', `http://127.0.0.1:${webhookPort}/hooks/test`, '--webhook-secret', SECRET, '--webhook-timeout-ms', '1000'], {
    cwd: root,
  });
  targetUrl = await new Promise<string>((res, rej) => {
    let buf = '';
    serve.stdout!.on('data', (d) => {
      buf += d;
      const m = buf.match(/listening (http:\/\/\S+)/);
      if (m) res(m[1]);
    });
    serve.on('exit', (c) => rej(new Error(`serve exited ${c}`)));
  });
}, 30_000);

afterAll(() => {
  serve?.kill('SIGTERM');
});

describe('paystorm run --target (a service it did not start)', () => {
  it('detects presentation A, judges idempotency and refunds with webhooks, and passes', async () => {
    const out = join(dir, 'out');
    const r = await run(['run', 'idempotency', 'refunds', '--target', targetUrl, ...keyArgs, '--cards', cardsFile, '--webhook-port', String(webhookPort), '--webhook-secret', SECRET, '--out', out, '--seed', '5', '--settle-bound', '5s', '--window-ms', '3000']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const runDir = join(out, readdirSync(out).filter((d) => d !== 'latest')[0]);
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    expect(summary.target).toMatchObject({ url: targetUrl, embedded: false, presentation: 'A' });
    const history = (await historyRecords(runDir)) as any[];
    const run0 = history[0];
    expect(run0.kind).toBe('run');
    expect(run0.rateLimit.limit).toBe(150);
    // The receiver got signed deliveries from the target, on the path the target was configured with.
    const hooks = history.filter((h) => h.kind === 'webhook');
    expect(hooks.length).toBeGreaterThan(0);
    expect(hooks.every((h) => h.signature === 'ok' && h.path === '/hooks/test')).toBe(true);
    // A real target gets the default fail share too (test-mode events only), and the report says so.
    expect(run0.webhooks.failShare).toBe(0.2);
    expect(hooks.filter((h) => h.answered === 500).every((h) => h.livemode === false)).toBe(true);
    expect(summary.findings.map((f: { id: string }) => f.id)).toContain('webhook-failures-injected');
    // Refund rules were judged, not skipped.
    const ref3 = summary.invariants.find((i: { rules: string[] }) => i.rules.includes('REF-3'));
    expect(ref3.status).toBe('pass');
  });

  it('a --webhook-port already in use is a usage error that names the option (exit 3)', async () => {
    const holder = createServer();
    await new Promise<void>((res) => holder.listen(0, '0.0.0.0', () => res()));
    const taken = (holder.address() as { port: number }).port;
    try {
      const r = await run(['run', 'refunds', '--target', targetUrl, ...keyArgs, '--cards', cardsFile, '--webhook-port', String(taken), '--webhook-secret', SECRET, '--out', join(dir, 'out-port-taken'), '--seed', '5', '--window-ms', '3000']);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(new RegExp(`--webhook-port: port ${taken} is in use`));
    } finally {
      await new Promise<void>((res) => holder.close(() => res()));
    }
  });

  it('a wrong webhook secret is caught as a signature violation (WH-1)', async () => {
    const out = join(dir, 'out-bad-secret');
    const r = await run(['run', 'refunds', '--target', targetUrl, ...keyArgs, '--cards', cardsFile, '--webhook-port', String(webhookPort), '--webhook-secret', 'whsec_notTheTargetsSecret', '--webhook-fail-share', '0', '--out', out, '--seed', '5', '--window-ms', '3000']);
    expect(r.code).toBe(1);
    const summary = JSON.parse(readFileSync(join(out, 'latest', 'summary.json'), 'utf8'));
    // --webhook-fail-share 0 keeps every delivery unfailed, and no finding claims otherwise.
    expect(JSON.parse((await historyText(join(out, 'latest'))).split('\n')[0]).webhooks.failShare).toBe(0);
    expect((summary.findings ?? []).map((f: { id: string }) => f.id)).not.toContain('webhook-failures-injected');
    const wh1 = summary.invariants.find((i: { rules: string[] }) => i.rules.includes('WH-1'));
    expect(wh1.status).toBe('fail');
  });

  it('without --window-ms, a target whose window is not the spec\'s 60 s is named in a warning', async () => {
    // The earlier runs ended more than one window ago, so this probe opens a fresh window.
    await new Promise((r) => setTimeout(r, 3_500));
    const out = join(dir, 'out-window');
    const r = await run(['run', 'idempotency', '--target', targetUrl, ...keyArgs, '--cards', cardsFile, '--out', out, '--seed', '5']);
    expect(r.stderr).toMatch(/rate window looks like about [34] s .*not the 60 s the spec fixes.*--window-ms/);
  });
});
