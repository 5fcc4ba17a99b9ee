import { describe, expect, it } from 'vitest';
import { renderConsole } from '../../src/report/index.ts';
import { fixtureSummary, LEAKED_SECRET } from './fixture.ts';

describe('renderConsole', () => {
  const s = fixtureSummary();
  const text = renderConsole(s);
  const lines = text.split('\n');

  it('lists failures first, then errors, not-exercised, passes', () => {
    const ids = s.invariants.map((i) => i.id);
    const order = lines.filter((l) => ids.some((id) => l.includes(` ${id} `))).map((l) => l.trim().split(/\s{2,}/)[0]);
    expect(order).toEqual(['FAIL', 'FAIL', 'FAIL', 'ERROR', 'NOT EXERCISED', 'pass', 'pass', 'pass']);
  });

  it('aligns columns', () => {
    const invLines = lines.slice(lines.indexOf('Invariants') + 1, lines.indexOf('Thresholds') - 1);
    expect(invLines).toHaveLength(1 + s.invariants.length);
    // Where each column after the first starts: the end of each run of 2+ spaces.
    const starts = invLines.map((l) => [...l.trimStart().matchAll(/ {2,}(?=\S)/g)].slice(0, 3).map((m) => m.index + m[0].length));
    for (const s of starts) expect(s).toEqual(starts[0]);
  });

  it('shows the not-exercised reason and the threshold breach first', () => {
    expect(text).toMatch(/NOT EXERCISED\s+webhook-terminal-events\s+-\s+WH-4,WH-5\s+no webhook receiver was wired/);
    const thr = lines.slice(lines.indexOf('Thresholds') + 2, lines.indexOf('Thresholds') + 5);
    expect(thr[0]).toMatch(/^\s+BREACHED\s+http_req_duration\{op:create\}\s+p\(99\)<800\s+1234\.50$/);
    expect(thr[1]).toMatch(/^\s+ok\s+http_req_failed/);
  });

  it('ends with the verdict line and the exit code meaning', () => {
    const last = lines.filter(Boolean).at(-1)!;
    expect(last).toBe(
      'FAIL: invariants 3 failed, 1 error, 1 not exercised, 3 passed; 1 of 3 thresholds breached; exit 1: an invariant was violated (or could not be checked)',
    );
  });

  it('uses colour only when asked', () => {
    expect(text).not.toContain('\x1b[');
    const coloured = renderConsole(s, { color: true });
    expect(coloured).toContain('\x1b[31mFAIL');
    expect(coloured.replace(/\x1b\[\d+m/g, '')).toBe(text);
  });

  it('redacts secret-looking strings', () => {
    const x = fixtureSummary();
    x.invariants[0].reason = `saw ${LEAKED_SECRET}`;
    expect(renderConsole(x)).not.toContain(LEAKED_SECRET);
  });

  it('says so when nothing ran', () => {
    const empty = { ...fixtureSummary(), invariants: [], thresholds: [], verdict: 'pass' as const, exitCode: 0 };
    const out = renderConsole(empty);
    expect(out).toContain('(none evaluated)');
    expect(out).toContain('PASS: invariants 0 passed; no thresholds; exit 0: all invariants held and all thresholds were met');
  });
});
