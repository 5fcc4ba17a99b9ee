// A check that keeps a record past its onRecord to name it in evidence later (the hosted page's and
// 3DS's checks keep one a hosted payment, one of them one an observation) keeps `evidenceRec` of it:
// the evidence made from it must be the evidence the whole record gives, and it must not hold the
// record's payment, body or headers (what made a soak with hosted traffic grow a kilobyte or more
// an observation).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readHistory, type ExchangeRecord, type WebhookRecord } from '../../src/history/index.ts';
import { evidence, evidenceRec } from '../../src/oracle/lib/findings.ts';
import { corpusEntries, REPO_ROOT } from '../../scripts/corpus/corpus.ts';
import { EvidenceTable } from '../../src/oracle/lib/evidence-table.ts';
import { pageSettings } from '../../src/oracle/lib/paged-column.ts';
import { create, err, ex, refundObj, refundReq, resetSeq, retrieve, webhook, pay } from './fixtures.ts';

const SAMPLE = join(REPO_ROOT, 'test', 'fixtures', 'oracle-corpus');

/** Every object reachable from `v` (to find what a kept copy still shares with its record). */
function objectsIn(v: unknown, into = new Set<object>()): Set<object> {
  if (v === null || typeof v !== 'object' || into.has(v)) return into;
  into.add(v);
  for (const x of Object.values(v)) objectsIn(x, into);
  return into;
}

function expectSameEvidence(r: ExchangeRecord | WebhookRecord): void {
  const kept = evidenceRec(r);
  expect(evidence('m', [kept], { seqs: [7] })).toEqual(evidence('m', [r], { seqs: [7] }));
  // Nothing of the record's own objects (its payment, sent body, error, headers) is held.
  const theirs = objectsIn(r);
  for (const o of objectsIn(kept)) expect(theirs.has(o)).toBe(false);
  if (r.kind === 'exchange') {
    expect(kept).toMatchObject({ seq: r.seq, tStart: r.tStart, tEnd: r.tEnd });
  } else {
    expect(kept).toMatchObject({ seq: r.seq, tReceived: r.tReceived });
  }
}

describe('evidenceRec', () => {
  it('gives the evidence of the whole record for the records the checks keep, and shares none of its objects', () => {
    resetSeq();
    const long = 'x'.repeat(1000);
    const records: (ExchangeRecord | WebhookRecord)[] = [
      create({ id: 'pay_1', idemKey: 'k-1' }),
      create({ status: 422, error: err('card_declined', { request_id: 'req_9' }), payment: null, bodySnippet: long }),
      ex({ status: 500, error: err('internal_error', { request_id: 42 as unknown as string }), bodySnippet: 'short' }),
      retrieve('pay_1'),
      ex({ op: 'submit_hpp', sent: { paymentId: 'pay_2', cardOutcome: 'three_ds_challenge' }, payment: null }),
      refundReq('pay_3', { r: { paymentId: '' } }),
      refundReq('pay_4'),
      webhook({ payment: pay({ id: 'pay_5' }) }),
      webhook({ payment: null, refund: refundObj({ paymentId: 'pay_6' }) }),
      webhook({ payment: null, refund: null }),
    ];
    for (const r of records) expectSameEvidence(r);
    // A long body is kept trimmed, as evidence shows it: not the kilobyte sent.
    expect(evidenceRec(records[1] as ExchangeRecord).bodySnippet?.length).toBe(300);
  });

  it('gives the same evidence for every exchange and delivery of the committed corpus sample', async () => {
    let n = 0;
    for (const name of corpusEntries(SAMPLE).filter((e) => !e.startsWith('synthetic'))) {
      for await (const r of readHistory(join(SAMPLE, name, 'history.bin.gz'))) {
        if (r.kind !== 'exchange' && r.kind !== 'webhook') continue;
        expectSameEvidence(r);
        n++;
      }
    }
    expect(n).toBeGreaterThan(1000);
  }, 120_000);

  it('an EvidenceTable gives back, from its columns on disk, what each exchange of the corpus sample gives', async () => {
    const saved = { ...pageSettings };
    Object.assign(pageSettings, { rows: 2, resident: 1, reloaded: 1 });
    let table: EvidenceTable;
    try {
      table = new EvidenceTable();
    } finally {
      Object.assign(pageSettings, saved);
    }
    const kept: ExchangeRecord[] = [];
    for (const name of corpusEntries(SAMPLE).filter((e) => !e.startsWith('synthetic')).slice(0, 6)) {
      for await (const r of readHistory(join(SAMPLE, name, 'history.bin.gz'))) {
        if (r.kind !== 'exchange') continue;
        expect(table.push(r)).toBe(kept.length);
        kept.push(r);
      }
    }
    expect(kept.length).toBeGreaterThan(1000);
    // Read back after all were kept: the early rows from the scratch file.
    for (let i = 0; i < kept.length; i++) {
      const back = table.at(i);
      expect(evidence('m', [back])).toEqual(evidence('m', [kept[i]]));
      expect([back.tStart, back.tEnd]).toEqual([kept[i].tStart, kept[i].tEnd]);
    }
  }, 120_000);
});
