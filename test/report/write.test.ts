import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeReports } from '../../src/report/index.ts';
import { writeSnapshot } from '../../src/report/write.ts';
import { redactDeep, redactSummary } from '../../src/report/redact.ts';
import { MAX_SNAPSHOT_POINTS } from '../../src/report/bound.ts';
import { summarySchema } from '../../src/spec/summary.ts';
import { fixtureSummary, LEAKED_SECRET } from './fixture.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'paystorm-report-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const FILES = ['junit.xml', 'report.html', 'summary.json', 'summary.md'];

describe('writeReports', () => {
  it('writes the four reports into the run directory and copies them to reports/latest', async () => {
    const runDir = join(root, 'reports', 'run-1');
    const { files } = await writeReports(runDir, fixtureSummary());
    expect((await readdir(runDir)).sort()).toEqual(FILES);
    const latest = join(root, 'reports', 'latest');
    expect((await readdir(latest)).sort()).toEqual(FILES);
    expect(files).toHaveLength(8);
    for (const name of FILES) expect(await readFile(join(latest, name), 'utf8')).toBe(await readFile(join(runDir, name), 'utf8'));
    // No temporary or old directories left next to latest.
    expect((await readdir(join(root, 'reports'))).sort()).toEqual(['latest', 'run-1']);
  });

  it('writes summary.json as pretty, schema-valid JSON with secrets redacted', async () => {
    const runDir = join(root, 'run');
    await writeReports(runDir, fixtureSummary(), { latestDir: join(root, 'latest') });
    const text = await readFile(join(runDir, 'summary.json'), 'utf8');
    expect(text.split('\n')[1]).toBe('  "version": 1,');
    const parsed = summarySchema.parse(JSON.parse(text));
    expect(parsed.invariants).toHaveLength(fixtureSummary().invariants.length);
    for (const name of FILES) expect(await readFile(join(runDir, name), 'utf8')).not.toContain(LEAKED_SECRET);
    expect(text).toContain('svc_test_sk_[redacted]');
  });

  it('replaces the previous latest content and carries history.ndjson along', async () => {
    const latest = join(root, 'latest');
    await mkdir(latest, { recursive: true });
    await writeFile(join(latest, 'stale.txt'), 'from an older run');
    await writeFile(join(latest, 'summary.json'), '{"old":true}');
    const runDir = join(root, 'run-2');
    await mkdir(runDir, { recursive: true });
    await writeFile(join(runDir, 'history.ndjson'), '{"v":1,"kind":"end"}\n');
    await writeReports(runDir, fixtureSummary(), { latestDir: latest });
    expect((await readdir(latest)).sort()).toEqual([...FILES, 'history.ndjson'].sort());
    expect(JSON.parse(await readFile(join(latest, 'summary.json'), 'utf8')).runId).toBe(fixtureSummary().runId);
    expect(await readFile(join(latest, 'history.ndjson'), 'utf8')).toBe('{"v":1,"kind":"end"}\n');
    expect((await readdir(root)).sort()).toEqual(['latest', 'run-2']);
  });

  it('rejects a summary that does not match schema v1 and writes nothing', async () => {
    const bad = { ...fixtureSummary(), verdict: 'maybe' } as unknown as ReturnType<typeof fixtureSummary>;
    const runDir = join(root, 'bad');
    await expect(writeReports(runDir, bad)).rejects.toThrow();
    await expect(readdir(runDir)).rejects.toThrow(/ENOENT/);
  });

  it('does not copy onto itself when the run directory is the latest directory', async () => {
    const dir = join(root, 'latest');
    const { files } = await writeReports(dir, fixtureSummary(), { latestDir: dir });
    expect(files).toHaveLength(4);
    expect((await readdir(dir)).sort()).toEqual(FILES);
  });
});

describe("a long run's reports", () => {
  const dayLong = () => {
    const s = fixtureSummary();
    const timeline = Array.from({ length: 24 * 3600 }, (_, t) => ({ t, requests: 9, s2xx: 9, s4xx: 0, s5xx: 0, s429: 0, failures: 0, inFlight: 1, latency: { create: { p50: 5, p99: t === 40_000 ? 800 : 9, count: 9 } } }));
    return { ...s, duration_ms: 24 * 3600 * 1000, metrics: { ...s.metrics, timeline, durationMs: 24 * 3600 * 1000 } };
  };
  it("a snapshot (written while the load runs, on its thread) carries an hour's worth of timeline points; the final summary.json every second", async () => {
    const s = dayLong();
    const runDir = join(root, 'run');
    await writeSnapshot(runDir, s, 3600_000);
    const snap = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8'));
    expect(snap.snapshot).toBe(true);
    expect(snap.metrics.timeline.length).toBeLessThanOrEqual(MAX_SNAPSHOT_POINTS);
    expect(snap.metrics.timeline.length).toBeGreaterThan(MAX_SNAPSHOT_POINTS - 100);
    // Per second still, and the p99 spike kept.
    expect(snap.metrics.timeline.every((p: { requests: number }) => p.requests === 9)).toBe(true);
    expect(Math.max(...snap.metrics.timeline.map((p: { latency: { create: { p99: number } } }) => p.latency.create.p99))).toBe(800);
    // The secret is still redacted, and the caller's summary is left as it was.
    expect(await readFile(join(runDir, 'summary.json'), 'utf8')).not.toContain(LEAKED_SECRET);
    expect((s.metrics.timeline as unknown[]).length).toBe(24 * 3600);
    await writeReports(runDir, s, { latestDir: join(root, 'latest'), repro: false });
    const final = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8'));
    expect(final.snapshot).toBeUndefined();
    expect(final.metrics.timeline).toHaveLength(24 * 3600);
  }, 60_000);

  it('redaction copies only what held a secret, and never changes its input', () => {
    const s = fixtureSummary();
    const before = JSON.stringify(s);
    const r = redactSummary(s);
    expect(JSON.stringify(r)).not.toContain(LEAKED_SECRET);
    expect(JSON.stringify(s)).toBe(before);
    // The metrics held no secret: shared, not copied.
    expect(r.metrics).toBe(s.metrics);
    expect(r.invariants).not.toBe(s.invariants);
    const keyed = redactDeep({ a: 1, [`k ${LEAKED_SECRET}`]: 'x', b: [1, 'y'] });
    expect(keyed).toEqual({ a: 1, 'k svc_test_sk_[redacted]': 'x', b: [1, 'y'] });
    expect(Object.keys(keyed)).toEqual(['a', 'k svc_test_sk_[redacted]', 'b']);
  });
});
