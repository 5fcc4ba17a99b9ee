/**
 * A payment whose `amount` is not a number (a string, absent) is normalised to amount NaN, which
 * every encoding writes as null. The history must stay readable and hand the oracle NaN again, so
 * ERR-5 / WH-7 judge it instead of the run ending with "history does not match".
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HistoryWriter, readHistory, historyRecordSchema, type HistoryRecord } from '../../src/history/index.ts';
import { normalizePayment } from '../../src/spec/payment.ts';
import { endRec, runRec, webhook } from '../oracle/fixtures.ts';
import { exchangeRecord } from '../history-file.ts';

const body = { id: 'pay_0a1b2c3d-1111-4222-8333-444455556666', object: 'payment', amount: '1250', currency: 'eur', status: 'succeeded', created: 1, livemode: false, refunds: [], refunded_amount: 0 };

describe('a payment amount that is not a number', () => {
  it('is read back as NaN from ndjson, bin and bin.gz, in exchange and webhook records, validated in full or not', async () => {
    const payment = normalizePayment(body)!;
    expect(payment.amount).toBeNaN();
    const records: HistoryRecord[] = [
      runRec(),
      exchangeRecord({ seq: 1, payment }),
      webhook({ seq: 2, payment, leaks: ['non-integer amount at data.payment.amount'] }),
      endRec(),
    ];
    const dir = mkdtempSync(join(tmpdir(), 'paystorm-nan-amount-'));
    for (const name of ['h.ndjson', 'h.bin', 'h.bin.gz']) {
      const path = join(dir, name);
      const w = new HistoryWriter({ path });
      for (const r of records) w.write(r);
      await w.close();
      for (const fullyValidatedLines of [undefined, 0]) {
        const back: HistoryRecord[] = [];
        for await (const r of readHistory(path, fullyValidatedLines === undefined ? {} : { fullyValidatedLines })) back.push(r);
        const label = `${name} fullyValidatedLines=${fullyValidatedLines}`;
        expect(back.map((r) => r.kind), label).toEqual(['run', 'exchange', 'webhook', 'end']);
        for (const r of back.slice(1, 3)) {
          expect(r.kind === 'exchange' || r.kind === 'webhook' ? r.payment?.amount : 'no payment', label).toBeNaN();
        }
      }
    }
  });

  it('the schema accepts null for the amount and gives NaN, and still refuses a string', () => {
    const rec = JSON.parse(JSON.stringify(webhook({ payment: normalizePayment(body)! })));
    expect(rec.payment.amount).toBeNull();
    const parsed = historyRecordSchema.parse(rec);
    expect(parsed.kind === 'webhook' && parsed.payment?.amount).toBeNaN();
    rec.payment.amount = '1250';
    expect(historyRecordSchema.safeParse(rec).success).toBe(false);
  });
});
