import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PaystormError } from '../../src/spec/index.ts';
import { serveOptionsFromArgs } from '../../src/cli/commands/serve.ts';
import { KEYS, http, until } from './helpers.ts';

const BIN = join(import.meta.dirname, '../../bin/paystorm.js');
const children = new Set<ChildProcess>();
afterEach(() => {
  // Only the children this file started, by their pid.
  for (const c of children) if (c.exitCode === null && c.pid) process.kill(c.pid, 'SIGKILL');
  children.clear();
});

function run(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

describe('paystorm serve', () => {
  it('prints the URL and the upstream, serves the API, and exits 0 on SIGTERM', async () => {
    const p = run(['serve', '--port', '0', '--time-scale', '0.01', '--presentation', 'A', '--rate-limit', '7', '--window-ms', '2000']);
    const line = await until(() => /listening (http:\/\/127\.0\.0\.1:\d+)\n/.exec(p.out()), 20_000, 25);
    await until(() => /upstream http:\/\/127\.0\.0\.1:\d+/.test(p.out()), 5000, 25);
    const url = line[1];
    const r = await http(url, 'GET', '/v1/payments', { key: KEYS.acmeTest });
    expect(r.status).toBe(200);
    expect(r.headers['x-ratelimit-limit']).toBe('7');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('exits 0 on SIGINT too, with --keys, --cards and --bugs files applied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paystorm-serve-'));
    const keysFile = join(dir, 'keys.json');
    writeFileSync(keysFile, JSON.stringify([{ key: 'svc_test_sk_customKey0000000000000000000000', merchant: 'm1', direct_api: true }]));
    const cardsFile = join(dir, 'cards.json');
    writeFileSync(cardsFile, JSON.stringify({ succeeds: '5555555555554444' }));
    const p = run(['serve', '--port', '0', '--time-scale', '0.01', '--keys', keysFile, '--cards', cardsFile, '--bugs', 'err-missing-request-id']);
    const url = (await until(() => /listening (http:\/\/127\.0\.0\.1:\d+)\n/.exec(p.out()), 20_000, 25))[1];
    expect((await http(url, 'GET', '/v1/payments', { key: KEYS.acmeTest })).status).toBe(401);
    const ok = await http(url, 'GET', '/v1/payments/pay_x', { key: 'svc_test_sk_customKey0000000000000000000000' });
    expect(ok.status).toBe(404);
    expect(ok.json.error.request_id).toBeUndefined();
    p.child.kill('SIGINT');
    expect(await p.exited).toBe(0);
  });

  it('refuses a bad flag with a message naming it, and exit code 3', async () => {
    const p = run(['serve', '--port', '0', '--window-ms', '1500']);
    expect(await p.exited).toBe(3);
    expect(p.err()).toMatch(/--window-ms: must be whole seconds/);
  });

  it('names the flag and the fix for every kind of bad value (exit code 3)', () => {
    const base = { port: 0, host: '127.0.0.1', presentation: 'B', 'rate-limit': 500, 'window-ms': 60000, 'time-scale': 1, 'upstream-backlog': 10000, 'webhook-secret': 'whsec_abcdefgh1234', 'webhook-timeout-ms': 10000 };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ port: 70000 }, /--port: expected an integer from 0 to 65535/],
      [{ presentation: 'C' }, /--presentation: expected A or B/],
      [{ 'rate-limit': 0 }, /--rate-limit: expected an integer/],
      [{ 'window-ms': 2500 }, /--window-ms: must be whole seconds/],
      [{ 'time-scale': 0 }, /--time-scale: expected a number above 0/],
      [{ 'upstream-url': 'localhost:4011' }, /--upstream-url: expected an http\(s\) URL/],
      [{ bugs: 'rl-off-by-one,no-such-bug' }, /--bugs: unknown bug name\(s\) no-such-bug/],
      [{ keys: '/nonexistent/keys.json' }, /--keys: cannot read/],
      [{ cards: '/nonexistent/cards.json' }, /--cards: cannot read/],
      [{ 'webhook-url': ['acme:prod=http://127.0.0.1:1/x'] }, /--webhook-url: mode "prod" must be test or live/],
      [{ 'webhook-secret': 'nope' }, /--webhook-secret: expected a signing secret/],
      [{ 'webhook-timeout-ms': -1 }, /--webhook-timeout-ms: expected an integer/],
    ];
    for (const [over, message] of cases) {
      let err: unknown;
      try {
        serveOptionsFromArgs({ ...base, ...over } as never);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(over)).toBeInstanceOf(PaystormError);
      expect((err as PaystormError).exitCode).toBe(3);
      expect((err as Error).message).toMatch(message);
    }
    const dir = mkdtempSync(join(tmpdir(), 'paystorm-serve-'));
    const badKeys = join(dir, 'keys.json');
    writeFileSync(badKeys, JSON.stringify([{ key: 'sk_short', merchant: 'm' }]));
    expect(() => serveOptionsFromArgs({ ...base, keys: badKeys } as never)).toThrow(/--keys: .*0\.key/);
    const ok = serveOptionsFromArgs({ ...base, 'webhook-url': ['acme:test=http://127.0.0.1:1/x'], bugs: 'rl-off-by-one' } as never);
    expect(ok).toMatchObject({ webhookUrls: [{ merchant: 'acme', mode: 'test', url: 'http://127.0.0.1:1/x' }], bugs: ['rl-off-by-one'], upstreamPortGiven: false });
  });
});
