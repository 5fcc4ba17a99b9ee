/**
 * `paystorm merge` checks that its shards are one test of one service before it judges them as
 * one run (src/history/shard-compat.ts), through the real CLI: shards of two services, two
 * deployments, two environments or two tests are refused (exit 3, naming the shards and what
 * differs, nothing written); --allow-mixed-shards merges them and the reports say so; a
 * k6-operator fleet and paystorm runs side by side merge without a word.
 *
 * The k6 shards are small `--out json` files as paystorm's k6 scripts write them: a Metric line,
 * the `paystorm_run` point (run facts), `paystorm_exchange` points carrying exchange records,
 * and the `paystorm_end` marker (src/history/k6.ts reads them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceService, DEFAULT_KEYS } from '../../src/target/index.ts';
import type { Summary } from '../../src/spec/index.ts';
import type { ExchangeRecord, KeyInfo, RunRecord } from '../../src/history/index.ts';
import { historyRecords } from '../history-file.ts';
import { create, list } from '../oracle/fixtures.ts';
import { describeWithShared, sharedPath } from '../shared-files.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function paystorm(args: string[], timeoutMs = 90_000): Promise<Result> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'paystorm.js'), ...args], { cwd: ROOT, env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const hard = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', rej);
    child.on('close', (code) => {
      clearTimeout(hard);
      res({ code, stdout, stderr });
    });
  });
}

let work = '';
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'paystorm-merge-shards-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Epoch ms the k6 shards start at (whole seconds, so Date headers are simple). */
const T0 = Date.UTC(2026, 10, 28, 12, 45, 0);
const ACME = 'acme/test/…b605';
const GLOBEX = 'globex/test/…7d93';

function keyInfo(label: string): KeyInfo {
  const [merchant, mode, last4] = label.split('/');
  return { label, merchant, mode: mode as 'test' | 'live', last4: last4.replace('…', ''), prefix: `svc_${mode}_sk_` };
}

interface K6Shard {
  /** TARGET as the script recorded it; undefined writes no run facts (k6 output of scripts from before them). */
  target?: string;
  presentation?: 'A' | 'B';
  keys?: string[];
  start?: number;
  durationMs?: number;
  /** k6's executionSegment of a k6-operator runner, as the end marker's evidence carries it. */
  segment?: string;
  /** Exchanges at run times (ms from `start`); default: a list by each key every second. */
  exchanges?: (start: number) => ExchangeRecord[];
}

/** One exchange as k6/lib/record.ts writes it: epoch-ms times, the answer's Date header and rate headers. */
function k6Exchange(x: ExchangeRecord, start: number, i: number): ExchangeRecord {
  const tStart = start + x.tStart;
  const tEnd = start + x.tEnd;
  return { ...x, seq: 0, scenario: 'mixed', tIntended: tStart, tStart, tEnd, wall: tStart, date: Math.floor(tStart / 1000), rate: { limit: 500, remaining: 499 - i, reset: Math.floor(start / 60_000) * 60 + 60 } };
}

