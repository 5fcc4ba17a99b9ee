/**
 * Opens report.html in Debian's headless Chromium (driven by playwright-core, never a
 * downloaded browser): the charts must render with data, with no console or page errors.
 * Saves test-output/report.png for a human look. CI installs chromium, so its absence
 * is a failure, not a skip.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from '../../src/report/index.ts';
import { fixtureSummary } from './fixture.ts';
import { watchedPage } from './chromium.ts';
import type { RunMetrics } from '../../src/spec/scenario.ts';

const CHROMIUM = '/usr/bin/chromium';
const OUTPUT = resolve('test-output');

let browser: Browser;
let dir: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does this) to run the report browser test`);
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-quic', '--disable-sync'],
  });
  dir = await mkdtemp(join(tmpdir(), 'paystorm-html-'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Opened {
  page: Page;
  problems: string[];
  requests: string[];
}

async function open(summary: ReturnType<typeof fixtureSummary>, name: string): Promise<Opened> {
  const runDir = join(dir, name);
  await writeReports(runDir, summary, { latestDir: join(dir, `${name}-latest`) });
  const { page, problems, requests } = await watchedPage(browser);
  await page.goto(pathToFileURL(join(runDir, 'report.html')).href);
  await page.waitForFunction(() => document.body.dataset.chartsRendered !== undefined, undefined, { timeout: 10_000 });
  return { page, problems, requests };
}

describe('report.html in headless Chromium', () => {
  it('renders every chart with data, shows the evidence, and logs no errors', async () => {
    const summary = fixtureSummary();
    const { page, problems, requests } = await open(summary, 'full');
    try {
      const state = await page.evaluate(() => ({
        rendered: document.body.dataset.chartsRendered,
        expected: document.body.dataset.chartsExpected,
        charts: Array.from(document.querySelectorAll<HTMLElement>('.chart')).map((el) => {
          const canvas = el.querySelector('canvas');
          return { id: el.id, points: Number(el.dataset.points), w: canvas?.width ?? 0, h: canvas?.height ?? 0 };
        }),
      }));
      expect(problems).toEqual([]);
      // Only the page itself was loaded: no network, no other file.
      expect(requests.filter((u) => !u.endsWith('/report.html'))).toEqual([]);
      expect(state.charts).toHaveLength(7);
      expect(state.rendered).toBe(String(state.charts.length));
      expect(state.expected).toBe(state.rendered);
      for (const c of state.charts) {
        expect(c.points, c.id).toBeGreaterThan(0);
        expect(c.w, c.id).toBeGreaterThan(200);
        expect(c.h, c.id).toBeGreaterThan(100);
      }

      // Something was drawn, not just a blank canvas: the throughput chart has non-white pixels inside its plot area.
      const inked = await page.evaluate(() => {
        const canvas = document.querySelector<HTMLCanvasElement>('#chart-throughput canvas')!;
        const ctx = canvas.getContext('2d')!;
        const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
        let n = 0;
        for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0 && (data[i] < 200 || data[i + 1] < 200 || data[i + 2] < 200)) n++;
        return n;
      });
      expect(inked).toBeGreaterThan(1000);

      const row = page.locator('tr[data-invariant="rate-limit-window"]');
      await expect(row.getAttribute('data-status')).resolves.toBe('fail');
      const evidence = await row.innerText();
      expect(evidence).toContain('req_8c1f0a9e2b');
      expect(evidence).toContain('window starting at 30.2 s');
      expect(evidence).toContain('30212.4');
      const idem = await page.locator('tr[data-invariant="idempotency-single-object"]').innerText();
      expect(idem).toContain('race-12');
      expect(idem).toContain('</script><script>alert(1)</script>'); // shown as text, not run
      expect(await page.locator('tr[data-invariant="list-walk-once"] pre.stack').textContent()).toContain('at walkPages');
      expect(await page.locator('#verdict').innerText()).toBe('FAIL');
      expect(await page.locator('#verdict-reason').innerText()).toMatch(/^failed: 3 invariants violated/);
      expect(await page.locator('li.finding').first().getAttribute('data-level')).toBe('warning');
      expect(await page.locator('#load-facts').innerText()).toContain('achieved 38.5/s');
      const plot = await page.locator('svg.rate-boundary-plot').boundingBox();
      expect(plot!.width).toBeGreaterThan(200);
      expect(await page.locator('svg.rate-boundary-plot rect.rb-ok').count()).toBeGreaterThan(5);

      await mkdir(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, 'report.png'), fullPage: true });
    } finally {
      await page.close();
    }
  }, 60_000);

  it('shows the last values in legends, offers a log latency axis against a spike, and stacks crowded fault labels', async () => {
    const summary = fixtureSummary();
    const m = summary.metrics as unknown as RunMetrics;
    // One spike on create at 50 s: a linear axis would flatten everything else.
    m.timeline[50].latency.create = { p50: 900, p99: 60_000, count: 10 };
    // Three more windows starting within a second of the first: their labels must not overlap.
    const near = (n: number, type: string) => ({ ...summary.faults[0], name: `near-${n}`, type, tStart: 20_000 + n * 300, tEnd: 22_000 + n * 300 });
    summary.faults = [...summary.faults, near(1, 'timeout'), near(2, 'slicer'), near(3, 'bandwidth')];
    const { page, problems } = await open(summary, 'spiky');
    try {
      expect(problems).toEqual([]);
      // Legends before any hover: the last value of each series, never "--".
      const legend = () => page.locator('#chart-throughput .u-legend .u-series:not(:first-child) .u-value').allInnerTexts();
      const before = await legend();
      expect(before.length).toBeGreaterThan(3);
      for (const v of before) expect(v).toMatch(/^[\d.]+ \(last\)$/);
      // Hovering shows the value under the cursor; leaving shows the last value again.
      const overEl = page.locator('#chart-throughput .u-over');
      await overEl.scrollIntoViewIfNeeded();
      const over = await overEl.boundingBox();
      await page.mouse.move(over!.x + over!.width * 0.3, over!.y + over!.height / 2, { steps: 5 });
      await page.waitForFunction(() => !document.querySelector('#chart-throughput .u-legend .u-series:nth-child(2) .u-value')?.textContent?.includes('last'), undefined, { timeout: 5_000 });
      for (const v of await legend()) expect(v).toMatch(/^[\d.]+$/);
      await page.mouse.move(5, 5, { steps: 5 });
      await page.waitForFunction(() => !!document.querySelector('#chart-throughput .u-legend .u-series:nth-child(2) .u-value')?.textContent?.includes('last'), undefined, { timeout: 5_000 });
      for (const v of await legend()) expect(v).toMatch(/\(last\)$/);

      // The spiked latency chart starts on a log axis; the checkbox switches it back and forth.
      const create = page.locator('.chart[data-group="latency"]', { has: page.locator('h3', { hasText: 'Latency: create' }) });
      await expect(create.getAttribute('data-scale')).resolves.toBe('log');
      await expect(page.locator('.chart[data-group="latency"]', { has: page.locator('h3', { hasText: 'Latency: retrieve' }) }).getAttribute('data-scale')).resolves.toBe('linear');
      await create.locator('.log-toggle').uncheck();
      await expect(create.getAttribute('data-scale')).resolves.toBe('linear');
      await create.locator('.log-toggle').check();
      await expect(create.getAttribute('data-scale')).resolves.toBe('log');
      expect(Number(await create.getAttribute('data-points'))).toBeGreaterThan(0);

      // Four windows starting within a second: four labels on four rows of the throughput chart.
      const labels = await page.locator('#chart-throughput .uplot').evaluate((el) => ({ n: (el as HTMLElement).dataset.faultLabels, rows: (el as HTMLElement).dataset.faultLabelRows }));
      expect(labels).toEqual({ n: '5', rows: '4' });
      expect(problems).toEqual([]);
      await mkdir(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, 'report-spiky.png'), fullPage: true });
    } finally {
      await page.close();
    }
  }, 60_000);

  it('shows "no data" instead of failing for a run with no metrics', async () => {
    const summary = { ...fixtureSummary(), metrics: {}, faults: [] };
    const { page, problems } = await open(summary, 'empty');
    try {
      expect(problems).toEqual([]);
      expect(await page.evaluate(() => document.body.dataset.chartsRendered)).toBe('0');
      expect(await page.locator('#chart-throughput .nodata').innerText()).toBe('no data');
      expect(await page.locator('tr[data-invariant="rate-limit-window"]').count()).toBe(1);
      await mkdir(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, 'report-empty.png'), fullPage: true });
    } finally {
      await page.close();
    }
  }, 60_000);
});
