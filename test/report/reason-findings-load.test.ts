/** Every report states the verdict's reason first, then the findings (warnings first), the load and the rate-limit boundary. */
import { describe, expect, it } from 'vitest';
import { renderConsole, renderHtml, renderJUnit, renderMarkdown } from '../../src/report/index.ts';
import { fixtureSummary } from './fixture.ts';
import { parseXml } from './xml.ts';

const REASON = 'failed: 3 invariants violated (rate-limit-window, idempotency-single-object, secret-echo)';

describe('reason, findings, load and rate boundary in every report', () => {
  const s = fixtureSummary();

  it('console: the reason right after the run line, findings with the warning first, then load and the burst plot', () => {
    const lines = renderConsole(s).split('\n');
    expect(lines[1]).toBe(REASON);
    const f = lines.slice(lines.indexOf('Findings') + 1, lines.indexOf('Findings') + 4);
    expect(f[0]).toMatch(/^ {2}WARNING processor-unreachable: The processor looks unreachable/);
    expect(f[1]).toMatch(/^ {2}observation refund-path/);
    expect(f[2]).toMatch(/^ {2}info rate-limit-checked/);
    const load = lines.slice(lines.indexOf('Load') + 1).join('\n');
    expect(load).toMatch(/requests: \d+ in 1\.0 min|requests: \d+ in 60\.0 s/);
    expect(load).toContain('upstream-latency constant-arrival-rate: target 40.0/s, achieved 38.5/s (96%), 2310 iterations, 3 dropped');
    // The fixture has no HDR histograms to merge: the slowest series stands in, and says so.
    expect(load).toContain('latency (slowest series, 31 answers): p50 1840 ms, p90 3680 ms, p99 6256 ms, p99.9 9384 ms, max 11592 ms');
    expect(load).toMatch(/statuses: 2xx 2020, 4xx 56, 429 140, 5xx 31; errors \(no answer\) 18; dropped iterations 3/);
    expect(load).toMatch(/faults: latency \(upstream/);
    const rb = lines.slice(lines.indexOf('Rate-limit boundary') + 1, lines.indexOf('Rate-limit boundary') + 7);
    expect(rb[0]).toContain('window edge at 29990-30012 ms');
    expect(rb[1]).toMatch(/^ {2}why this limit: checked 100 \/ 30 s: the embedded/);
    expect(rb[3]).toMatch(/^ {4}admitted \|[▁-█ ]{40}\|$/);
    expect(rb[5].indexOf('^') - rb[3].indexOf('|') - 1).toBe(20);
  });

  it('summary.md: the reason in bold first, then findings, load and the boundary', () => {
    const md = renderMarkdown(s);
    const body = md.split('\n').filter(Boolean);
    expect(body[1]).toBe(`**${REASON}**`);
    expect(md.indexOf('### Findings')).toBeLessThan(md.indexOf('### Load'));
    expect(md.indexOf('⚠️ WARNING processor-unreachable')).toBeLessThan(md.indexOf('ℹ️ info rate-limit-checked'));
    expect(md).toMatch(/- latency \(slowest series, 31 answers\): p50/);
    expect(md).toContain('target 40.0/s, achieved 38.5/s');
    expect(md).toContain('### Rate-limit boundary');
    expect(md.indexOf('### Load')).toBeLessThan(md.indexOf('### Invariants'));
  });

  it('junit.xml: the reason as the first property and first in the suite output; findings as properties', () => {
    const doc = parseXml(renderJUnit(s));
    const xml = renderJUnit(s);
    expect(xml).toMatch(/<properties>\s*<property name="reason" value="failed: 3 invariants violated/);
    expect(xml).toContain('<property name="finding.1.warning.processor-unreachable" value="The processor looks unreachable: 31 creates answered 502."/>');
    expect(xml).toMatch(/<system-out>failed: 3 invariants violated[^<]*Findings:\n {2}WARNING processor-unreachable[^<]*Load:\n {2}requests:[^<]*Rate-limit boundary:/);
    expect(doc).toBeTruthy();
  });

  it('report.html: the reason in the header, findings and load before the invariants, the burst plot inline', () => {
    const html = renderHtml(s);
    expect(html).toContain(`<p class="verdict-reason" id="verdict-reason">${REASON}</p>`);
    expect(html.indexOf('id="findings"')).toBeLessThan(html.indexOf('id="invariants"'));
    expect(html.indexOf('data-finding="processor-unreachable"')).toBeLessThan(html.indexOf('data-finding="rate-limit-checked"'));
    expect(html).toMatch(/<svg class="rate-boundary-plot"[^>]*>.*<rect class="rb-ok".*<rect class="rb-429".*<line [^>]*class="rb-boundary"/s);
    expect(html).toContain('id="load-facts"');
  });

  it('falls back to a reason the summary supports when summary.json has none (older runs)', () => {
    const { reason: _r, ...old } = s;
    expect(renderConsole(old).split('\n')[1]).toBe(REASON);
  });
});
