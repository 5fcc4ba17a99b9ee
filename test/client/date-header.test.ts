/** The response's Date header is recorded (history field `date`, Unix seconds): the oracle's server clock. */
import { describe, expect, it } from 'vitest';
import { parseDateHeader, parseHttpDate, parseRetryAfter, responseRecord, type ExchangeMeta } from '../../src/history/exchange-record.ts';
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

  it('takes a Retry-After only as delta-seconds or an exact HTTP-date; other text is null, not 0', () => {
    const now = Date.UTC(2025, 0, 1) ;
    for (const junk of ['-1', '-30', '1.5', '30s', '0x10', '1e3', '12 30', '5, 5', '30, 60', 'abc 1', 'abc', '', 'Wed, 01 Jan 2025 00:00:30 GMT, Wed, 01 Jan 2025 00:00:40 GMT', '2025-01-01T00:00:30Z', 'Wed, 1 Jan 2025 00:00:30 GMT', 'Wed, 01 Jan 2025 00:00:30 UTC', 'Wed, 31 Feb 2025 00:00:30 GMT', 'Wed, 01 Jan 2025 24:00:30 GMT'])
      expect(parseRetryAfter(junk, now), junk).toBeNull();
    expect(parseRetryAfter(' 30 ', now)).toBe(30);
    expect(parseRetryAfter('0', now)).toBe(0);
    // The three forms RFC 9110 allows, all the same instant.
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Wednesday, 01-Jan-25 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Wed Jan  1 00:00:30 2025', now)).toBe(30);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
  });

  it('records two joined Date headers as no date (the server\'s clock is unknown), and the text of a malformed Retry-After', () => {
    const picked = pickHeaders(raw([['Date', 'Tue, 14 Nov 2023 22:13:23 GMT'], ['Date', 'Tue, 14 Nov 2023 22:15:00 GMT'], ['Retry-After', '5'], ['retry-after', '5']]));
    expect(picked.date).toBe('Tue, 14 Nov 2023 22:13:23 GMT, Tue, 14 Nov 2023 22:15:00 GMT');
    const r = responseRecord(meta, 5, { status: 429, picked, body: '{}' }, new LeakScanner()).record;
    expect('date' in r).toBe(false);
    expect(r.retryAfter).toBeNull();
    expect(r.retryAfterRaw).toBe('5, 5');
  });
});
