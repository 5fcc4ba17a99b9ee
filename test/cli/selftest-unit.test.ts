import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assessBugRun,
  bugPresentation,
  renderMatrix,
  renderTable,
  resolveBugSelection,
  runSelftest,
  sampleBugs,
  scenariosForRule,
  familyOf,
  type SelftestReport,
} from '../../src/cli/selftest.ts';
import type { RunConfig } from '../../src/cli/config.ts';
import type { RunResult } from '../../src/cli/run.ts';
import { BUGS } from '../../src/target/bugs.ts';
import { SCENARIOS } from '../../scenarios/index.ts';
import { EXIT, PaystormError, type InvariantResult, type Summary } from '../../src/spec/index.ts';

const families = (bs: readonly { rule: string }[]) => bs.map((b) => familyOf(b.rule));

describe('sample selection', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    expect(sampleBugs(5, 42, BUGS).map((b) => b.name)).toEqual(sampleBugs(5, 42, BUGS).map((b) => b.name));
    const samples = new Set([1, 2, 3, 4, 5, 6].map((s) => sampleBugs(5, s, BUGS).map((b) => b.name).join(',')));
    expect(samples.size).toBeGreaterThan(1);
  });
  it('takes one bug per family before a second from any family', () => {
    const nFamilies = new Set(families(BUGS)).size;
    for (const seed of [0, 1, 7, 99, 12345]) {
      const s = sampleBugs(nFamilies, seed, BUGS);
      expect(s).toHaveLength(nFamilies);
      expect(new Set(families(s)).size).toBe(nFamilies);
      const three = sampleBugs(3, seed, BUGS);
      expect(new Set(families(three)).size).toBe(3);
      // Past the number of families, no family holds more than two before all hold two.
      const more = sampleBugs(nFamilies + 3, seed, BUGS);
      const counts = new Map<string, number>();
      for (const f of families(more)) counts.set(f, (counts.get(f) ?? 0) + 1);
      expect(Math.max(...counts.values())).toBe(2);
    }
  });
  it('returns the pool order, no duplicates, and everything when n covers the pool', () => {
    const s = sampleBugs(10, 5, BUGS);
    const idx = s.map((b) => BUGS.indexOf(b));
    expect(idx).toEqual([...idx].sort((a, b) => a - b));
    expect(new Set(s).size).toBe(10);
    expect(sampleBugs(BUGS.length + 5, 5, BUGS)).toEqual([...BUGS]);
  });
  it('resolves --bugs and --sample, refusing bad input with usage errors', () => {
    expect(resolveBugSelection({}, 1)).toEqual({ bugs: [...BUGS], selection: 'all' });
    expect(resolveBugSelection({ bugs: ['ref-no-lock', 'rl-off-by-one'] }, 1).bugs.map((b) => b.name)).toEqual(['rl-off-by-one', 'ref-no-lock']);
    expect(resolveBugSelection({ sample: 3 }, 1).selection).toBe('sample');
    const usage = (f: () => unknown, re: RegExp) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(PaystormError);
        expect((e as PaystormError).exitCode).toBe(EXIT.usage);
        expect((e as Error).message).toMatch(re);
        return;
      }
      throw new Error('expected a usage error');
    };
    usage(() => resolveBugSelection({ bugs: ['no-such-bug'] }, 1), /--bugs: unknown bug\(s\) no-such-bug/);
    usage(() => resolveBugSelection({ bugs: ['rl-off-by-one'], sample: 2 }, 1), /not both/);
    usage(() => resolveBugSelection({ sample: 0 }, 1), /--sample/);
  });
});

describe('scenario selection', () => {
  it('runs only the default-suite scenarios declaring the rule', () => {
    const rl = scenariosForRule('RL-7', 'B');
    expect(rl).toEqual({ scenarios: ['rate-limit'], basis: 'declared' });
    for (const b of BUGS) {
      const p = bugPresentation(b.rule, 'both');
      const sel = scenariosForRule(b.rule, p);
      expect(sel.scenarios.length, b.name).toBeGreaterThan(0);
      for (const name of sel.scenarios) expect(SCENARIOS.some((s) => s.name === name), name).toBe(true);
    }
  });
  it('falls back to non-default scenarios, then hints, then the full suite', () => {
    // FT-* are declared by the default suite's chaos phase (chaos-short); ERR-4 still takes the long chaos scenario (a hint).
    expect(scenariosForRule('FT-1', 'B')).toEqual({ scenarios: ['chaos-short'], basis: 'declared' });
    expect(scenariosForRule('ERR-4', 'B').scenarios).toContain('chaos');
    expect(scenariosForRule('IDEM-11', 'B').basis).toBe('full-suite');
    expect(scenariosForRule('RL-7', 'B', true).basis).toBe('full-suite');
  });
  it('runs a bug in presentation A only when only A-presentation runs declare its rule', () => {
    expect(bugPresentation('RL-1', 'both')).toBe('B');
    expect(bugPresentation('REF-6', 'both')).toBe('B');
    expect(bugPresentation('PAY-10', 'both')).toBe('A');
    expect(bugPresentation('RL-1', 'A')).toBe('A');
  });
});

