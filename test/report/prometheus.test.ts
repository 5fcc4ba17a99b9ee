/**
 * A real Prometheus scrapes a run's `--metrics-port` every second (Debian's `prometheus`;
 * PROMETHEUS_BIN names another binary). Then its HTTP API says: the request counter rose during
 * the run, the p99 `histogram_quantile` reads from the buckets is within a bucket of the run's
 * own HDR p99, and violations by invariant are summary.json's, for a seeded bug.
 * Skipped, with the reason printed, when no Prometheus binary is found.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { executeRun } from '../../src/cli/run.ts';
import { resolveRunConfig } from '../../src/cli/run-checks.ts';
import { EXIT, PaystormError } from '../../src/spec/index.ts';
import { decodeHistogram, mergeHistograms, percentileOf } from '../../src/history/index.ts';
import { LATENCY_BUCKETS_SECONDS } from '../../src/report/openmetrics/index.ts';
import type { RunResult } from '../../src/cli/run.ts';
import { portBelowEphemeralRange } from '../cli/ports.ts';

const PROMETHEUS = [process.env.PROMETHEUS_BIN, '/usr/bin/prometheus'].find((p): p is string => !!p && existsSync(p)) ?? null;

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.pid) process.kill(c.pid, 'SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'paystorm-prom-'));
  dirs.push(d);
  return d;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Prometheus {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts Prometheus scraping 127.0.0.1:metricsPort every second, on a free port of its own
 * (Prometheus cannot report a port 0 it was given: a free one is picked, and another if it
 * was taken meanwhile). Resolves once it is ready.
 */
async function startPrometheus(bin: string, metricsPort: number): Promise<Prometheus> {
  const dir = tempDir();
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      '  - job_name: paystorm',
      '    static_configs:',
      `      - targets: ['127.0.0.1:${metricsPort}']`,
      '',
    ].join('\n'),
  );
  let lastLog = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await portBelowEphemeralRange('127.0.0.1');
    const child = spawn(bin, [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, `data-${attempt}`)}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(child);
    let log = '';
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    while (child.exitCode === null && Date.now() < deadline) {
      const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
      if (ready) {
        return {
          url,
          stop: () =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null) return resolve();
              child.once('exit', () => resolve());
              process.kill(child.pid!, 'SIGTERM');
            }),
        };
      }
      await sleep(200);
    }
    if (child.exitCode === null) process.kill(child.pid!, 'SIGKILL');
    lastLog = log;
    // Another process took the port first: try another.
    if (!/address already in use/i.test(log)) break;
  }
  throw new Error(`prometheus did not become ready:\n${lastLog}`);
}

