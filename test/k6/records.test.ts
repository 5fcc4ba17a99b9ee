/**
 * k6 runs judged by paystorm's oracle: the scripts record every exchange as a history record
 * (k6/lib/record.ts, a `paystorm_exchange` Counter whose points carry the record in a tag),
 * k6's `--out json` carries them, src/history/k6.ts converts them, and `paystorm check` and
 * `paystorm merge` judge them like a paystorm run.
 *
 * The k6-format files here come from the bundles' own code paths: the Node shim of k6's API
 * (test/k6/shim) writes `--out json` Metric and Point lines the way real k6 v1.3 does
 * (../shared/samples/k6), against the real reference service, clean and with seeded bugs.
 * With K6_BIN pointing at a k6 binary, the same is done with real k6.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceService, DEFAULT_KEYS, type RunningService } from '../../src/target/index.ts';
import { convertK6, k6FileKind, toNdjson } from '../../src/history/k6.ts';
import { K6_SCRIPT_RULES } from '../../src/history/k6-scripts.ts';
import { k6RunDirOf } from '../../src/history/k6-history.ts';
import { estimateOffset, mergeShards } from '../../src/history/merge.ts';
import { judgeHistory } from '../../src/cli/judge-run.ts';
import type { Summary } from '../../src/spec/index.ts';
import type { ExchangeRecord, HistoryRecord, RunRecord } from '../../src/history/index.ts';
import { buildBundles, cli, removeBundles, runShim } from './helpers.ts';
import { historyPathOf, historyRecords, historyText } from '../history-file.ts';
import { describeWithShared, itWithShared, sharedPath } from '../shared-files.ts';

const SAMPLE_FILES = ['samples/k6/mixed-clean.k6.json.gz', 'samples/k6/mixed-clean.summary-export.json'];
const [SAMPLE_JSON, SAMPLE_SUMMARY] = SAMPLE_FILES.map(sharedPath);

const key = (merchant: string, prefix: string) => DEFAULT_KEYS.find((k) => k.merchant === merchant && k.key.startsWith(prefix) && k.direct_api)!.key;
const ACME_SVC = key('acme', 'svc_test_sk_');
const ACME_API = key('acme', 'api_test_sk_');
const GLOBEX = key('globex', 'svc_test_sk_');
const KEYS = `acme:${ACME_SVC},acme:${ACME_API},globex:${GLOBEX}`;

let bundles = '';
let work = '';
beforeAll(() => {
  bundles = buildBundles();
  work = mkdtempSync(join(tmpdir(), 'paystorm-k6-records-'));
});
afterAll(() => {
  removeBundles();
  rmSync(work, { recursive: true, force: true });
});


let n = 0;
/** Runs a bundle under the shim with k6's --out json and returns the file. */
async function k6Json(script: string, env: Record<string, string>, opts: { iterations?: number; sleepScale?: number; seed?: number } = {}): Promise<string> {
  const out = join(work, `${script}-${++n}.k6.json`);
  const r = await runShim(join(bundles, `${script}.js`), env, { iterations: opts.iterations ?? 1, sleepScale: opts.sleepScale ?? 0.05, jsonOut: out, timeoutMs: 60_000, ...(opts.seed !== undefined ? { seed: opts.seed } : {}) });
  expect(r.fatal, r.output).toBeNull();
  expect(r.iterationErrors, r.output).toEqual([]);
  // The secrets never reach the file: keys are labels, cards last four.
  const text = readFileSync(out, 'utf8');
  for (const s of [ACME_SVC, ACME_API, GLOBEX, '4242424242424242']) expect(text).not.toContain(s);
  return out;
}

async function judgeK6(file: string): Promise<Summary> {
  const conv = await convertK6(file);
  const dir = mkdtempSync(join(work, 'judge-'));
  writeFileSync(join(dir, 'history.ndjson'), toNdjson(conv.records));
  return judgeHistory(join(dir, 'history.ndjson'), { onWarning: () => {} });
}

/** Every rule the script declares was judged by an invariant that passed. */
function declaredJudged(s: Summary, script: string): void {
  for (const rule of K6_SCRIPT_RULES[script]) {
    const citing = s.invariants.filter((i) => i.rules.includes(rule));
    expect(citing.some((i) => i.status === 'pass'), `${script} declares ${rule}: ${citing.map((i) => `${i.id} ${i.status} ${i.reason ?? ''}`).join('; ')}`).toBe(true);
  }
}