function inv(id: string, rules: string[], status: InvariantResult['status'], reason: string | null = null): InvariantResult {
  return { id, title: id, rules, status, violations: status === 'fail' ? 1 : 0, examples: [], reason, error: null, checked: 1 };
}
function summaryWith(invariants: InvariantResult[], exitCode = 1): Summary {
  return {
    version: 1,
    runId: 'r',
    verdict: exitCode === 0 ? 'pass' : 'fail',
    complete: true,
    exitCode,
    target: { url: 'http://x', embedded: true, presentation: 'B' },
    started_at: new Date(0).toISOString(),
    duration_ms: 1,
    scenarios: [],
    invariants,
    thresholds: [],
    faults: [],
    metrics: {},
    keys: [],
  };
}

describe('judging a bug run', () => {
  it('is caught only by a failing invariant citing the rule', () => {
    const a = assessBugRun('RL-7', summaryWith([inv('rate-limited-response', ['RL-7'], 'fail'), inv('rate-remaining', ['RL-5'], 'fail'), inv('x', ['RL-1'], 'error')]));
    expect(a.caught).toBe(true);
    expect(a.catching).toEqual(['rate-limited-response']);
    expect(a.otherFailing).toEqual(['rate-remaining', 'x (error)']);
    const b = assessBugRun('RL-7', summaryWith([inv('rate-limited-response', ['RL-7'], 'error'), inv('rate-remaining', ['RL-5'], 'fail')]));
    expect(b.caught).toBe(false);
    expect(b.diagnosis).toMatch(/threw: rate-limited-response/);
  });
  it('says why a bug was not caught', () => {
    expect(assessBugRun('ERR-3', summaryWith([inv('a', ['RL-1'], 'pass')]), []).diagnosis).toMatch(/missing invariant: no invariant cites ERR-3/);
    expect(assessBugRun('RL-7', summaryWith([inv('rl', ['RL-7'], 'not-exercised', 'no 429')])).diagnosis).toMatch(/not exercised: rl \(no 429\)/);
    expect(assessBugRun('RL-7', summaryWith([inv('rl', ['RL-7'], 'pass', '3 checked')])).diagnosis).toMatch(/held: rl \(3 checked\)/);
    expect(assessBugRun('RL-7', null).diagnosis).toMatch(/no verdict/);
  });
});

const report: SelftestReport = {
  seed: 7,
  selection: 'all',
  presentation: 'both',
  fullSuite: false,
  jobs: 2,
  runCapMs: 300_000,
  startedAt: '2025-01-01T00:00:00.000Z',
  durationMs: 90_000,
  bugs: [
    {
      bug: 'rl-no-retry-after',
      rule: 'RL-7',
      presentation: 'B',
      scenarios: ['rate-limit'],
      basis: 'declared',
      escalated: false,
      caught: true,
      cleanAlsoFails: [],
      catching: ['rate-limited-response'],
      otherFailing: ['retry-after-honest'],
      citing: [{ id: 'rate-limited-response', status: 'fail', reason: null }],
      exitCode: 1,
      runDir: '/tmp/x',
      durationMs: 1,
      incomplete: false,
      error: null,
      diagnosis: null,
    },
    {
      bug: 'err-card-error-code',
      rule: 'ERR-3',
      presentation: 'B',
      scenarios: ['auth-and-input', 'flows'],
      basis: 'hint',
      escalated: false,
      caught: false,
      cleanAlsoFails: [],
      catching: [],
      otherFailing: [],
      citing: [],
      exitCode: 0,
      runDir: '/tmp/y',
      durationMs: 1,
      incomplete: false,
      error: null,
      diagnosis: 'missing invariant: no invariant cites ERR-3 | really',
    },
  ],
  clean: [
    { presentation: 'A', passed: true, exitCode: 0, failing: [], runDir: null, durationMs: 1, incomplete: false, error: null },
    { presentation: 'B', passed: false, exitCode: 1, failing: ['hosted-create-shape'], runDir: null, durationMs: 1, incomplete: false, error: null },
  ],
  interrupted: false,
  exitCode: 1,
  outDir: '/tmp/out',
  matrixPath: 'docs/detection-matrix.md',
};