async function query(prom: Prometheus, promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const res = await fetch(`${prom.url}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as { status: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] }; error?: string };
  if (body.status !== 'success') throw new Error(`${promql}: ${body.error}`);
  return body.data.result;
}

async function queryRange(prom: Prometheus, promql: string, startS: number, endS: number): Promise<[number, string][]> {
  const res = await fetch(`${prom.url}/api/v1/query_range?query=${encodeURIComponent(promql)}&start=${startS}&end=${endS}&step=1`);
  const body = (await res.json()) as { status: string; data: { result: { values: [number, string][] }[] }; error?: string };
  if (body.status !== 'success') throw new Error(`${promql}: ${body.error}`);
  return body.data.result[0]?.values ?? [];
}

const sink = () =>
  Object.assign(
    new Writable({
      write(_c, _e, cb) {
        cb();
      },
    }),
    { isTTY: false },
  );

/** A run with --metrics-port on a port picked free (another, if it was taken before the run bound it). */
async function runScraped(bin: string): Promise<{ result: RunResult; prom: Prometheus; startS: number }> {
  for (let attempt = 0; ; attempt++) {
    const metricsPort = await portBelowEphemeralRange('127.0.0.1');
    const prom = await startPrometheus(bin, metricsPort);
    const startS = Date.now() / 1000;
    // 12 s: a Prometheus that starts slowly on a loaded machine still samples the counter several times mid-run.
    const cfg = resolveRunConfig({ scenarios: ['mixed'], duration: '12s', seed: 11, bugs: ['pay-valid-create-refused'], out: tempDir(), metricsPort }, null);
    try {
      return { result: await executeRun(cfg, { stdout: sink(), stderr: sink() }), prom, startS };
    } catch (e) {
      await prom.stop();
      if (!(e instanceof PaystormError && e.exitCode === EXIT.usage && /is in use/.test(e.message)) || attempt === 2) throw e;
    }
  }
}

describe('a real Prometheus scrapes a run', () => {
  it('sees the request counter rise, the p99 within a bucket of the run\'s HDR p99, and summary.json\'s violations', { timeout: 240_000 }, async (ctx) => {
    if (!PROMETHEUS) {
      console.log('skipped: no Prometheus binary (set PROMETHEUS_BIN, or apt-get install prometheus for /usr/bin/prometheus)');
      ctx.skip();
      return;
    }
    const { result, prom, startS } = await runScraped(PROMETHEUS);
    try {
      const summary = result.summary!;
      expect(result.exitCode).toBe(EXIT.violation);
      const expected = Object.fromEntries(summary.invariants.map((i) => [i.id, i.violations]));
      expect(expected['create-returns-payment']).toBeGreaterThan(0);

      // The final scrape (after the verdict) may still be on its way into the TSDB: poll briefly.
      // last_over_time: the run has ended, so its series are stale now; the last value before that is the run's.
      let violations: Record<string, number> = {};
      for (let i = 0; i < 20; i++) {
        violations = Object.fromEntries((await query(prom, 'last_over_time(paystorm_violations_total[10m])')).map((r) => [r.metric.invariant, Number(r.value[1])]));
        if (JSON.stringify(Object.entries(violations).sort()) === JSON.stringify(Object.entries(expected).sort())) break;
        await sleep(500);
      }
      expect(violations).toEqual(expected);

      // The request counter rose while the run went, and ended at the run's request count.
      const totals = (await queryRange(prom, 'sum(paystorm_requests_total)', Math.floor(startS), Math.ceil(Date.now() / 1000))).map(([, v]) => Number(v));
      expect(totals.length).toBeGreaterThan(2);
      for (let i = 1; i < totals.length; i++) expect(totals[i]).toBeGreaterThanOrEqual(totals[i - 1]);
      expect(new Set(totals.filter((v) => v > 0 && v < summary.metrics.requests)).size, `sampled totals ${totals.join(', ')}`).toBeGreaterThan(0);
      expect(totals.at(-1)).toBe(summary.metrics.requests);

      // The whole run's p99 from the buckets, against the run's own HDR histograms merged.
      const [p99] = await query(prom, 'histogram_quantile(0.99, sum by (le) (last_over_time(paystorm_request_duration_seconds_bucket[10m])))');
      const promP99 = Number(p99.value[1]);
      const latency = summary.metrics.latency as Record<string, Record<string, { hdr: string }>>;
      const hdrP99 = percentileOf(decodeHistogram(mergeHistograms(Object.values(latency).flatMap((byClass) => Object.values(byClass).map((l) => l.hdr)))), 99) / 1e6;
      const bucketOf = (s: number) => {
        const i = LATENCY_BUCKETS_SECONDS.findIndex((b) => s <= b);
        return i < 0 ? LATENCY_BUCKETS_SECONDS.length : i;
      };
      expect(Math.abs(bucketOf(promP99) - bucketOf(hdrP99)), `Prometheus p99 ${promP99}s, HDR p99 ${hdrP99}s`).toBeLessThanOrEqual(1);

      // It really scraped paystorm (a parse failure would leave up at 0).
      const up = await query(prom, 'max_over_time(up{job="paystorm"}[10m])');
      expect(up[0]?.value[1]).toBe('1');
    } finally {
      await prom.stop();
    }
  });
});
