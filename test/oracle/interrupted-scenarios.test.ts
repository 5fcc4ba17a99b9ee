/**
 * An interrupted run's summary says, per selected scenario, whether it ran to its end, was cut
 * short, or never started (summary.json `scenarios[].status`), and a rule left not exercised
 * because the scenario declaring it never started says so, instead of reading as the service's
 * doing. The history has no scenario markers: a paystorm run runs its scenarios one after the
 * other in the run record's order, so the exchanges' `scenario` and the end record tell.
 */
import { describe, expect, it } from 'vitest';
import { EXIT, summarySchema } from '../../src/spec/index.ts';
import { scenarioProgressOf, type EndRecord, type HistoryRecord, type RunRecord } from '../../src/history/index.ts';
import { mergeShards } from '../../src/history/merge.ts';
import { check } from '../../src/oracle/index.ts';
import { renderConsole, renderHtml, renderJUnit, renderMarkdown } from '../../src/report/index.ts';
import { endRec, K, list, rate, runRec } from './fixtures.ts';

const SCENARIOS: RunRecord['scenarios'] = [
  { name: 'mixed', rules: [] },
  { name: 'idempotency', rules: [] },
  { name: 'rate-limit', rules: ['RL-2'] },
];

/** List calls of the given scenario at run times `ts`, all in one rate window that is never seen to its end (RL-2 is not exercised). */
const calls = (scenario: string, ts: number[], key: string = K.test) => ts.map((t) => list([], { scenario, key, t, hasMore: false, rate: rate(1_700_000_060, 19 - t / 10, 20) }));

/** mixed ran and finished, idempotency started and was stopped in its middle, rate-limit never started. */
function interrupted(end: Partial<EndRecord> | null = { complete: false, reason: 'interrupted' }): HistoryRecord[] {
  const recs: HistoryRecord[] = [runRec({ scenarios: SCENARIOS }), ...calls('mixed', [0, 10, 20, 30]), ...calls('idempotency', [50, 60])];
  if (end) recs.push(endRec({ tEnd: 100, requests: 6, ...end }));
  return recs;
}

const statuses = (s: { scenarios: { name: string; status?: string }[] }) => Object.fromEntries(s.scenarios.map((x) => [x.name, x.status]));