function failedCiting(s: Summary, rule: string): string[] {
  return s.invariants.filter((i) => i.status === 'fail' && i.rules.includes(rule)).map((i) => i.id);
}

describeWithShared(SAMPLE_FILES, 'real k6 v1.3.0 output (samples/k6 of the shared folder)', () => {
  it('the --out json sample converts without loss of what it carries', async () => {
    const lines = gunzipSync(readFileSync(SAMPLE_JSON)).toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; metric: string; data: { value: number; tags: Record<string, string> | null } });
    expect(await k6FileKind(SAMPLE_JSON)).toBe('k6-json');
    const conv = await convertK6(SAMPLE_JSON);
    const points = lines.filter((l) => l.type === 'Point');
    // Every metric's points and their sum.
    const byMetric: Record<string, number> = {};
    for (const p of points) byMetric[p.metric] = (byMetric[p.metric] ?? 0) + 1;
    expect(conv.facts.points).toEqual(byMetric);
    expect(conv.facts.sums.http_reqs).toBe(byMetric.http_reqs);
    // Requests by op and status, and checks by name, as the points say.
    const requests = Object.values(conv.facts.requests).reduce((a, b) => a + b, 0);
    expect(requests).toBe(byMetric.http_reqs);
    expect(conv.facts.requests['create 201']).toBe(points.filter((p) => p.metric === 'http_reqs' && p.data.tags?.op === 'create' && p.data.tags.status === '201').length);
    const checkPoints = points.filter((p) => p.metric === 'checks');
    expect(Object.values(conv.facts.checks).reduce((a, c) => a + c.passes + c.fails, 0)).toBe(checkPoints.length);
    // The same check names as k6's own summary export, with at least its counts (the export
    // was computed before the last in-flight iteration's samples were flushed: 199 vs 200 requests).
    const summary = JSON.parse(readFileSync(SAMPLE_SUMMARY, 'utf8')) as { root_group: Group; metrics: Record<string, { count?: number; passes?: number }> };
    interface Group { checks: Record<string, { name: string; passes: number; fails: number }>; groups: Record<string, Group> }
    const exported: Record<string, { passes: number; fails: number }> = {};
    const walk = (g: Group) => {
      for (const c of Object.values(g.checks)) {
        const e = (exported[c.name] ??= { passes: 0, fails: 0 });
        e.passes += c.passes;
        e.fails += c.fails;
      }
      for (const sub of Object.values(g.groups)) walk(sub);
    };
    walk(summary.root_group);
    expect(Object.keys(conv.facts.checks).sort()).toEqual(Object.keys(exported).sort());
    for (const [name, c] of Object.entries(exported)) {
      expect(conv.facts.checks[name].passes).toBeGreaterThanOrEqual(c.passes);
      expect(conv.facts.checks[name].fails).toBe(c.fails);
    }
    expect(requests - (summary.metrics.http_reqs.count ?? 0)).toBeLessThanOrEqual(1);
    // It carries no paystorm records (written before the recorder): no exchange is invented.
    expect(conv.facts.records).toBe(0);
    expect(conv.records.filter((r) => r.kind === 'exchange')).toEqual([]);
    const run = conv.records[0] as RunRecord;
    expect(run.facts?.source).toBe('k6');
    expect(run.scenarios).toEqual([{ name: 'mixed', rules: [] }]);
    // It predates the end marker: nothing tells whether the run ran its plan, so it is not complete.
    expect(conv.facts.end).toMatchObject({ marker: false, planRan: false, evidence: null });
    expect(conv.records.at(-1)).toMatchObject({ kind: 'end', complete: false, reason: 'interrupted' });
  });

  it('paystorm check on it: no end marker and nothing exercised, so it does not pass (judged interrupted, exit 130)', async () => {
    const dir = mkdtempSync(join(work, 'sample-'));
    copyFileSync(SAMPLE_JSON, join(dir, 'mixed-clean.k6.json.gz'));
    // --no-write judges and prints, and leaves nothing beside the file.
    const dry = await cli(['check', '--no-write', join(dir, 'mixed-clean.k6.json.gz')]);
    expect(dry.code, dry.out).toBe(130);
    expect(readdirSync(dir)).toEqual(['mixed-clean.k6.json.gz']);
    const r = await cli(['check', join(dir, 'mixed-clean.k6.json.gz')]);
    expect(r.code, r.out).toBe(130);
    expect(r.out).toContain('without paystorm exchange records');
    expect(r.out).toMatch(/no end marker.*nothing tells whether the run ran its plan/);
    expect(r.out).toMatch(/interrupted/);
    expect(existsSync(join(dir, 'mixed-clean.k6.paystorm', 'summary.json'))).toBe(true);
  });
});

