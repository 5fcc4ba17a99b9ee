import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/report/index.ts';
import { fixtureSummary, LEAKED_SECRET } from './fixture.ts';

/** Splits a GFM table row on unescaped pipes (what GitHub does). */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

function tableAfter(md: string, heading: string): string[] {
  const lines = md.split('\n');
  const start = lines.indexOf(heading);
  const rows: string[] = [];
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i].startsWith('|')) rows.push(lines[i]);
    else if (rows.length) break;
  }
  return rows;
}

describe('renderMarkdown', () => {
  it('has a verdict heading and one invariant row per invariant, failures first', () => {
    const s = fixtureSummary();
    const md = renderMarkdown(s);
    expect(md.split('\n')[0]).toBe('## paystorm ❌ FAIL');
    const rows = tableAfter(md, '### Invariants');
    expect(rows).toHaveLength(2 + s.invariants.length);
    const statuses = rows.slice(2).map((r) => cells(r)[0]);
    expect(statuses).toEqual(['❌ fail', '❌ fail', '❌ fail', '💥 error', '⚪ not exercised', '✅ pass', '✅ pass', '✅ pass']);
    for (const r of rows) expect(cells(r)).toHaveLength(6);
  });

  it('lists thresholds, breached first, expressions as code', () => {
    const rows = tableAfter(renderMarkdown(fixtureSummary()), '### Thresholds');
    expect(rows).toHaveLength(2 + 3);
    expect(cells(rows[2])).toEqual(['❌ breached', 'http_req_duration{op:create}', '`p(99)<800`', '1234.50']);
  });

  it('escapes | and newlines so a cell cannot break the table', () => {
    const s = fixtureSummary();
    s.invariants[0].reason = 'left | right\nnext line <b>';
    s.thresholds[0].expr = 'rate<0.05 | x';
    const md = renderMarkdown(s);
    const inv = tableAfter(md, '### Invariants');
    for (const r of inv) expect(cells(r)).toHaveLength(6);
    const row = inv.find((r) => r.includes('auth-401'))!;
    expect(cells(row)[5]).toBe('left \\| right<br>next line &lt;b&gt;');
    const thr = tableAfter(md, '### Thresholds');
    for (const r of thr) expect(cells(r)).toHaveLength(4);
    expect(thr.some((r) => r.includes('`rate<0.05 \\| x`'))).toBe(true);
  });

  it('shows evidence of failures and error stacks in fenced blocks, never a secret', () => {
    const md = renderMarkdown(fixtureSummary());
    expect(md).toContain('req_8c1f0a9e2b');
    expect(md).toContain('idempotency keys: race-12');
    expect(md).toContain('at walkPages (src/oracle/list.ts:88:21)');
    expect(md).not.toContain(LEAKED_SECRET);
  });

  it('uses a longer fence when evidence contains backticks', () => {
    const s = fixtureSummary();
    s.invariants[1].examples = [{ message: 'has ``` inside' }];
    const md = renderMarkdown(s);
    expect(md).toContain('````text\n--- example 1 of 2\nhas ``` inside\n````');
  });
});
