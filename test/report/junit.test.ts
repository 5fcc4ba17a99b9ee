import { describe, expect, it } from 'vitest';
import { renderJUnit } from '../../src/report/index.ts';
import { fixtureSummary, LEAKED_SECRET } from './fixture.ts';
import { findAll, parseXml } from './xml.ts';

describe('renderJUnit', () => {
  const summary = fixtureSummary();
  const doc = parseXml(renderJUnit(summary));
  const cases = findAll(doc, 'testcase');

  it('has one testcase per invariant and per threshold, with consistent counts', () => {
    expect(doc.name).toBe('testsuites');
    expect(cases).toHaveLength(summary.invariants.length + summary.thresholds.length);
    expect(doc.attrs.tests).toBe(String(cases.length));
    // 3 failed invariants + 1 breached threshold
    expect(doc.attrs.failures).toBe('4');
    expect(doc.attrs.errors).toBe('1');
    expect(doc.attrs.skipped).toBe('1');
    const suites = findAll(doc, 'testsuite');
    expect(suites.map((s) => s.attrs.name)).toEqual(['paystorm.invariants', 'paystorm.thresholds']);
  });

  it('puts the evidence in the failure of a violated invariant', () => {
    const rl = cases.find((c) => c.attrs.name.startsWith('rate-limit-window:'))!;
    const [failure] = findAll(rl, 'failure');
    expect(failure.attrs.type).toBe('violation');
    expect(failure.attrs.message).toBe('2 violations: 2 windows exceeded X-RateLimit-Limit');
    expect(failure.text).toContain('req_8c1f0a9e2b');
    expect(failure.text).toContain('window starting at 30.2 s');
    expect(failure.text).toContain('m1/test/…a1b2');
    expect(failure.text).toContain('30212.4');
  });

  it('maps error to <error> with the stack, not-exercised to <skipped> with the reason', () => {
    const err = cases.find((c) => c.attrs.name.startsWith('list-walk-once'))!;
    expect(findAll(err, 'error')[0].text).toContain('at walkPages (src/oracle/list.ts:88:21)');
    const skipped = cases.find((c) => c.attrs.name.startsWith('webhook-terminal-events'))!;
    expect(findAll(skipped, 'skipped')[0].attrs.message).toMatch(/no webhook receiver/);
    const pass = cases.find((c) => c.attrs.name.startsWith('auth-401'))!;
    expect(pass.children.map((c) => c.name)).toEqual(['system-out']);
  });

  it('reports a breached threshold as a failure with the observed value', () => {
    const t = cases.find((c) => c.attrs.name === 'http_req_duration{op:create}: p(99)<800')!;
    expect(findAll(t, 'failure')[0].attrs.message).toBe('http_req_duration{op:create}: p(99)<800 breached: observed 1234.50');
    const ok = cases.find((c) => c.attrs.name === 'http_req_failed: rate<0.05')!;
    expect(findAll(ok, 'failure')).toHaveLength(0);
  });

  it('escapes <, &, " and quotes in messages, names and bodies (round-trips through a strict parser)', () => {
    const s = fixtureSummary();
    s.invariants[1].reason = 'a <b> & "c" \'d\'\nsecond line';
    s.invariants[1].title = 'title with <tag> & "quotes"';
    s.invariants[1].examples[0].message = '</failure><x>&amp; ]]>';
    const d = parseXml(renderJUnit(s));
    const tc = findAll(d, 'testcase').find((c) => c.attrs.name.startsWith('rate-limit-window'))!;
    expect(tc.attrs.name).toBe('rate-limit-window: title with <tag> & "quotes"');
    const f = findAll(tc, 'failure')[0];
    expect(f.attrs.message).toBe('2 violations: a <b> & "c" \'d\'\nsecond line');
    expect(f.text).toContain('</failure><x>&amp; ]]>');
  });

  it('replaces characters XML cannot carry and redacts secrets', () => {
    const s = fixtureSummary();
    s.invariants[1].examples[0].message = 'nul\u0000 bell\u0007 ok';
    const xml = renderJUnit(s);
    expect(() => parseXml(xml)).not.toThrow();
    expect(xml).not.toMatch(/[\u0000\u0007]/);
    expect(xml).not.toContain(LEAKED_SECRET);
    expect(xml).toContain('svc_test_sk_[redacted]');
  });
});

describe('the test XML parser', () => {
  it('rejects what an unescaped renderer would produce, so the escaping tests have teeth', () => {
    expect(() => parseXml('<a>x & y</a>')).toThrow(/bare &/);
    expect(() => parseXml('<a b="<"/>')).toThrow(/malformed tag/);
    expect(() => parseXml('<a><b></a>')).toThrow(/mismatched/);
    expect(() => parseXml('<a b="x" c=d/>')).toThrow(/malformed tag/);
  });
});