describe('the scripts record what the oracle needs (shim against the reference service)', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02 });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('mixed, clean: the oracle passes and judges every rule the script declares', async () => {
    // Seeded: with Math.random, 12 iterations now and then drew no Direct API create that succeeded.
    const file = await k6Json('mixed', { TARGET: svc.url, KEYS }, { iterations: 12, seed: 7 });
    // The carrier: paystorm_exchange points with the record in their metadata (no time series per request), not a tag.
    const points = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; metric: string; data: { tags: Record<string, string>; metadata?: Record<string, string> } });
    const carried = points.filter((p) => p.type === 'Point' && p.metric === 'paystorm_exchange');
    expect(carried.length).toBeGreaterThan(12);
    for (const p of carried) {
      expect(Object.keys(p.data.metadata ?? {}).length).toBe(1);
      expect(Object.keys(p.data.tags).filter((t) => t.startsWith('paystorm_'))).toEqual([]);
    }
    expect(points.filter((p) => p.type === 'Point' && p.metric !== 'paystorm_exchange' && p.data.metadata)).toEqual([]);
    const conv = await convertK6(file);
    const ex = conv.records.filter((r): r is ExchangeRecord => r.kind === 'exchange');
    expect(ex.length).toBeGreaterThan(12);
    // What a record carries: operation, key label, idempotency key, times on the run clock, status, rate headers, the payment.
    const create = ex.find((x) => x.op === 'create' && x.status === 201)!;
    expect(create.key).toMatch(/^(acme|globex)\/test\/…[A-Za-z0-9]{4}$/);
    expect(create.idemKey).toMatch(/^k6-create-/);
    expect(create.rate?.limit).toBe(500);
    expect(create.payment?.id).toBeTruthy();
    expect(create.sent.cardLast4).toMatch(/^\d{4}$/);
    expect(create.tStart).toBeGreaterThanOrEqual(0);
    expect(ex.map((x) => x.seq)).toEqual(ex.map((_, i) => i + 1));
    const run = conv.records[0] as RunRecord;
    expect(run.target).toMatchObject({ url: svc.url, presentation: 'B' });
    expect(run.keys.map((k) => k.label).sort()).toEqual([`acme/test/…${ACME_API.slice(-4)}`, `acme/test/…${ACME_SVC.slice(-4)}`, `globex/test/…${GLOBEX.slice(-4)}`].sort());
    const s = await judgeK6(file);
    expect(s.verdict, s.reason).toBe('pass');
    declaredJudged(s, 'mixed');
    // Rules it does not exercise are said so, with the reason.
    const webhook = s.invariants.find((i) => i.id === 'webhook-signature')!;
    expect(webhook.status).toBe('not-exercised');
    expect(webhook.reason).toBeTruthy();
  });

  it('idempotency, clean: pass, every declared rule judged', async () => {
    // One VU, one iteration: the plan the shim's one iteration runs (the end marker compares).
    const s = await judgeK6(await k6Json('idempotency', { TARGET: svc.url, KEYS, IDEM_VUS: '1', IDEM_ITERATIONS: '1' }));
    expect(s.verdict, s.reason).toBe('pass');
    declaredJudged(s, 'idempotency');
  });

  it('idempotency with idem-body-ignored: fails on the invariant citing IDEM-4 (through paystorm check, gzipped)', async () => {
    const bug = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02, bugs: ['idem-body-ignored'] });
    try {
      const file = await k6Json('idempotency', { TARGET: bug.url, KEYS, IDEM_VUS: '1', IDEM_ITERATIONS: '1' });
      const gz = `${file}.gz`;
      writeFileSync(gz, gzipSync(readFileSync(file)));
      const r = await cli(['check', gz]);
      expect(r.code, r.out).toBe(1);
      const summary = JSON.parse(readFileSync(join(work, `${file.split('/').pop()!.replace(/\.json$/, '')}.paystorm`, 'summary.json'), 'utf8')) as Summary;
      expect(failedCiting(summary, 'IDEM-4')).toEqual(['idem-different-body']);
    } finally {
      await bug.close();
    }
  });

  it('mixed with ref-refunded-at-partial: fails on the invariant citing REF-6', async () => {
    const bug = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02, bugs: ['ref-refunded-at-partial'] });
    try {
      const s = await judgeK6(await k6Json('mixed', { TARGET: bug.url, KEYS, MIX: 'direct:1', CARD_MIX: 'succeeds:1', REFUND_SHARE: '1' }, { iterations: 12 }));
      expect(s.verdict).toBe('fail');
      expect(failedCiting(s, 'REF-6')).toEqual(['refunded-at-when-full']);
    } finally {
      await bug.close();
    }
  });
});