/** Writes a k6 --out json file (gzipped) of paystorm's mixed script and returns its path. */
function k6File(name: string, o: K6Shard = {}): string {
  const start = o.start ?? T0;
  const durationMs = o.durationMs ?? 10_000;
  const keys = o.keys ?? [ACME, GLOBEX];
  const iso = (ms: number) => new Date(ms).toISOString();
  const point = (ms: number, value: number, meta: Record<string, string> | null, metric = 'paystorm_exchange') =>
    JSON.stringify({ metric, type: 'Point', data: { time: iso(ms), value, tags: { group: '' }, ...(meta ? { metadata: meta } : {}) } });
  const lines = [JSON.stringify({ type: 'Metric', data: { name: 'paystorm_exchange', type: 'counter', contains: 'default', thresholds: [], submetrics: null }, metric: 'paystorm_exchange' })];
  const xs = (o.exchanges?.(start) ?? keys.flatMap((key, k) => Array.from({ length: Math.floor(durationMs / 1000) - 1 }, (_, s) => list([], { t: 1000 * (s + 1) + 10 * k, dur: 5, key })))).map((x, i) => k6Exchange(x, start, i));
  if (o.target === undefined) {
    // Scripts from before the recorder: http_reqs points only.
    for (const x of xs) lines.push(point(x.tEnd, 1, null, 'http_reqs'));
  } else {
    const facts = { script: 'mixed', target: o.target, presentation: o.presentation ?? 'B', rateLimit: { limit: 500, windowMs: 60_000 }, keys: keys.map(keyInfo), cardOutcomes: ['succeeds'], windowMs: 60_000, wall: start, endMarker: true };
    lines.push(point(start, 0, { paystorm_run: JSON.stringify(facts) }));
    for (const x of xs) lines.push(point(x.tEnd, 1, { paystorm_record: JSON.stringify(x) }));
    const end = { script: 'mixed', planRan: true, plannedMs: durationMs, plannedIterations: null, runMs: durationMs, setupMs: 5, iterationsCompleted: xs.length, iterationsInterrupted: 0, why: '', ...(o.segment ? { segment: o.segment } : {}), wall: start + durationMs };
    lines.push(point(start + durationMs, 0, { paystorm_end: JSON.stringify(end) }));
  }
  const path = join(work, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, gzipSync(lines.join('\n') + '\n'));
  return path;
}

const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;

/** Refused: exit 3, the message names every shard and `what`, offers the flag, and nothing is written. */
async function expectRefused(files: string[], what: RegExp): Promise<string> {
  const out = join(work, `refused-${Math.random().toString(36).slice(2)}`);
  const r = await paystorm(['merge', ...files, '--out', out]);
  expect(r.code, r.stderr + r.stdout).toBe(3);
  expect(r.stderr).toMatch(/paystorm: these shards are not one test of one service: /);
  expect(r.stderr).toMatch(what);
  for (const f of files) expect(r.stderr).toContain(f);
  expect(r.stderr).toMatch(/Keys per shard: /);
  expect(r.stderr).toContain('merge them anyway with --allow-mixed-shards');
  expect(existsSync(out)).toBe(false);
  return r.stderr;
}

