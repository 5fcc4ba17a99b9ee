/**
 * `paystorm run --metrics-port`: the series a run exports (names, labels, units, what each
 * counts), scraped from a real run of the embedded service and read with a strict OpenMetrics
 * reader; keys never appear, only their labels; the final scrape matches summary.json; a busy
 * port or an address this machine lacks is refused before any load (exit 3).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { executeRun } from '../../src/cli/run.ts';
import { resolveRunConfig } from '../../src/cli/run-checks.ts';
import { EXIT, PaystormError, type Summary } from '../../src/spec/index.ts';
import { LiveRun } from '../../src/engine/index.ts';
import { DEFAULT_KEYS } from '../../src/target/index.ts';
import { mergeHistograms, decodeHistogram, percentileOf } from '../../src/history/index.ts';
import { RunMetricsExporter, SERIES, LATENCY_BUCKETS_SECONDS, startMetricsEndpoint, FINAL_SCRAPE_WAIT_MIN_MS, type SeriesName } from '../../src/report/openmetrics/index.ts';
import { K, create, ex, fault, list, retrieve, webhook } from '../oracle/fixtures.ts';
import { parseOpenMetrics, samplesOf, sumOf } from './openmetrics-text.ts';
import { historyRecords } from '../history-file.ts';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'paystorm-metrics-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An io whose stderr can be waited on for a line. */
function watchedIo() {
  let err = '';
  let out = '';
  const waiters: { re: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  const stderr = new Writable({
    write(chunk, _enc, cb) {
      err += String(chunk);
      for (const w of waiters.splice(0)) {
        const m = w.re.exec(err);
        if (m) w.resolve(m);
        else waiters.push(w);
      }
      cb();
    },
  });
  const stdout = new Writable({
    write(chunk, _enc, cb) {
      out += String(chunk);
      cb();
    },
  });
  return {
    io: { stdout, stderr },
    err: () => err,
    out: () => out,
    waitFor: (re: RegExp) => new Promise<RegExpExecArray>((resolve) => {
      const m = re.exec(err);
      if (m) resolve(m);
      else waiters.push({ re, resolve });
    }),
  };
}

async function exposition(e: RunMetricsExporter) {
  return parseOpenMetrics(await e.series.registry.metrics());
}

describe('the metrics exporter', () => {
  it('counts requests, latency, 429s, connection errors, open payments, webhooks, faults and violations as the records show them', async () => {
    const e = new RunMetricsExporter();
    // Latency from the intended start: 25 ms late, 5 ms long = 30 ms.
    e.record(create({ id: 'pay_1', tIntended: 0, tStart: 25, tEnd: 30, scenario: 'mixed' } as never));
    e.record(create({ id: 'pay_2', scenario: 'mixed' } as never));
    e.record(ex({ status: 429, key: K.test2, scenario: 'rate-limit' } as never));
    e.record(ex({ status: 0, op: 'create', failure: 'reset' } as never));
    // paystorm cut it off itself: not the service's request, as in the run report.
    e.record(ex({ status: 0, failure: 'aborted' } as never));
    e.record(retrieve('pay_1', { p: { status: 'succeeded' } }));
    e.record(webhook({ answered: 500 }));
    e.record(webhook({ answered: 0, stalledMs: 1500, type: 'something.new' }));
    e.record(fault({ proxy: 'upstream', toxic: { name: 'paystorm_1_latency', type: 'latency', stream: 'downstream', toxicity: 1, attributes: {} } }));
    e.dropped(3, 'mixed');
    e.watchFaults(() => [{ proxy: 'upstream', type: 'timeout' }, { proxy: 'upstream', type: 'timeout' }]);

    let f = await exposition(e);
    expect(sumOf(f, 'paystorm_requests_total')).toBe(5);
    expect(sumOf(f, 'paystorm_requests_total', { op: 'create', status_class: '2xx', scenario: 'mixed' })).toBe(2);
    expect(sumOf(f, 'paystorm_requests_total', { status_class: '429', scenario: 'rate-limit' })).toBe(1);
    expect(sumOf(f, 'paystorm_requests_total', { op: 'create', status_class: 'failure' })).toBe(1);
    expect(samplesOf(f, 'paystorm_rate_limited_total')).toEqual([{ name: 'paystorm_rate_limited_total', labels: { key: K.test2, scenario: 'rate-limit' }, value: 1 }]);
    expect(samplesOf(f, 'paystorm_connection_errors_total')).toEqual([{ name: 'paystorm_connection_errors_total', labels: { op: 'create', kind: 'reset' }, value: 1 }]);
    // The creates took 30, 10 and 10 ms (the reset one too): 30 ms is in the 50 ms bucket, not in the 20 ms one.
    expect(sumOf(f, 'paystorm_request_duration_seconds_bucket', { op: 'create', le: '0.02' })).toBe(2);
    expect(sumOf(f, 'paystorm_request_duration_seconds_bucket', { op: 'create', le: '0.05' })).toBe(3);
    expect(sumOf(f, 'paystorm_request_duration_seconds_sum', { op: 'create' })).toBeCloseTo(0.05, 6);
    // pay_1 was seen succeeded; pay_2 is still pending.
    expect(sumOf(f, 'paystorm_open_payments')).toBe(1);
    expect(sumOf(f, 'paystorm_webhook_deliveries_total', { type: 'payment.succeeded' })).toBe(1);
    expect(sumOf(f, 'paystorm_webhook_deliveries_total', { type: 'other' })).toBe(1);
    expect(sumOf(f, 'paystorm_webhook_failures_injected_total', { kind: 'fail' })).toBe(1);
    expect(sumOf(f, 'paystorm_webhook_failures_injected_total', { kind: 'stall' })).toBe(1);
    expect(sumOf(f, 'paystorm_fault_windows_total', { proxy: 'upstream', toxic: 'latency' })).toBe(1);
    expect(sumOf(f, 'paystorm_faults_active', { proxy: 'upstream', toxic: 'timeout' })).toBe(2);
    expect(sumOf(f, 'paystorm_dropped_iterations_total', { scenario: 'mixed' })).toBe(3);

    // A list showing pay_2 settled closes it; the fault window closed reads 0, its line kept.
    e.record(list(['pay_2'], { statuses: ['failed'] }));
    e.watchFaults(() => []);
    f = await exposition(e);
    expect(sumOf(f, 'paystorm_open_payments')).toBe(0);
    expect(samplesOf(f, 'paystorm_faults_active').map((s) => s.value)).toEqual([0]);
  });

  it('violations: live ones count as found; the verdict raises each invariant to its summary count, never counting one twice', async () => {
    // The judged invariants start at 0: a dashboard's increase() then sees each one's first violation.
    const e = new RunMetricsExporter(['single-charge', 'rate-limit-window']);
    const live = new LiveRun();
    live.watch(e);
    let f = await exposition(e);
    expect(samplesOf(f, 'paystorm_violations_total').map((s) => [s.labels.invariant, s.value])).toEqual([
      ['single-charge', 0],
      ['rate-limit-window', 0],
    ]);
    live.violation({ invariant: 'single-charge', rules: ['IDEM-6'], evidence: { message: 'x' }, t: 10 });
    live.violation({ invariant: 'single-charge', rules: ['IDEM-6'], evidence: { message: 'y' }, t: 20 });
    f = await exposition(e);
    expect(sumOf(f, 'paystorm_violations_total', { invariant: 'single-charge' })).toBe(2);
    const summary = { invariants: [{ id: 'single-charge', violations: 3 }, { id: 'rate-limit-window', violations: 0 }, { id: 'leaks', violations: 1 }] } as unknown as Summary;
    live.verdict(summary);
    f = await exposition(e);
    const byInvariant = Object.fromEntries(samplesOf(f, 'paystorm_violations_total').map((s) => [s.labels.invariant, s.value]));
    expect(byInvariant).toEqual({ 'single-charge': 3, 'rate-limit-window': 0, leaks: 1 });
  });

  it('every series follows Prometheus naming: the paystorm_ prefix, seconds, _total counters, and promtool finds nothing to lint', async () => {
    for (const [name, spec] of Object.entries(SERIES) as [SeriesName, (typeof SERIES)[SeriesName]][]) {
      expect(name).toMatch(/^paystorm_[a-z_]+$/);
      expect(name.endsWith('_total'), name).toBe(spec.kind === 'counter');
      if (spec.kind === 'histogram') expect(name).toMatch(/_seconds$/);
      expect(spec.labels as readonly string[]).not.toContain('le');
    }
    expect(LATENCY_BUCKETS_SECONDS[0]).toBe(0.001);
    expect(LATENCY_BUCKETS_SECONDS.at(-1)).toBe(60);
    const promtool = ['/usr/bin/promtool', process.env.PROMETHEUS_BIN && join(process.env.PROMETHEUS_BIN, '../promtool')].find((p): p is string => !!p && existsSync(p));
    if (!promtool) {
      console.log('promtool not found (Debian package prometheus): its lint of the series names is skipped');
      return;
    }
    // promtool lints the Prometheus text format: the same registry, rendered so.
    const e = new RunMetricsExporter();
    e.record(create({ id: 'pay_1' }));
    const registry = e.series.registry as unknown as Registry;
    registry.setContentType(Registry.PROMETHEUS_CONTENT_TYPE);
    const lint = spawnSync(promtool, ['check', 'metrics'], { input: await registry.metrics(), encoding: 'utf8' });
    expect(lint.stdout + lint.stderr).toBe('');
    expect(lint.status).toBe(0);
  });
});

describe('paystorm run --metrics-port', () => {
  it('serves every series during an embedded run with faults; keys only as labels; the final scrape matches summary.json', { timeout: 180_000 }, async () => {
    const out = tempDir();
    const w = watchedIo();
    const cfg = resolveRunConfig({ scenarios: ['mixed', 'chaos-short'], duration: '3s', seed: 5, bugs: ['pay-valid-create-refused'], out, metricsPort: 0 }, null);
    const run = executeRun(cfg, w.io);
    const [, url] = await w.waitFor(/metrics \(OpenMetrics\) at (http:\/\/127\.0\.0\.1:\d+\/metrics)/);
    let last: { text: string; contentType: string } | null = null;
    let during = 0;
    const faultsSeen = new Set<string>();
    let finished = false;
    void run.finally(() => (finished = true));
    // Scrape every 200 ms until the run returns: the endpoint waits for one scrape after the verdict.
    while (!finished) {
      try {
        const res = await fetch(url);
        last = { text: await res.text(), contentType: res.headers.get('content-type') ?? '' };
        const now = parseOpenMetrics(last.text);
        if (sumOf(now, 'paystorm_requests_total') > 0) during++;
        for (const s of samplesOf(now, 'paystorm_faults_active')) if (s.value > 0) faultsSeen.add(`${s.labels.proxy}:${s.labels.toxic}`);
      } catch {
        // Not up yet, or closed after the final scrape.
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const result = await run;
    expect(result.exitCode, w.out()).toBe(EXIT.violation);
    const summary = result.summary!;
    expect(during, 'scrapes that saw requests while the run went').toBeGreaterThan(1);
    expect(last!.contentType).toMatch(/^application\/openmetrics-text; version=1\.0\.0/);
    const f = parseOpenMetrics(last!.text);

    // Every declared series, with its type and help; each sample's labels exactly the declared ones.
    for (const [name, spec] of Object.entries(SERIES) as [SeriesName, (typeof SERIES)[SeriesName]][]) {
      const family = f.get(spec.kind === 'counter' ? name.replace(/_total$/, '') : name);
      expect(family, name).toBeDefined();
      expect(family!.type, name).toBe(spec.kind);
      expect(family!.help, name).toBeTruthy();
      for (const s of family!.samples) expect(Object.keys(s.labels).filter((l) => l !== 'le').sort(), s.name).toEqual([...spec.labels].sort());
    }
    expect([...f.keys()].every((n) => n.startsWith('paystorm_'))).toBe(true);

    // Keys never, their labels only.
    for (const k of DEFAULT_KEYS) expect(last!.text).not.toContain(k.key);
    const history = await historyRecords(result.runDir!);
    const labels = new Set((history.find((r) => r.kind === 'run') as { keys: { label: string }[] }).keys.map((k) => k.label));
    for (const s of samplesOf(f, 'paystorm_rate_limited_total')) expect(labels.has(s.labels.key), s.labels.key).toBe(true);

    // The final scrape is the run's: its requests, latency count, open payments, webhooks and violations.
    expect(sumOf(f, 'paystorm_requests_total')).toBe(summary.metrics.requests);
    expect(sumOf(f, 'paystorm_request_duration_seconds_count')).toBe(summary.metrics.requests);
    expect(sumOf(f, 'paystorm_webhook_deliveries_total')).toBe(history.filter((r) => r.kind === 'webhook').length);
    const violations = Object.fromEntries(samplesOf(f, 'paystorm_violations_total').map((s) => [s.labels.invariant, s.value]));
    expect(violations).toEqual(Object.fromEntries(summary.invariants.map((i) => [i.id, i.violations])));
    expect(violations['create-returns-payment']).toBeGreaterThan(0);
    // Fault windows: seen open while the run went (the chaos sessions' own state), and each closed one counted.
    const windows = new Map<string, number>();
    for (const w of summary.faults) windows.set(`${w.proxy}:${w.type}`, (windows.get(`${w.proxy}:${w.type}`) ?? 0) + 1);
    expect(Object.fromEntries(samplesOf(f, 'paystorm_fault_windows_total').map((s) => [`${s.labels.proxy}:${s.labels.toxic}`, s.value]))).toEqual(Object.fromEntries(windows));
    expect(faultsSeen.size, 'fault windows seen open by a scrape').toBeGreaterThan(0);
    for (const fault of faultsSeen) expect(windows.has(fault), fault).toBe(true);
    expect(sumOf(f, 'paystorm_faults_active')).toBe(0);
    // The p99 from the buckets lands in the bucket of the run's own HDR p99.
    const hdrP99 = percentileOf(decodeHistogram(mergeHistograms(Object.values(summary.metrics.latency as Record<string, Record<string, { hdr: string }>>).flatMap((c) => Object.values(c).map((l) => l.hdr)))), 99) / 1e6;
    const bucketOf = (s: number) => LATENCY_BUCKETS_SECONDS.findIndex((b) => s <= b);
    const cumulative = LATENCY_BUCKETS_SECONDS.map((b) => sumOf(f, 'paystorm_request_duration_seconds_bucket', { le: String(b) }));
    const rank = 0.99 * summary.metrics.requests;
    expect(Math.abs(cumulative.findIndex((c) => c >= rank) - bucketOf(hdrP99))).toBeLessThanOrEqual(1);
    // The endpoint is closed once the run returned.
    await expect(fetch(url)).rejects.toThrow();
  });
});

describe('--metrics-port and --metrics-host refusals (exit 3, before any load)', () => {
  async function refusal(cfgIn: Parameters<typeof resolveRunConfig>[0]): Promise<{ err: PaystormError; out: string }> {
    const out = tempDir();
    const w = watchedIo();
    const err = await executeRun(resolveRunConfig({ scenarios: ['mixed'], duration: '3s', out, ...cfgIn }, null), w.io).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaystormError);
    expect((err as PaystormError).exitCode).toBe(EXIT.usage);
    // Nothing ran: no run folder, no progress line.
    expect(readdirSync(out)).toEqual([]);
    expect(w.err()).not.toMatch(/\d+ req/);
    return { err: err as PaystormError, out };
  }

  it('a port in use names --metrics-port and the fix', async () => {
    const busy: Server = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    try {
      const port = (busy.address() as { port: number }).port;
      const { err } = await refusal({ metricsPort: port });
      expect(err.message).toBe(`--metrics-port: port ${port} is in use on 127.0.0.1; pass a free port (or 0 for any free one).`);
      // Through the CLI: the same sentence and exit 3.
      const cli = spawnSync(process.execPath, ['bin/paystorm.js', 'run', 'mixed', '--duration', '3s', '--out', tempDir(), '--metrics-port', String(port)], { encoding: 'utf8', timeout: 60_000 });
      expect(cli.status, cli.stderr).toBe(EXIT.usage);
      expect(cli.stderr).toContain(`--metrics-port: port ${port} is in use on 127.0.0.1`);
    } finally {
      busy.close();
    }
  });

  it('an address this machine does not have names --metrics-host', async () => {
    // 192.0.2.0/24 is TEST-NET-1: never an address of this machine.
    const { err } = await refusal({ metricsPort: 0, metricsHost: '192.0.2.1' });
    expect(err.message).toMatch(/^--metrics-host: "192\.0\.2\.1" is not an address of this machine \(EADDRNOTAVAIL\); pass 127\.0\.0\.1/);
  });

  it('a host with a scheme or a port, or a host without a port, is refused by the up-front checks', () => {
    const problems = (cfg: Parameters<typeof resolveRunConfig>[0]) => {
      try {
        resolveRunConfig(cfg, null);
        return '';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(problems({ metricsPort: 9464, metricsHost: 'http://localhost' })).toMatch(/--metrics-host: "http:\/\/localhost" is not an address or host name/);
    expect(problems({ metricsPort: 9464, metricsHost: '127.0.0.1:9464' })).toMatch(/--metrics-host: .* without scheme or port/);
    expect(problems({ metricsHost: '127.0.0.1' })).toMatch(/--metrics-host: pass --metrics-port too/);
    expect(problems({ metricsPort: 70000 })).toMatch(/metricsPort|--metrics-port/);
    expect(problems({ metricsPort: 9464, metricsHost: '::1' })).toBe('');
    expect(problems({ metricsPort: 9464, metricsHost: 'localhost' })).toBe('');
  });

  it('the endpoint answers /metrics only, and closes at once when no scraper polls it', async () => {
    const e = new RunMetricsExporter();
    const endpoint = await startMetricsEndpoint({ host: '127.0.0.1', port: 0, registry: e.series.registry });
    expect((await fetch(`${endpoint.url}/`)).status).toBe(404);
    expect((await fetch(`${endpoint.url}/metrics`, { method: 'POST' })).status).toBe(405);
    expect(endpoint.scrapes).toBe(0);
    expect(await endpoint.closeAfterFinalScrape()).toBeLessThan(500);
  });

  it('waits for the final scrape of a scraper seen only once (it started late in a short run)', async () => {
    const e = new RunMetricsExporter();
    const endpoint = await startMetricsEndpoint({ host: '127.0.0.1', port: 0, registry: e.series.registry });
    expect((await fetch(`${endpoint.url}/metrics`)).status).toBe(200);
    const closing = endpoint.closeAfterFinalScrape();
    await new Promise((r) => setTimeout(r, 1000));
    expect((await fetch(`${endpoint.url}/metrics`)).status).toBe(200);
    expect(await closing).toBeLessThan(FINAL_SCRAPE_WAIT_MIN_MS);
  });

  it('waits for a late final scrape even when the last two scrapes came back to back (a busy scraper jitters)', async () => {
    const e = new RunMetricsExporter();
    const endpoint = await startMetricsEndpoint({ host: '127.0.0.1', port: 0, registry: e.series.registry });
    // Two scrapes a few ms apart: their gap says nothing of the scraper's real interval.
    expect((await fetch(`${endpoint.url}/metrics`)).status).toBe(200);
    expect((await fetch(`${endpoint.url}/metrics`)).status).toBe(200);
    const closing = endpoint.closeAfterFinalScrape();
    await new Promise((r) => setTimeout(r, 1500));
    e.verdict({ invariants: [{ id: 'create-returns-payment', violations: 3 }] } as never);
    const late = await fetch(`${endpoint.url}/metrics`);
    expect(late.status).toBe(200);
    expect(await late.text()).toMatch(/paystorm_violations_total\{invariant="create-returns-payment"\} 3/);
    const waited = await closing;
    expect(waited).toBeGreaterThanOrEqual(1400);
    expect(waited).toBeLessThan(FINAL_SCRAPE_WAIT_MIN_MS);
  });
});

