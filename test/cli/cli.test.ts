/**
 * The `paystorm` binary as CI calls it: exit codes, messages that name the flag,
 * reports on disk, and a saved run judged again by `check`.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarySchema } from '../../src/spec/index.ts';
import { HistoryWriter, type HistoryRecord } from '../../src/history/index.ts';
import { historyPathOf, historyRecords, historyText } from '../history-file.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/paystorm.js');

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function paystorm(args: string[], opts: { interruptWhen?: (stderr: string) => boolean; timeoutMs?: number } = {}): Promise<Result> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, CI: 'true' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    let interrupted = false;
    child.stderr.on('data', (d) => {
      stderr += d;
      // SIGINT on an observed event (not a timer, which a busy machine makes flaky).
      if (!interrupted && opts.interruptWhen?.(stderr)) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    const hard = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', rej);
    child.on('close', (code) => {
      clearTimeout(hard);
      res({ code, stdout, stderr });
    });
  });
}

const out = () => mkdtempSync(join(tmpdir(), 'paystorm-cli-'));
const onlyRun = (dir: string) => readdirSync(dir).filter((d) => d !== 'latest')[0];

// Short processes that refuse at once: run side by side.
describe.concurrent('usage errors exit 3 and name the flag', () => {
  it('a malformed key', async () => {
    const r = await paystorm(['run', '--target', 'http://127.0.0.1:9', '--key', 'sk_test_abc']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/--key: .*svc_test_sk_/);
    expect(r.stderr).not.toContain('sk_test_abc');
  });
  it('a live key without --allow-live', async () => {
    const r = await paystorm(['run', '--target', 'http://127.0.0.1:9', '--key', 'acme:svc_live_sk_abcdefghijkl1234']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/acme\/live\/…1234 is a live key.*--allow-live/);
    expect(r.stderr).not.toContain('svc_live_sk_abcdefghijkl1234');
  });
  it('an unknown scenario', async () => {
    const r = await paystorm(['run', 'nope']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/unknown scenario "nope". Available: .*mixed/);
  });
  it('a bad config file names the field path', async () => {
    const dir = out();
    const cfg = join(dir, 'paystorm.config.json');
    writeFileSync(cfg, JSON.stringify({ rate: 'fast', windowMs: 2500 }));
    const r = await paystorm(['run', '--config', cfg]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/rate:/);
    expect(r.stderr).toMatch(/windowMs: .*whole seconds/);
  });
  it('an embedded-only flag with --target', async () => {
    // --window-ms is allowed with --target (it declares the deployment's window); --time-scale is not.
    const r = await paystorm(['run', '--target', 'http://127.0.0.1:9', '--key', 'svc_test_sk_abcdefgh1234', '--time-scale', '0.1']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/--time-scale: only applies to the embedded target/);
  });
});

// Short processes that refuse at once: run side by side.
describe.concurrent('bad input is refused before any load (exit 3), and nothing is left behind', () => {
  it('every bad flag at once, before a single request; no run folder', async () => {
    const dir = out();
    const r = await paystorm(['run', 'idempotency', '--out', dir, '--threshold', 'no_such_metric: p(99)<1', '--threshold', 'http_req_duration: p(99)<<1', '--duration', '5']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/3 problems with the options; nothing was run/);
    expect(r.stderr).toMatch(/--threshold: threshold "no_such_metric: p\(99\)<1": unknown metric/);
    expect(r.stderr).toMatch(/--threshold: threshold "http_req_duration: p\(99\)<<1" is not in k6's form/);
    expect(r.stderr).toMatch(/--duration: "5" has no unit. .*"5s"/);
    expect(r.stdout).toBe('');
    expect(readdirSync(dir)).toEqual([]);
  });
  it('a bare number as a config file duration names the field and the accepted forms', async () => {
    const dir = out();
    const cfg = join(dir, 'paystorm.config.json');
    writeFileSync(cfg, JSON.stringify({ duration: 5 }));
    const r = await paystorm(['run', 'idempotency', '--config', cfg, '--out', join(dir, 'reports')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${cfg} duration: 5 has no unit. Write a number with its unit: ms, s, m or h`);
    expect(existsSync(join(dir, 'reports'))).toBe(false);
  });
  it('an --out that cannot be written', async () => {
    const dir = out();
    writeFileSync(join(dir, 'file'), '');
    const r = await paystorm(['run', 'idempotency', '--out', join(dir, 'file')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/--out: .*file is a file, not a directory/);
  });
  it('an unreachable --toxiproxy: one sentence, no stack trace, no run folder', async () => {
    const dir = out();
    const r = await paystorm(['run', 'chaos', '--toxiproxy', 'http://127.0.0.1:9', '--out', dir]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/--toxiproxy: .*cannot reach Toxiproxy at http:\/\/127.0.0.1:9/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(readdirSync(dir)).toEqual([]);
  });
  it('check on an empty history or another tool\'s JSON: exit 3, says what it found, writes nothing', async () => {
    const dir = out();
    writeFileSync(join(dir, 'history.ndjson'), '');
    const empty = await paystorm(['check', dir]);
    expect(empty.code).toBe(3);
    expect(empty.stderr).toMatch(/history.ndjson: the file is empty: there is nothing to judge.*expected a paystorm history: the history.bin.gz of a run/);
    const report = await paystorm(['report', dir]);
    expect(report.code).toBe(3);
    expect(report.stderr).toMatch(/history.ndjson: the file is empty/);
    const other = join(dir, 'package.json');
    writeFileSync(other, JSON.stringify({ name: 'x', version: '1.0.0', dependencies: {} }, null, 2));
    const foreign = await paystorm(['check', other]);
    expect(foreign.code).toBe(3);
    expect(foreign.stderr).toMatch(/package.json: the file is one JSON document \(a JSON object with keys name, version, dependencies\), not a paystorm history; expected/);
    expect(foreign.stderr).not.toMatch(/corrupt/);
    expect(readdirSync(dir).sort()).toEqual(['history.ndjson', 'package.json']);
  });
});

describe('target problems exit 4', () => {
  it('an unreachable target', async () => {
    const dir = out();
    const r = await paystorm(['run', 'idempotency', '--target', 'http://127.0.0.1:9', '--key', 'svc_test_sk_abcdefgh1234', '--out', dir]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/unreachable.*--target/);
    // A failed start leaves no run folder behind.
    expect(readdirSync(dir)).toEqual([]);
  });
  it('doctor on an unreachable target', async () => {
    const r = await paystorm(['doctor', '--target', 'http://127.0.0.1:9', '--key', 'svc_test_sk_abcdefgh1234']);
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/FAIL\s+target .*unreachable/);
  });
});

describe('runs against the embedded target', () => {
  it('a passing run exits 0, writes every report, and check agrees', async () => {
    const dir = out();
    const r = await paystorm(['run', 'idempotency', '--out', dir, '--seed', '7']);
    expect(r.stderr + r.stdout).not.toMatch(/svc_test_sk_acme/);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const runDir = join(dir, onlyRun(dir));
    for (const f of ['summary.json', 'junit.xml', 'summary.md', 'report.html', 'history.bin.gz']) {
      expect(existsSync(join(runDir, f)), f).toBe(true);
      expect(existsSync(join(dir, 'latest', f)), `latest/${f}`).toBe(true);
    }
    const summary = summarySchema.parse(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')));
    expect(summary.verdict).toBe('pass');
    expect(summary.complete).toBe(true);
    expect(summary.invariants.some((i) => i.rules.includes('IDEM-6') && i.status === 'pass')).toBe(true);
    // No key secret in any artifact.
    const history = await historyText(runDir);
    expect(history).not.toMatch(/_sk_[A-Za-z0-9]{8,}/);
    // The run record declares the embedded service's 3DS time-out (SM-4) and its endpoint per mode (WH-10).
    const run = JSON.parse(history.slice(0, history.indexOf('\n')));
    expect(run.challengeTimeoutMs).toBe(15_000);
    expect(run.webhooks.endpoints).toEqual([
      { path: '/webhooks/test', mode: 'test' },
      { path: '/webhooks/live', mode: 'live' },
    ]);
    // `check` judges the saved history exactly as the live run did: same verdict, invariant by invariant.
    const again = await paystorm(['check', runDir]);
    expect(again.code).toBe(0);
    const rejudged = summarySchema.parse(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')));
    const statuses = (s: typeof summary) => Object.fromEntries(s.invariants.map((i) => [i.id, [i.status, i.violations, i.checked]]));
    expect(rejudged.verdict).toBe(summary.verdict);
    expect(statuses(rejudged)).toEqual(statuses(summary));
  });

  it('a breached threshold alone exits 2', async () => {
    const dir = out();
    const r = await paystorm(['run', 'idempotency', '--out', dir, '--seed', '7', '--threshold', 'http_req_duration{op:create}: p(99)<0.001']);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toMatch(/breached/);
  });

  it('a seeded bug exits 1 with the rule it breaks', async () => {
    const dir = out();
    const r = await paystorm(['run', 'idempotency', '--out', dir, '--seed', '7', '--bugs', 'idem-no-inflight-lock']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const summary = JSON.parse(readFileSync(join(dir, 'latest', 'summary.json'), 'utf8'));
    const failing = summary.invariants.filter((i: { status: string }) => i.status === 'fail');
    expect(failing.flatMap((i: { rules: string[] }) => i.rules)).toEqual(expect.arrayContaining(['IDEM-6']));
  });

  it('a test key answered with live data stops the run at once', async () => {
    const dir = out();
    const r = await paystorm(['run', 'lists', '--out', dir, '--seed', '3', '--bugs', 'list-leaks-live']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toMatch(/STOP: a response to test key \S+ carried livemode: true/);
    const summary = JSON.parse(readFileSync(join(dir, 'latest', 'summary.json'), 'utf8'));
    expect(summary.complete).toBe(false);
    expect(summary.invariants.find((i: { rules: string[] }) => i.rules.includes('AUTH-5')).status).toBe('fail');
  });

  it('SIGINT stops the run, keeps what was measured, and exits 130', async () => {
    const dir = out();
    // Interrupted once the first progress line shows requests were made.
    const r = await paystorm(['run', 'mixed', '--out', dir, '--seed', '7', '--duration', '60s'], { interruptWhen: (err) => /^paystorm \S+ .*\b[1-9]\d* req\b/m.test(err) });
    expect(r.code, r.stdout + r.stderr).toBe(130);
    const summary = JSON.parse(readFileSync(join(dir, 'latest', 'summary.json'), 'utf8'));
    expect(summary.complete).toBe(false);
    expect(summary.exitCode).toBe(130);
    expect(summary.metrics.requests).toBeGreaterThan(0);
    // Stopped in its middle: the summary says so (scenarios[].status), not that it ran.
    expect(summary.scenarios).toEqual([expect.objectContaining({ name: 'mixed', status: 'cut-short' })]);
    // Every exchange counted live reached the file (the history worker flushes on the way out).
    const lines = (await historyText(join(dir, 'latest'))).trimEnd().split('\n');
    const exchanges = lines.filter((l) => l.startsWith('{"v":1,"kind":"exchange"'));
    expect(exchanges.length).toBe(summary.metrics.requests);
    expect(JSON.parse(lines[lines.length - 1]).kind).toBe('end');
  }, 90_000);

  it('scenarios lists each scenario with its rules', async () => {
    const r = await paystorm(['scenarios', '--json']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as { name: string; rules: string[] }[];
    expect(list.map((s) => s.name)).toEqual(expect.arrayContaining(['mixed', 'rate-limit', 'idempotency', 'refunds', 'lists', 'flows', 'webhooks', 'auth-and-input', 'soak', 'chaos']));
    for (const s of list) expect(s.rules.length, s.name).toBeGreaterThan(0);
  });
  it('history prints a saved history as NDJSON, one kind on request; a missing path is exit 3', async () => {
    const dir = out();
    const path = join(dir, 'history.bin.gz');
    const records = [
      { v: 1, kind: 'end', tEnd: 1, wall: 1, complete: true, reason: 'done', requests: 0, dropped: 0 },
      { v: 1, kind: 'fault', proxy: 'p', link: 'upstream', toxic: { name: 't', type: 'latency', stream: 'downstream', toxicity: 1, attributes: { latency: 5 } }, tStart: 0, tEnd: 1, wallStart: 0 },
    ];
    const w = new HistoryWriter({ path });
    for (const r of records) w.write(r as HistoryRecord);
    await w.close();
    const all = await paystorm(['history', dir]);
    expect(all.code).toBe(0);
    expect(all.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual(records);
    const faults = await paystorm(['history', path, '--kind', 'fault']);
    expect(faults.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([records[1]]);
    const missing = await paystorm(['history', join(dir, 'nope')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/no run directory or history file at .*nope/);
  });
});
