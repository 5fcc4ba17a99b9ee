/** The response's Date header is recorded (history field `date`, Unix seconds): the oracle's server clock. */
import { describe, expect, it } from 'vitest';
import { parseDateHeader, parseRetryAfter, responseRecord, type ExchangeMeta } from '../../src/history/exchange-record.ts';
import { pickHeaders } from '../../src/client/transport.ts';
import { LeakScanner } from '../../src/history/leak-scanner.ts';

const meta: ExchangeMeta = { scenario: 's', op: 'retrieve', key: 'k', sent: {}, tIntended: 0, tStart: 0, wall: 1_700_000_000_500 };
const raw = (headers: [string, string][]) => headers.flatMap(([k, v]) => [Buffer.from(k), Buffer.from(v)]);

describe('Date header', () => {
  it('is recorded as Unix seconds, and absent when missing or not a date', () => {
    const picked = pickHeaders(raw([['Date', 'Tue, 14 Nov 2023 22:13:23 GMT'], ['content-type', 'application/json']]));
    const r = responseRecord(meta, 5, { status: 200, picked, body: '{}' }, new LeakScanner());
    expect(r.record.date).toBe(Date.UTC(2023, 10, 14, 22, 13, 23) / 1000);
    const none = responseRecord(meta, 5, { status: 200, picked: pickHeaders(raw([])), body: '{}' }, new LeakScanner());
    expect('date' in none.record).toBe(false);
    expect(parseDateHeader('yesterday')).toBeUndefined();
    expect(parseDateHeader(null)).toBeUndefined();
  });

  it('converts an HTTP-date Retry-After against the server\'s own Date, not our clock', () => {
    const date = Date.UTC(2023, 10, 14, 22, 13, 23) / 1000;
    // Our clock is 100 s ahead of the server's: only the server's Date gives the honest 7 s.
    expect(parseRetryAfter('Tue, 14 Nov 2023 22:13:30 GMT', date * 1000 + 100_000, date)).toBe(7);
    expect(parseRetryAfter('Tue, 14 Nov 2023 22:13:30 GMT', date * 1000 + 100_000)).toBe(0);
    expect(parseRetryAfter('12', 0, date)).toBe(12);
  });
});
