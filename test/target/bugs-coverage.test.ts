/**
 * Every rule of rules.md that a run can check has at least one seeded bug, so the selftest proves
 * end to end (scenario -> history -> oracle) that a violation of it is caught. Rules marked
 * `(observe)` or `(not testable ...)` are exempt: a conforming reference service never produces
 * their situation on purpose.
 */
import { expect, it } from 'vitest';
import { BUGS } from '../../src/target/index.ts';
import { RULES_FILE, rulesText } from '../spec/spec-text.ts';
import { describeWithShared } from '../shared-files.ts';

function rules(): { id: string; exempt: boolean }[] {
  const out: { id: string; exempt: boolean }[] = [];
  for (const line of rulesText().split('\n')) {
    const m = /^- ([A-Z]+-\d+): (.*)$/.exec(line);
    if (m) out.push({ id: m[1], exempt: /^\((observe|not testable)/.test(m[2]) });
  }
  return out;
}

describeWithShared([RULES_FILE], 'seeded bugs cover the rule catalog', () => {
  it('reads the catalog', () => {
    expect(rules().length).toBeGreaterThan(90);
  });

  it('every rule not marked observe or not testable has a seeded bug', () => {
    const seeded = new Set(BUGS.map((b) => b.rule));
    const missing = rules().filter((r) => !r.exempt && !seeded.has(r.id)).map((r) => r.id);
    expect(missing).toEqual([]);
  });

  it('every seeded bug cites a rule of the catalog', () => {
    const ids = new Set(rules().map((r) => r.id));
    expect(BUGS.filter((b) => !ids.has(b.rule)).map((b) => b.name)).toEqual([]);
  });
});
