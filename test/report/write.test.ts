import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeReports } from '../../src/report/index.ts';
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