describe('interrupted run: which scenarios ran, were cut short, never started', () => {
  it('SIGINT during the second of three scenarios', async () => {
    const { summary, verdict } = await check(interrupted());
    expect(verdict.exitCode).toBe(EXIT.interrupted);
    expect(summary.exitCode).toBe(EXIT.interrupted);
    expect(statuses(summary)).toEqual({ mixed: 'finished', idempotency: 'cut-short', 'rate-limit': 'not-started' });
    expect(summary.scenarios.find((x) => x.name === 'mixed')).toMatchObject({ requests: 4, tStart: 0, tEnd: 40 });
    expect(summary.scenarios.find((x) => x.name === 'idempotency')).toMatchObject({ requests: 2, tStart: 50, tEnd: 70 });
    expect(summary.scenarios.find((x) => x.name === 'rate-limit')).toMatchObject({ requests: 0 });
    expect(summary.scenarios.find((x) => x.name === 'rate-limit')!.tStart).toBeUndefined();
    // The field survives the schema (writeReports writes what summarySchema.parse returns).
    expect(statuses(summarySchema.parse(summary))).toEqual(statuses(summary));
    // The one-sentence reason says how far the run got.
    expect(summary.reason).toMatch(/^failed: the run was interrupted before its scenarios finished \(mixed ran to its end; idempotency was cut short; rate-limit never started\)/);
    // A rule only the unstarted scenario declares: explained as such, not as the service's doing.
    const rl2 = summary.invariants.filter((i) => i.rules.includes('RL-2') && i.status === 'not-exercised');
    expect(rl2.length).toBeGreaterThan(0);
    for (const i of rl2) expect(i.reason, i.id).toMatch(/^not exercised because the scenario rate-limit never started \(the run was interrupted\)/);
    // Invariants no unrun scenario declares keep their own reason.
    for (const i of summary.invariants.filter((i) => !i.rules.includes('RL-2'))) expect(i.reason ?? '', i.id).not.toMatch(/never started/);
    const f = summary.findings!.find((x) => x.id === 'scenarios-not-finished');
    expect(f).toMatchObject({ level: 'warning' });
    expect(f!.text).toMatch(/^The run was interrupted: 1 of 3 scenarios ran to its end \(mixed\); idempotency was cut short; rate-limit never started\./);
    expect(f!.rules).toEqual(['RL-2']);
  });

  it('a history without its end record (killed) reads the same', async () => {
    const { summary } = await check(interrupted(null));
    expect(summary.exitCode).toBe(EXIT.interrupted);
    expect(statuses(summary)).toEqual({ mixed: 'finished', idempotency: 'cut-short', 'rate-limit': 'not-started' });
  });

  it('interrupted during the first scenario: the others never started', async () => {
    const recs = [runRec({ scenarios: SCENARIOS }), ...calls('mixed', [0, 10]), endRec({ tEnd: 30, complete: false, reason: 'interrupted', requests: 2 })];
    const { summary } = await check(recs);
    expect(statuses(summary)).toEqual({ mixed: 'cut-short', idempotency: 'not-started', 'rate-limit': 'not-started' });
  });

  it('a run that finished: every scenario ran to its end, and no finding', async () => {
    const recs = [runRec({ scenarios: SCENARIOS }), ...calls('mixed', [0]), ...calls('idempotency', [50]), endRec({ tEnd: 100, requests: 2 })];
    const { summary } = await check(recs);
    expect(statuses(summary)).toEqual({ mixed: 'finished', idempotency: 'finished', 'rate-limit': 'finished' });
    expect(summary.findings!.some((x) => x.id === 'scenarios-not-finished')).toBe(false);
    for (const i of summary.invariants) expect(i.reason ?? '').not.toMatch(/never started|cut short/);
  });

  it('a scenario that threw: the run went on, that one is cut short', async () => {
    const { summary, verdict } = await check(interrupted({ complete: false, reason: 'scenario-error: idempotency' }));
    expect(verdict.exitCode).toBe(EXIT.violation);
    expect(statuses(summary)).toEqual({ mixed: 'finished', idempotency: 'cut-short', 'rate-limit': 'finished' });
  });

  it('a cap: the verdict names the scenario that never started as the reason a declared rule was not exercised', async () => {
    const { summary, verdict } = await check(interrupted({ complete: false, reason: 'cap:max-requests' }));
    expect(statuses(summary)).toEqual({ mixed: 'finished', idempotency: 'cut-short', 'rate-limit': 'not-started' });
    expect(verdict.exitCode).toBe(EXIT.violation);
    expect(verdict.reason).toMatch(/^failed: RL-2 was not exercised because the scenario rate-limit never started \(the --max-requests cap stopped the run\)/);
  });

  it('merged shards: each shard says how far its scenarios got', async () => {
    // Its own key: the rate counters of the two shards' keys stay apart.
    const shardA = [runRec({ runId: 'a', scenarios: [{ name: 'mixed', rules: [] }] }), ...calls('mixed', [0, 10], K.test2), endRec({ tEnd: 50, requests: 2 })];
    const shardB = interrupted();
    (shardB[0] as RunRecord).runId = 'b';
    const { records } = mergeShards([
      { source: 'a/history.bin.gz', kind: 'paystorm', records: shardA },
      { source: 'b/history.bin.gz', kind: 'paystorm', records: shardB },
    ]);
    const { summary, verdict } = await check(records);
    expect(verdict.exitCode).toBe(EXIT.interrupted);
    // mixed ran to its end in both shards; the rest only in b, which was interrupted.
    expect(statuses(summary)).toEqual({ mixed: 'finished', idempotency: 'cut-short', 'rate-limit': 'not-started' });
  });

  it('every report shows it', async () => {
    const { summary } = await check(interrupted());
    const text = renderConsole(summary);
    expect(text).toMatch(/^Scenarios$/m);
    expect(text).toMatch(/^ {2}finished\s+mixed\b/m);
    expect(text).toMatch(/^ {2}CUT SHORT\s+idempotency\b/m);
    expect(text).toMatch(/^ {2}NOT STARTED\s+rate-limit\b/m);
    const md = renderMarkdown(summary);
    expect(md).toContain('mixed, idempotency (cut short), rate-limit (never started)');
    const html = renderHtml(summary);
    expect(html).toMatch(/<tr data-scenario="rate-limit" data-status="not-started">/);
    expect(html).toMatch(/<tr data-scenario="idempotency" data-status="cut-short">/);
    const xml = renderJUnit(summary);
    expect(xml).toContain('<property name="scenario.mixed" value="finished"/>');
    expect(xml).toContain('<property name="scenario.rate-limit" value="not-started"/>');
  });

  it('k6 output: cut short when the end marker says the plan did not run, not known without a marker', () => {
    const k6 = (end: Record<string, unknown>) => [
      runRec({ scenarios: [{ name: 'mixed', rules: [] }, { name: 'other', rules: [] }], facts: { source: 'k6', k6: { end } } }),
      ...calls('mixed', [0, 10]),
      endRec({ tEnd: 30, complete: false, reason: 'interrupted', requests: 2 }),
    ];
    const of = (end: Record<string, unknown>) => Object.fromEntries(scenarioProgressOf(k6(end)).map((p) => [p.name, p.status]));
    expect(of({ marker: true, planRan: false, expected: true })).toEqual({ mixed: 'cut-short', other: 'not-started' });
    expect(of({ marker: false, planRan: false, expected: true })).toEqual({ mixed: 'cut-short', other: 'not-started' });
    expect(of({ marker: false, planRan: false, expected: false })).toEqual({ mixed: 'started', other: 'not-started' });
  });

  it('a merge written before shards recorded their progress: started or not, no more', () => {
    const recs = interrupted({ complete: false, reason: 'shard b/history.bin.gz: interrupted' });
    (recs[0] as RunRecord).facts = { merge: [{ source: 'a' }, { source: 'b' }] };
    expect(Object.fromEntries(scenarioProgressOf(recs).map((p) => [p.name, p.status]))).toEqual({ mixed: 'started', idempotency: 'started', 'rate-limit': 'not-started' });
  });
});