describe('rate-limit script records (shim, reference service at 15 per 1 s)', () => {
  const rl = async (bugs: string[]) => {
    const svc = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02, rateLimit: 15, windowMs: 1000, bugs });
    try {
      return await judgeK6(await k6Json('rate-limit', { TARGET: svc.url, KEYS, WINDOW_MS: '1000' }, { sleepScale: 1 }));
    } finally {
      await svc.close();
    }
  };
  it('clean: pass, every declared rule judged', async () => {
    const s = await rl([]);
    expect(s.verdict, s.reason).toBe('pass');
    declaredJudged(s, 'rate-limit');
  });
  it('rl-off-by-one: fails on the invariant citing RL-1', async () => {
    const s = await rl(['rl-off-by-one']);
    expect(s.verdict).toBe('fail');
    expect(failedCiting(s, 'RL-1')).toContain('rate-window-cap');
  });
});

describe('bad input: exit 3, naming what the file is and what was expected, nothing written', () => {
  const refused = async (name: string, content: Buffer | string, expected: RegExp) => {
    const dir = mkdtempSync(join(work, 'bad-'));
    const file = join(dir, name);
    writeFileSync(file, content);
    const r = await cli(['check', file]);
    expect(r.code, r.out).toBe(3);
    expect(r.out).toMatch(expected);
    expect(readdirSync(dir)).toEqual([name]);
  };
  itWithShared(SAMPLE_FILES, 'a k6 summary export', async () => {
    await refused('mixed.summary-export.json', readFileSync(SAMPLE_SUMMARY), /k6 end-of-test summary.*no per-request data.*expected k6's --out json output/);
  });
  itWithShared(SAMPLE_FILES, 'a truncated gzip and a cut-short NDJSON', async () => {
    const gz = readFileSync(SAMPLE_JSON);
    await refused('cut.k6.json.gz', gz.subarray(0, Math.floor(gz.length / 2)), /cut short or corrupt.*expected k6's --out json output/);
    const text = gunzipSync(gz).toString('utf8');
    await refused('cut.k6.json', text.slice(0, Math.floor(text.length / 2)), /last line is cut short.*expected k6's --out json output/);
  });
  it('an empty file', async () => {
    await refused('empty.k6.json', '', /empty/);
    await refused('empty.k6.json.gz', gzipSync(Buffer.alloc(0)), /empty.*expected k6's --out json output/);
  });
});

describe('paystorm merge: two k6 shards and one paystorm run, judged as one', () => {
  itWithShared(SAMPLE_FILES, 'refuses a summary export among the shards before writing anything (exit 3)', async () => {
    const out = join(work, 'merge-refused');
    const r = await cli(['merge', SAMPLE_JSON, SAMPLE_SUMMARY, '--out', out]);
    expect(r.code, r.out).toBe(3);
    expect(r.out).toMatch(/mixed-clean\.summary-export\.json: this is a k6 end-of-test summary/);
    expect(existsSync(out)).toBe(false);
  });

  it('interleaves by time, estimates clock offsets, one verdict', async () => {
    const svc = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02, rateLimit: 120, windowMs: 3000 });
    try {
      // One key set per shard, so each shard's rate limit reading is its own.
      const [s1, s2, ps] = await Promise.all([
        k6Json('mixed', { TARGET: svc.url, KEYS: `acme:${ACME_SVC}`, WINDOW_MS: '3000' }, { iterations: 10, seed: 11 }),
        k6Json('mixed', { TARGET: svc.url, KEYS: `globex:${GLOBEX}`, WINDOW_MS: '3000' }, { iterations: 10, seed: 13 }),
        cli(['run', 'mixed', '--target', svc.url, '--key', `acme:${ACME_API}`, '--window-ms', '3000', '--duration', '6s', '--out', join(work, 'ps-run')]),
      ]);
      // Alone, a short paystorm run may leave rules of its scenario unexercised (exit 1); merged, the shards cover them.
      expect([0, 1], ps.out).toContain(ps.code);
      expect(existsSync(join(work, 'ps-run', 'latest', 'history.bin.gz'))).toBe(true);
      writeFileSync(`${s2}.gz`, gzipSync(readFileSync(s2)));
      const out = join(work, 'merged');
      const r = await cli(['merge', s1, `${s2}.gz`, join(work, 'ps-run', 'latest'), '--out', out]);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/3 shards/);
      // One line per shard as merge starts (the report's findings repeat them).
      const shardLines = r.out.split('\n').filter((l) => !l.includes('shard-clock-offsets') && /clock \d+ ms (ahead of|behind) the service's \(±\d+ ms, \d+ answers\)/.test(l));
      expect(shardLines.length).toBe(3);
      const merged = await historyRecords(out);
      const ex = merged.filter((x): x is ExchangeRecord => x.kind === 'exchange');
      const [c1, c2] = await Promise.all([convertK6(s1), convertK6(s2)]);
      const count = (rs: HistoryRecord[]) => rs.filter((x) => x.kind === 'exchange').length;
      const psCount = (await historyText(join(work, 'ps-run', 'latest'))).split('\n').filter((l) => l.includes('"kind":"exchange"')).length;
      expect(ex.length).toBe(count(c1.records) + count(c2.records) + psCount);
      // Interleaved: renumbered in completion order, and the shards overlap in time.
      for (let i = 1; i < ex.length; i++) expect(ex[i].tEnd).toBeGreaterThanOrEqual(ex[i - 1].tEnd);
      expect(ex.map((x) => x.seq)).toEqual(ex.map((_, i) => i + 1));
      const labels = new Set(ex.map((x) => x.key));
      expect(labels.size).toBe(3);
      const run = merged[0] as RunRecord;
      expect((run.facts?.merge as unknown[]).length).toBe(3);
      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
      expect(summary.verdict).toBe('pass');
      // The shards' clock offsets are in the reports, not only on the console.
      const offsets = summary.findings?.find((f) => f.id === 'shard-clock-offsets');
      expect(offsets?.text).toMatch(/Merged 3 shards on the service's clock/);
      // The merged latency histogram holds every answered request of every shard (exact, not averaged).
      expect((summary.metrics as unknown as { requests: number }).requests).toBe(ex.length);
    } finally {
      await svc.close();
    }
  });

  it('a shard whose machine clock is 5 s ahead is put back on the service clock', async () => {
    const svc = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02 });
    try {
      const file = await k6Json('mixed', { TARGET: svc.url, KEYS: `acme:${ACME_SVC}` }, { iterations: 6, seed: 17 });
      const a = (await convertK6(file)).records;
      // The same shard as a machine 5 s ahead would have recorded it.
      const skewed = a.map((r) => (r.kind === 'run' || r.kind === 'exchange' || r.kind === 'end' ? { ...r, wall: r.wall + 5000 } : r)) as HistoryRecord[];
      const exA = a.filter((r): r is ExchangeRecord => r.kind === 'exchange');
      const own = estimateOffset(a[0] as RunRecord, exA);
      const est = estimateOffset(skewed[0] as RunRecord, exA);
      expect(own.offsetMs).not.toBeNull();
      // Same answers, clock 5 s ahead: the estimate moves by 5 s, with the same uncertainty.
      expect(est.offsetMs! - own.offsetMs!).toBe(5000);
      expect(est.plusMinusMs).toBe(own.plusMinusMs);
      expect(Math.abs(own.offsetMs!)).toBeLessThanOrEqual(own.plusMinusMs! + 1000);
      const m = mergeShards([
        { source: 'a', kind: 'k6', records: a },
        { source: 'b', kind: 'k6', records: skewed },
      ]);
      expect(m.offsets[1].correctionMs - m.offsets[0].correctionMs).toBeCloseTo(-5000, -3);
      // After correction each exchange and its skewed twin sit within the estimate's uncertainty.
      const merged = m.records.filter((r): r is ExchangeRecord => r.kind === 'exchange');
      const byIdem = new Map<string, number[]>();
      for (const x of merged) if (x.idemKey) byIdem.set(`${x.idemKey}/${x.attempt ?? 0}`, [...(byIdem.get(`${x.idemKey}/${x.attempt ?? 0}`) ?? []), x.tStart]);
      for (const ts of byIdem.values()) if (ts.length === 2) expect(Math.abs(ts[0] - ts[1])).toBeLessThanOrEqual(1000);
      // Two clocks: each record carries its shard's offset uncertainty for the oracle to widen its span by.
      for (const x of merged) expect(x.clockSlackMs).toBe(m.offsets[0].plusMinusMs);
      // One shard, one clock: no slack.
      const alone = mergeShards([{ source: 'a', kind: 'k6', records: a }]).records.filter((r): r is ExchangeRecord => r.kind === 'exchange');
      expect(alone.every((x) => x.clockSlackMs === undefined)).toBe(true);
      // A shard cut short (no end record) makes the merged run incomplete, naming the shard, not "interrupted".
      const cut = mergeShards([
        { source: 'a', kind: 'k6', records: a },
        { source: 'b', kind: 'k6', records: skewed.filter((r) => r.kind !== 'end') },
      ]).records.at(-1)!;
      expect(cut).toMatchObject({ kind: 'end', complete: false, reason: 'shard without end record: b' });
    } finally {
      await svc.close();
    }
  });
});

const K6_BIN = process.env.K6_BIN;
describe('real k6 (K6_BIN)', () => {
  if (!K6_BIN) console.warn('test/k6/records.test.ts: real k6 skipped: K6_BIN is not set (K6_BIN=/path/to/k6 runs the bundles with real k6 and judges their --out json)');
  /** `k6 run --out json=FILE` (async: the reference service answers from this process). */
  const k6run = (script: string, env: Record<string, string>, out: string) =>
    new Promise<string>((resolve, reject) => {
      const args = ['run', '-q', '--out', `json=${out}`];
      for (const [k, v] of Object.entries(env)) args.push('-e', `${k}=${v}`);
      args.push(join(bundles, `${script}.js`));
      const child = spawn(K6_BIN!, args, { env: { PATH: process.env.PATH ?? '' } });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString()));
      child.stderr.on('data', (d: Buffer) => (text += d.toString()));
      const t = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`k6 timed out:\n${text}`));
      }, 170_000);
      child.on('exit', () => {
        clearTimeout(t);
        resolve(text);
      });
    });
  const cases: { name: string; script: string; bugs: string[]; svc: Parameters<typeof startReferenceService>[0]; env: Record<string, string>; rule: string | null }[] = [
    { name: 'mixed, clean', script: 'mixed', bugs: [], svc: { rateLimit: 30, windowMs: 2000 }, env: { DURATION: '10s', RATE: '2', WINDOW_MS: '2000' }, rule: null },
    { name: 'rate-limit, rl-off-by-one', script: 'rate-limit', bugs: ['rl-off-by-one'], svc: { rateLimit: 15, windowMs: 1000 }, env: { WINDOW_MS: '1000' }, rule: 'RL-1' },
    { name: 'idempotency, idem-body-ignored', script: 'idempotency', bugs: ['idem-body-ignored'], svc: {}, env: {}, rule: 'IDEM-4' },
    {
      name: 'mixed refunds, ref-refunded-at-partial',
      script: 'mixed',
      bugs: ['ref-refunded-at-partial'],
      svc: {},
      env: { DURATION: '8s', RATE: '1', MIX: 'direct:1', CARD_MIX: 'succeeds:1', REFUND_SHARE: '1' },
      rule: 'REF-6',
    },
  ];
  it.skipIf(!K6_BIN).each(cases)('$name: paystorm check gives the verdict paystorm gives (skipped without K6_BIN)', async (c) => {
    const svc = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02, ...c.svc, bugs: c.bugs });
    try {
      const file = join(work, `real-${c.script}-${c.bugs[0] ?? 'clean'}.k6.json.gz`);
      const log = await k6run(c.script, { TARGET: svc.url, KEYS, ...c.env }, file);
      const r = await cli(['check', file]);
      expect(r.code, `${log}\n${r.out}`).toBe(c.rule ? 1 : 0);
      if (c.rule) {
        const summary = JSON.parse(readFileSync(join(k6RunDirOf(file), 'summary.json'), 'utf8')) as Summary;
        expect(failedCiting(summary, c.rule).length, r.out).toBeGreaterThan(0);
      }
    } finally {
      await svc.close();
    }
  });
});