describe('matrix rendering', () => {
  const md = renderMatrix(report);
  it('has one row per bug with rule, caught and the catching invariants', () => {
    expect(md).toMatch(/^# Detection matrix/);
    expect(md).toContain('| bug | rule | caught | catching invariants | other failing invariants | exit | presentation | scenarios |');
    expect(md).toContain('| `rl-no-retry-after` | RL-7 | yes | rate-limited-response | retry-after-honest | 1 | B | rate-limit |');
    expect(md).toContain('| `err-card-error-code` | ERR-3 | **no** | - | - | 0 | B | auth-and-input, flows |');
  });
  it('summarises, lists the clean runs and explains each miss (escaping pipes)', () => {
    expect(md).toContain('Caught: **1 of 2**; not caught: 1');
    expect(md).toContain('presentation A pass, presentation B FAIL (exit 1)');
    expect(md).toContain('| B | FAIL | 1 | hosted-create-shape |');
    expect(md).toContain('## Not caught');
    expect(md).toContain('| `err-card-error-code` | ERR-3 | missing invariant: no invariant cites ERR-3 \\| really |');
    expect(md).toContain('seed 7');
  });
  it('marks a catch by an invariant that also fails on the clean service, and an escalated run', () => {
    const b = { ...report.bugs[0]!, cleanAlsoFails: ['rate-limited-response'], escalated: true, scenarios: ['auth-and-input', 'chaos'] };
    const m = renderMatrix({ ...report, bugs: [b] });
    expect(m).toContain('| `rl-no-retry-after` | RL-7 | yes (suspect) |');
    expect(m).toContain('default suite + chaos (declaring scenarios alone missed it) |');
    expect(m).toMatch(/"yes \(suspect\)".*`rl-no-retry-after` \(rate-limited-response\)/);
  });
  it('leaves out the Not caught section when everything is caught', () => {
    const all = renderMatrix({ ...report, bugs: [report.bugs[0]!], clean: [report.clean[0]!], exitCode: 0 });
    expect(all).not.toContain('## Not caught');
    expect(all).toContain('Verdict: pass (exit 0)');
  });
  it('prints a console table', () => {
    const t = renderTable(report);
    expect(t.split('\n')[0]).toMatch(/^BUG\s+RULE\s+CAUGHT\s+CATCHING INVARIANTS\s+OTHER FAILING\s+EXIT$/);
    expect(t).toMatch(/err-card-error-code\s+ERR-3\s+NO/);
    expect(t).toContain('FAIL: 1 of 2 bugs caught; clean runs 1 of 2 passed; seed 7; exit 1');
  });
});

describe('runSelftest with a fake runner', () => {
  // Catches a bug when its rule's invariant fails; the clean run passes unless told otherwise.
  const fake =
    (opts: { cleanFails?: boolean; missed?: string[] } = {}) =>
    async (cfg: RunConfig): Promise<RunResult> => {
      const bug = cfg.bugs?.[0];
      const info = BUGS.find((b) => b.name === bug);
      const invs: InvariantResult[] = [inv('always', ['AUTH-6'], 'pass')];
      if (info) invs.push(inv(`inv-${info.rule}`, [info.rule], opts.missed?.includes(info.name) ? 'pass' : 'fail'));
      if (!info && opts.cleanFails) invs.push(inv('flaky', ['RL-1'], 'fail'));
      const failed = invs.some((i) => i.status === 'fail');
      return { exitCode: failed ? 1 : 0, summary: summaryWith(invs, failed ? 1 : 0), runDir: cfg.out ?? null };
    };
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-selftest-'));

  it('passes when every bug is caught and both clean runs pass; writes the matrix only when asked or for all bugs', async () => {
    const seen: RunConfig[] = [];
    const r = await runSelftest({
      bugs: ['rl-no-retry-after', 'ref-no-lock'],
      seed: 3,
      out: join(dir, 'a'),
      jobs: 2,
      runner: async (cfg) => {
        seen.push(cfg);
        return fake()(cfg);
      },
    });
    expect(r.exitCode).toBe(0);
    expect(r.bugs.map((b) => [b.bug, b.caught, b.catching])).toEqual([
      ['rl-no-retry-after', true, ['inv-RL-7']],
      ['ref-no-lock', true, ['inv-REF-3']],
    ]);
    expect(r.clean.map((c) => [c.presentation, c.passed])).toEqual([
      ['A', true],
      ['B', true],
    ]);
    expect(r.matrixPath).toBeNull();
    // Clean runs run the full default suite; bug runs only the declaring scenarios, each with the seed and its own out dir.
    expect(seen.filter((c) => !c.bugs?.length).map((c) => [c.presentation, c.scenarios])).toEqual(
      expect.arrayContaining([
        ['A', []],
        ['B', []],
      ]),
    );
    const rl = seen.find((c) => c.bugs?.[0] === 'rl-no-retry-after')!;
    expect(rl.scenarios).toEqual(['rate-limit']);
    expect(rl.seed).toBe(3);
    expect(rl.maxDuration).toBe('300s');
    expect(rl.out).toBe(join(dir, 'a', 'rl-no-retry-after'));
    expect(existsSync(join(dir, 'a', 'selftest.json'))).toBe(true);
    expect(existsSync(join(dir, 'a', 'rl-no-retry-after', 'console.txt'))).toBe(true);
  });

  it('fails on a missed bug, a failing clean run, or a run that throws; writes --matrix', async () => {
    const matrix = join(dir, 'm.md');
    const calls: RunConfig[] = [];
    const r = await runSelftest({
      bugs: ['rl-no-retry-after', 'ref-no-lock'],
      seed: 1,
      presentation: 'B',
      out: join(dir, 'b'),
      matrix,
      runner: async (cfg) => {
        calls.push(cfg);
        return fake({ missed: ['ref-no-lock'] })(cfg);
      },
    });
    expect(r.exitCode).toBe(1);
    expect(r.clean).toHaveLength(1);
    const missed = r.bugs.find((b) => b.bug === 'ref-no-lock')!;
    expect(missed.diagnosis).toMatch(/held: inv-REF-3/);
    // Missed by the narrow run, so run again with the full default suite.
    expect(calls.filter((c) => c.bugs?.[0] === 'ref-no-lock').map((c) => c.scenarios)).toEqual([['refunds'], SCENARIOS.filter((s) => s.defaultSuite).map((s) => s.name)]);
    expect(missed.escalated).toBe(true);
    expect(calls.filter((c) => c.bugs?.[0] === 'rl-no-retry-after')).toHaveLength(1);
    expect(readFileSync(matrix, 'utf8')).toContain('| `ref-no-lock` | REF-3 | **no** |');

    const c = await runSelftest({ bugs: ['rl-no-retry-after'], seed: 1, presentation: 'A', out: join(dir, 'c'), runner: fake({ cleanFails: true }) });
    expect(c.exitCode).toBe(1);
    expect(c.clean[0]).toMatchObject({ presentation: 'A', passed: false, failing: ['flaky'] });

    // A catch by an invariant that fails on the clean service too is marked suspect.
    const s2 = await runSelftest({
      bugs: ['rl-off-by-one'],
      seed: 1,
      presentation: 'B',
      out: join(dir, 's'),
      runner: async (cfg) => {
        const res = await fake()(cfg);
        if (cfg.bugs?.length) return res;
        return { ...res, exitCode: 1, summary: summaryWith([inv('inv-RL-1', ['RL-1'], 'fail')]) };
      },
    });
    expect(s2.bugs[0]).toMatchObject({ caught: true, cleanAlsoFails: ['inv-RL-1'] });

    const d = await runSelftest({
      bugs: ['rl-no-retry-after'],
      seed: 1,
      presentation: 'B',
      out: join(dir, 'd'),
      runner: async (cfg) => {
        if (cfg.bugs?.length) throw new PaystormError('target unreachable', EXIT.target);
        return fake()(cfg);
      },
    });
    expect(d.exitCode).toBe(1);
    expect(d.bugs[0]).toMatchObject({ caught: false, exitCode: EXIT.target, error: 'target unreachable' });
    expect(d.bugs[0]!.diagnosis).toMatch(/the run failed: target unreachable/);
  });

  it('says when a run was stopped by the per-run cap', async () => {
    const r = await runSelftest({
      bugs: ['ft-lose-payment-on-upstream-error'],
      seed: 1,
      skipClean: true,
      runCapMs: 60_000,
      out: join(dir, 'cap'),
      runner: async (cfg) => {
        expect(cfg.maxDuration).toBe('60s');
        const res = await fake({ missed: ['ft-lose-payment-on-upstream-error'] })(cfg);
        return { ...res, summary: { ...res.summary!, complete: false } };
      },
    });
    expect(r.bugs[0]).toMatchObject({ caught: false, incomplete: true });
    expect(r.bugs[0]!.diagnosis).toMatch(/stopped by the 60 s per-run cap/);
    expect(renderMatrix(r)).toMatch(/\| 0 \(incomplete\) \| B \| default suite \(declaring scenarios alone missed it\) \|/);
  });

  it('stops scheduling runs once aborted and exits 130 without a matrix', async () => {
    const ac = new AbortController();
    let runs = 0;
    const r = await runSelftest({
      seed: 1,
      out: join(dir, 'e'),
      matrix: join(dir, 'never.md'),
      signal: ac.signal,
      runner: async (cfg) => {
        runs++;
        ac.abort();
        return fake()(cfg);
      },
    });
    expect(runs).toBe(1);
    expect(r.exitCode).toBe(EXIT.interrupted);
    expect(r.matrixPath).toBeNull();
    expect(existsSync(join(dir, 'never.md'))).toBe(false);
  });
});
