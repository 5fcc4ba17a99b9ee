/**
 * Webhook retries judged on a target paystorm did not start (`paystorm serve` in its own
 * process, `paystorm run --target`): with no --webhook-fail-share the receiver fails a share of
 * test-mode deliveries anyway, so a service that gives a retry a new event id fails WH-8 while
 * the clean service passes it and WH-9; the report's finding says what was failed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TEST_CARDS } from '../../src/spec/index.ts';
import { DEFAULT_KEYS } from '../../src/target/index.ts';
import { portBelowEphemeralRange } from './ports.ts';
import { historyPathOf, historyRecords, historyText } from '../history-file.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/paystorm.js');
const SECRET = 'whsec_remoteRetriesTest00000000000';
const dir = mkdtempSync(join(tmpdir(), 'paystorm-remote-retries-'));
const cardsFile = join(dir, 'cards.json');
writeFileSync(cardsFile, JSON.stringify(DEFAULT_TEST_CARDS));
const keyArgs = DEFAULT_KEYS.filter((k) => k.key.includes('_test_') && k.direct_api).flatMap((k) => ['--key', `${k.merchant}:${k.key}`]);
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
});

const receiverPort = () => portBelowEphemeralRange();

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, CI: 'true' } });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const hard = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(hard);
      res({ code, stdout, stderr });
    });
  });
}

/** Serves the reference service (with `bugs`) delivering to a fresh receiver port; runs `webhooks` against it. */
async function remoteWebhooksRun(name: string, bugs: string[]) {
  const port = await receiverPort();
  const serve = spawn(process.execPath, [bin, 'serve', '--port', '0', '--time-scale', '0.05', '--webhook-url', `http://127.0.0.1:${port}/hooks`, '--webhook-secret', SECRET, '--webhook-timeout-ms', '1000', ...(bugs.length ? ['--bugs', bugs.join(',')] : [])], { cwd: root });
  children.push(serve);
  const target = await new Promise<string>((res, rej) => {
    let buf = '';
    serve.stdout!.on('data', (d) => {
      buf += d;
      const m = buf.match(/listening (http:\/\/\S+)/);
      if (m) res(m[1]);
    });
    serve.on('exit', (c) => rej(new Error(`serve exited ${c}`)));
  });
  const out = join(dir, name);
  // --duration bounds the scenario's wait for deliveries and retries (retries come within ~1 s at this time scale).
  const r = await run(['run', 'webhooks', '--target', target, ...keyArgs, '--cards', cardsFile, '--webhook-port', String(port), '--webhook-secret', SECRET, '--duration', '8s', '--out', out, '--seed', '9']);
  serve.kill('SIGTERM');
  const summary = JSON.parse(readFileSync(join(out, 'latest', 'summary.json'), 'utf8'));
  const history = (await historyRecords(join(out, 'latest'))) as any[];
  const inv = (id: string) => summary.invariants.find((i: { id: string }) => i.id === id);
  return { r, summary, history, inv };
}

describe('webhook retries on a remote target, with the receiver\'s default fail share', () => {
  it('a new event id on retry fails WH-8; the clean service keeps WH-8 and WH-9', async () => {
    const [clean, bugged] = await Promise.all([remoteWebhooksRun('clean', []), remoteWebhooksRun('new-id', ['wh-new-id-on-retry'])]);
    for (const x of [clean, bugged]) {
      expect(x.history[0].target.embedded, x.r.stderr).toBe(false);
      expect(x.history[0].webhooks.failShare).toBe(0.2);
      expect(x.history.some((h: { kind: string; answered?: number }) => h.kind === 'webhook' && h.answered === 500)).toBe(true);
      expect(x.summary.findings.map((f: { id: string }) => f.id)).toContain('webhook-failures-injected');
    }
    expect(clean.inv('retries-keep-event-id').status).toBe('pass');
    expect(clean.inv('failed-delivery-retried').status).toBe('pass');
    const wh8 = bugged.inv('retries-keep-event-id');
    expect(wh8.status).toBe('fail');
    expect(wh8.rules).toEqual(['WH-8']);
    expect(bugged.r.code).toBe(1);
  }, 120_000);
});
