/**
 * Every invariant gets a history that keeps its rule (-> pass) and one that
 * breaks it (-> fail, with evidence naming the records that break it).
 */
import { describe, expect, it, beforeEach } from 'vitest';
import { INVARIANTS } from '../../src/oracle/index.ts';
import { invariantResultSchema } from '../../src/spec/index.ts';
import { judgeOne, resetSeq } from './fixtures.ts';
import type { CaseTable } from './cases/types.ts';
import { AUTH_CASES } from './cases/auth.ts';
import { RATE_CASES } from './cases/rate.ts';
import { IDEM_CASES } from './cases/idem.ts';
import { PAY_CASES } from './cases/pay.ts';
import { SM_CASES } from './cases/sm.ts';
import { REF_CASES } from './cases/ref.ts';
import { LIST_CASES } from './cases/list.ts';
import { WH_CASES } from './cases/wh.ts';
import { ERR_CASES, FT_SEC_CASES, TEST_CASES } from './cases/misc.ts';

const TABLES: Record<string, CaseTable> = { auth: AUTH_CASES, rate: RATE_CASES, idem: IDEM_CASES, pay: PAY_CASES, sm: SM_CASES, ref: REF_CASES, list: LIST_CASES, wh: WH_CASES, err: ERR_CASES, test: TEST_CASES, 'ft+sec': FT_SEC_CASES };
const ALL: CaseTable = Object.assign({}, ...Object.values(TABLES));

beforeEach(() => resetSeq());

for (const [family, table] of Object.entries(TABLES)) {
  describe(`invariants: ${family}`, () => {
    for (const [id, c] of Object.entries(table)) {
      describe(id, () => {
        it('passes a history that keeps its rule', async () => {
          const r = await judgeOne(id, c.keeps(), c.run);
          expect(r.error, r.error ?? '').toBeNull();
          expect(r.examples.map((e) => e.message)).toEqual([]);
          expect(r.status).toBe('pass');
          expect(r.checked).toBeGreaterThan(0);
        });
        it('fails a history that breaks it, naming the records', async () => {
          const r = await judgeOne(id, c.violates(), c.run);
          expect(r.error, r.error ?? '').toBeNull();
          expect(r.status).toBe('fail');
          expect(r.violations).toBeGreaterThan(0);
          expect(invariantResultSchema.parse(r)).toBeTruthy();
          const first = r.examples[0];
          if (c.seqs) expect(first.seqs).toEqual(expect.arrayContaining(c.seqs));
          if (c.message) expect(first.message).toMatch(c.message);
        });
        it('is not exercised by an empty history', async () => {
          const r = await judgeOne(id, [], c.run);
          expect(r.status).toBe('not-exercised');
          expect(r.reason).toBeTruthy();
        });
      });
    }
  });
}

describe('registry', () => {
  it('has unique ids and cites known rules', async () => {
    const { isRuleId } = await import('../../src/spec/index.ts');
    const ids = INVARIANTS.map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const inv of INVARIANTS) {
      expect(inv.rules.length, inv.id).toBeGreaterThan(0);
      for (const r of inv.rules) expect(isRuleId(r), `${inv.id} cites ${r}`).toBe(true);
    }
  });
  it('registers every file of src/oracle/invariants, each named after its id', async () => {
    const { readdirSync } = await import('node:fs');
    const files = readdirSync(new URL('../../src/oracle/invariants/', import.meta.url))
      .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
      .map((f) => f.slice(0, -3))
      .sort();
    expect([...INVARIANTS.map((i) => i.id)].sort()).toEqual(files);
  });
  it('every invariant has a keeps/violates case', () => {
    const missing = INVARIANTS.map((i) => i.id).filter((id) => !(id in ALL));
    expect(missing).toEqual([]);
  });
});