describe('paystorm merge refuses shards that are not one test of one service (exit 3)', () => {
  // The issue's case: the same keys against two instances of the service (two ports). Shard a
  // makes a payment on one; shard b's list on the other cannot show it.
  const issueShards = () => [
    k6File('a.k6.json.gz', { target: 'http://127.0.0.1:35595', exchanges: () => [create({ t: 500, key: ACME, id: 'pay_00000000-0000-4000-8000-00000000a001' }), list([], { t: 900, key: GLOBEX })] }),
    k6File('b.k6.json.gz', { target: 'http://127.0.0.1:41001', exchanges: () => [list([], { t: 5_000, key: ACME })] }),
  ];

  it('two targets (same keys, two ports): names both shards and their targets, and each shard\'s keys', async () => {
    const [a, b] = issueShards();
    const text = await expectRefused([a, b], /shard \S*a\.k6\.json\.gz targets http:\/\/127\.0\.0\.1:35595, shard \S*b\.k6\.json\.gz targets http:\/\/127\.0\.0\.1:41001: they are runs against two services/);
    expect(text).toContain(`${a}: ${ACME}, ${GLOBEX}; ${b}: ${ACME}, ${GLOBEX}`);
  });

  it('presentation A vs B: two deployments', async () => {
    const a = k6File('pres-a.k6.json.gz', { target: 'http://payments.example', presentation: 'A' });
    const b = k6File('pres-b.k6.json.gz', { target: 'http://payments.example:80/', presentation: 'B', keys: ['m2/test/…0002'] });
    const text = await expectRefused([a, b], /shard \S*pres-a\.k6\.json\.gz saw presentation A, shard \S*pres-b\.k6\.json\.gz saw presentation B: two deployments/);
    // The same target written two ways is one target.
    expect(text).not.toMatch(/targets/);
  });

  it('test keys vs live keys: two environments', async () => {
    const a = k6File('mode-test.k6.json.gz', { target: 'http://payments.example', keys: [ACME] });
    const b = k6File('mode-live.k6.json.gz', { target: 'http://payments.example', keys: ['acme/live/…9f01'] });
    await expectRefused([a, b], /shard \S*mode-test\.k6\.json\.gz uses test keys only, shard \S*mode-live\.k6\.json\.gz uses live keys only: test and live mode are two environments/);
  });

  it('spans that do not overlap (beyond the clocks\' slack): two tests', async () => {
    const a = k6File('early.k6.json.gz', { target: 'http://payments.example' });
    const b = k6File('late.k6.json.gz', { target: 'http://payments.example', start: T0 + 10_000 + 5 * 60_000 });
    await expectRefused([b, a], /shard \S*early\.k6\.json\.gz ran 2026-11-28T12:45:00Z to 2026-11-28T12:45:10Z, shard \S*late\.k6\.json\.gz 2026-11-28T12:50:10Z to 2026-11-28T12:50:20Z: 300 s apart, more than the 60 s allowed/);
  });

  it('--allow-mixed-shards merges them, and the console, summary.json, summary.md and the run record say what differed', async () => {
    const [a, b] = issueShards();
    const out = join(work, 'mixed-anyway');
    const r = await paystorm(['merge', a, b, '--out', out, '--allow-mixed-shards']);
    // The verdict the issue reported: a LIST-8 violation neither service committed; now with the warning beside it.
    expect(r.code, r.stderr + r.stdout).toBe(1);
    const summary = summaryOf(out);
    expect(summary.invariants.find((i) => i.id === 'list-filters-before-pagination')?.status).toBe('fail');
    const warning = summary.findings?.find((f) => f.id === 'mixed-shards');
    expect(warning?.level).toBe('warning');
    expect(warning?.text).toMatch(/^Merged with --allow-mixed-shards, though the shards are not one test of one service: shard \S*a\.k6\.json\.gz targets http:\/\/127\.0\.0\.1:35595, shard \S*b\.k6\.json\.gz targets http:\/\/127\.0\.0\.1:41001/);
    expect(r.stderr).toMatch(/merged anyway \(--allow-mixed-shards\): shard \S*a\.k6\.json\.gz targets/);
    expect(r.stdout).toMatch(/WARNING mixed-shards: Merged with --allow-mixed-shards/);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toMatch(/WARNING mixed-shards: Merged with --allow-mixed-shards/);
    const run = (await historyRecords(out))[0] as RunRecord;
    expect(run.facts?.mixedShards).toEqual([expect.objectContaining({ kind: 'target', shards: [a, b] })]);
  });

  it('merge --help documents the flag', async () => {
    const r = await paystorm(['merge', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--allow-mixed-shards/);
  });
});

describe('shards of one test merge without a word', () => {
  it('a k6-operator fleet: four runners, one key set each, one target, overlapping spans, an execution segment each', async () => {
    const segments = ['0:1/4', '1/4:2/4', '2/4:3/4', '3/4:1'];
    const files = segments.map((segment, i) =>
      // Laid out as the runners write them (k6/operator/results.yaml): one folder per pod, one file name.
      k6File(`paystorm-mixed-${i + 1}-x7k2p/paystorm.k6.json.gz`, { target: 'http://paystorm-target.default.svc:8080', keys: [`m${i + 1}/test/…000${i + 1}`], start: T0 + i * 1_500, durationMs: 8_000, segment }),
    );
    const out = join(work, 'fleet');
    const r = await paystorm(['merge', ...files, '--out', out]);
    expect(r.code, r.stderr + r.stdout).not.toBe(3);
    expect(r.stderr).toBe('');
    const summary = summaryOf(out);
    expect(summary.findings?.some((f) => f.id === 'mixed-shards')).toBe(false);
    expect(summary.findings?.find((f) => f.id === 'shard-clock-offsets')?.level).toBe('info');
    const records = await historyRecords(out);
    const run = records[0] as RunRecord;
    expect(run.facts?.mixedShards).toBeUndefined();
    expect((run.facts?.merge as unknown[]).length).toBe(4);
    expect(new Set(records.filter((x): x is ExchangeRecord => x.kind === 'exchange').map((x) => x.key))).toEqual(new Set(['m1/test/…0001', 'm2/test/…0002', 'm3/test/…0003', 'm4/test/…0004']));
  });

  it('a shard whose target is unknown (k6 output without run facts) is not refused for it, and a warning says so', async () => {
    const known = k6File('known.k6.json.gz', { target: 'http://payments.example' });
    const old = k6File('old.k6.json.gz', { start: T0 + 2_000 });
    const r = await paystorm(['merge', known, old, '--out', join(work, 'unknown-target')]);
    expect(r.code, r.stderr + r.stdout).not.toBe(3);
    expect(r.stderr).toContain(`shard ${old}: its target is unknown (k6 output without paystorm's run facts), so it could not be compared with the other shards' targets`);
  });

  it('paystorm runs side by side against one service', async () => {
    const svc = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02, rateLimit: 120, windowMs: 3000 });
    try {
      const key = (merchant: string) => DEFAULT_KEYS.find((k) => k.merchant === merchant && k.key.startsWith('svc_test_sk_') && k.direct_api)!.key;
      const runs = await Promise.all(
        ['acme', 'globex'].map((m) => paystorm(['run', 'mixed', '--target', svc.url, '--key', `${m}:${key(m)}`, '--window-ms', '3000', '--duration', '3s', '--out', join(work, `ps-${m}`)])),
      );
      for (const run of runs) expect([0, 1], run.stderr + run.stdout).toContain(run.code);
      const out = join(work, 'ps-merged');
      const r = await paystorm(['merge', join(work, 'ps-acme', 'latest'), join(work, 'ps-globex', 'latest'), '--out', out]);
      expect([0, 1], r.stderr + r.stdout).toContain(r.code);
      expect(r.stderr).not.toMatch(/allow-mixed-shards|could not be compared/);
      expect(summaryOf(out).findings?.some((f) => f.id === 'mixed-shards')).toBe(false);
      expect(((await historyRecords(out))[0] as RunRecord).facts?.mixedShards).toBeUndefined();
    } finally {
      await svc.close();
    }
  }, 90_000);
});

const SAMPLE_FILES = ['mixed-30s-clean', 'idempotency-idem-no-inflight-lock', 'mixed-sigint-at-12s'].map((n) => `samples/k6/${n}.k6.json.gz`);
describeWithShared(SAMPLE_FILES, 'the real k6 recordings (samples/k6 of the shared folder)', () => {
  const sample = (f: string) => sharedPath(`samples/k6/${f}`);

  it('the clean mixed run and the idempotency run were against two service instances: refused', async () => {
    await expectRefused([sample('mixed-30s-clean.k6.json.gz'), sample('idempotency-idem-no-inflight-lock.k6.json.gz')], /targets http:\/\/127\.0\.0\.1:35595, shard \S+ targets http:\/\/127\.0\.0\.1:37831/);
  });

  it('two mixed runs against one instance, almost two minutes apart: refused as two tests', async () => {
    await expectRefused([sample('mixed-sigint-at-12s.k6.json.gz'), sample('mixed-30s-clean.k6.json.gz')], /shard \S*mixed-30s-clean\.k6\.json\.gz ran .*, shard \S*mixed-sigint-at-12s\.k6\.json\.gz .*: 105 s apart/);
  });
});
