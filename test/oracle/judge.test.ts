import { describe, expect, it } from 'vitest';
import { INVARIANTS, judge, type Invariant } from '../../src/oracle/index.ts';
import { Findings } from '../../src/oracle/lib/findings.ts';
import { ex, runRec, err } from './fixtures.ts';

const probe = () => ex({ op: 'raw', status: 401, error: err('invalid_api_key'), sent: { auth: 'missing' } });

const throwing: Invariant = {
  id: 'throws-on-exchange',
  title: 'test double that throws',
  rules: ['AUTH-1'],
  create() {
    return {
      onRecord(rec) {
        if (rec.kind === 'exchange') throw new Error('boom in onRecord');
      },
      finish: () => new Findings().outcome('never'),
    };
  },
};
const counting: Invariant = {
  id: 'counts-exchanges',
  title: 'test double that counts',
  rules: ['AUTH-1'],
  create() {
    const f = new Findings();
    return {
      onRecord(rec) {
        if (rec.kind === 'exchange') f.check();
      },
      finish: () => f.outcome('no exchange'),
    };
  },
};

describe('judge', () => {
  it('turns an exception into error with its stack while the other invariants still run', async () => {
    const { invariants } = await judge([runRec(), probe(), probe()], { invariants: [throwing, counting] });
    const bad = invariants.find((i) => i.id === 'throws-on-exchange')!;
    const good = invariants.find((i) => i.id === 'counts-exchanges')!;
    expect(bad.status).toBe('error');
    expect(bad.error).toMatch(/boom in onRecord/);
    expect(bad.error).toMatch(/judge\.test\.ts/);
    expect(good.status).toBe('pass');
    expect(good.checked).toBe(2);
  });

  it('sorts failures first', async () => {
    const { invariants } = await judge([runRec(), probe()], { invariants: [counting, throwing] });
    expect(invariants.map((i) => i.status)).toEqual(['error', 'pass']);
  });

  it('returns the run and end records and accepts async iterables', async () => {
    async function* gen() {
      yield runRec();
      yield probe();
    }
    const j = await judge(gen(), { only: ['auth-malformed-header'] });
    expect(j.run?.runId).toBe('run-test');
    expect(j.end).toBeNull();
    expect(j.invariants[0].status).toBe('pass');
  });

  it('reports every registered invariant not-exercised, with a reason, on an empty history', async () => {
    const { invariants } = await judge([]);
    expect(invariants).toHaveLength(INVARIANTS.length);
    for (const r of invariants) {
      expect(r.status, r.id).toBe('not-exercised');
      expect(r.reason, r.id).toMatch(/\w{4,}/);
    }
  });

  it('hands a check only the records its kinds, ops and answers filters ask for', async () => {
    const seen: number[] = [];
    const picky: Invariant = {
      id: 'picky',
      title: 'test double with filters',
      rules: ['ERR-1'],
      create() {
        const f = new Findings();
        return { kinds: ['exchange'], ops: ['retrieve'], answers: 'errors', onRecord: (r) => void seen.push((r as { seq: number }).seq), finish: () => f.outcome('x') };
      },
    };
    const recs = [
      runRec(),
      ex({ seq: 1, op: 'retrieve', status: 404, error: err('resource_missing') }),
      ex({ seq: 2, op: 'retrieve', status: 200 }),
      ex({ seq: 3, op: 'list', status: 400, error: err('parameter_invalid') }),
      ex({ seq: 4, op: 'retrieve', status: 500, error: err('internal_error') }),
    ];
    await judge(recs, { invariants: [picky] });
    expect(seen).toEqual([1, 4]);
  });

  it('rejects unknown invariant ids in `only`', async () => {
    await expect(judge([], { only: ['no-such-invariant'] })).rejects.toThrow(/no-such-invariant/);
  });
});

describe('judge findings', () => {
  const reporting = (id: string, level: 'info' | 'warning', text: string): Invariant => ({
    id,
    title: id,
    rules: ['AUTH-1'],
    create: () => ({ finish: () => ({ ...new Findings().outcome('none'), findings: [{ id: 'shared-fact', level, text }] }) }),
  });
  it('keeps one finding per id (the first reported) and puts warnings first', async () => {
    const warnOnce: Invariant = { id: 'w', title: 'w', rules: ['AUTH-1'], create: () => ({ finish: () => ({ ...new Findings().outcome('none'), findings: [{ id: 'z-warning', level: 'warning', text: 'trouble' }] }) }) };
    const { findings } = await judge([runRec()], { invariants: [reporting('a', 'info', 'first'), reporting('b', 'info', 'second'), warnOnce] });
    expect(findings.map((f) => [f.id, f.text])).toEqual([
      ['z-warning', 'trouble'],
      ['shared-fact', 'first'],
    ]);
  });
});
