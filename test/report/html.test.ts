import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/index.ts';
import { fixtureSummary, LEAKED_SECRET } from './fixture.ts';

function inlineData(html: string): { charts: { id: string }[] } {
  const m = /<script type="application\/json" id="paystorm-data">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error('no inline data');
  return JSON.parse(m[1]);
}

describe('renderHtml (static)', () => {
  const html = renderHtml(fixtureSummary());

  it('is self-contained: uPlot and data inlined, nothing loaded from elsewhere', () => {
    expect(html).toContain('var uPlot=');
    expect(html).toContain('.uplot');
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+href=/);
    expect(html).not.toMatch(/url\(\s*['"]?https?:/);
    expect(html).toContain(`default-src 'none'`);
  });

  it('inlines the chart data so that </script> in the data cannot end the script', () => {
    const s = fixtureSummary();
    s.runId = 'run</script><!--x';
    const out = renderHtml(s);
    const data = inlineData(out) as { charts: unknown[]; runId?: string };
    expect((data as { runId: string }).runId).toBe('run</script><!--x');
    expect(out.match(/<\/script>/g)!.length).toBe(3);
    expect(data.charts.length).toBe(7);
  });

  it('escapes evidence and keeps every chart container in the page', () => {
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert(1)');
    for (const c of inlineData(html).charts) expect(html).toContain(`id="${c.id}"`);
    expect(html).not.toContain(LEAKED_SECRET);
  });

  it('lists failures first in the invariant table', () => {
    const statuses = [...html.matchAll(/data-status="([^"]+)"/g)].map((m) => m[1]);
    expect(statuses).toEqual(['fail', 'fail', 'fail', 'error', 'not-exercised', 'pass', 'pass', 'pass']);
  });

  it('renders a run with no metrics and no faults', () => {
    const out = renderHtml({ ...fixtureSummary(), metrics: {}, faults: [] });
    expect(out).toContain('data-charts-expected="0"');
    expect(out).toContain('No faults were injected.');
  });
});
