// DriverLinks kept a Map from every redirect path to its payment id to the end: the judge's largest
// growth through a soak of hosted pages. It now keeps the paths in a paged index (old entries on
// disk) and the ids in a paged column. This compares it with the Map (test/oracle/replaced/) on
// random histories, with pages of two rows: every driver call gets the same payment id, or none.
import { describe, expect, it } from 'vitest';
import type { ExchangeRecord, HistoryRecord } from '../../src/history/index.ts';
import { DriverLinks } from '../../src/oracle/lib/driver-links.ts';
import { seededRandom } from '../../src/spec/random.ts';
import { DriverLinks as MapLinks } from './replaced/driver-links.ts';
import { ex, pay, resetSeq, webhook, withPagesOnDisk } from './fixtures.ts';

/** Payments showing redirect URLs (some sharing a path under another host, some no URL at all), and driver calls naming only a path. */
function history(seed: number): HistoryRecord[] {
  const r = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  resetSeq();
  const paths = Array.from({ length: 4 + Math.floor(r() * 20) }, (_, i) => `/hpp/${seed}-${i}`);
  const hosts = ['http://127.0.0.1:8080', 'https://proxy.example', ''];
  const out: HistoryRecord[] = [];
  for (let k = 0; k < 200; k++) {
    const x = r();
    if (x < 0.55) {
      // A payment answered with its redirect (a path may be shown again by another payment: the last wins).
      const id = `pay_${seed}_${Math.floor(r() * 30)}`;
      const url = r() < 0.05 ? 'http://[bad' : `${pick(hosts)}${pick(paths)}${r() < 0.3 ? '?step=1' : ''}`;
      const shape = r();
      const p = pay({ id, status: 'requires_action', ...(shape < 0.5 ? { nextAction: { type: 'redirect', reason: 'three_d_secure', redirectUrl: url } } : shape < 0.8 ? { redirectUrl: url } : {}) });
      out.push(r() < 0.85 ? ex({ op: 'retrieve', payment: p, sent: { paymentId: id } }) : webhook({ payment: p }));
    } else {
      // A driver that followed the URL itself: it names the path, not the payment (a path never shown, now and then).
      const path = r() < 0.1 ? `/hpp/unknown-${k}` : pick(paths);
      out.push(ex({ op: r() < 0.5 ? 'submit_hpp' : 'complete_3ds', status: 303, sent: { path, ...(r() < 0.2 ? { paymentId: `pay_named_${k}` } : {}) } }));
    }
  }
  return out;
}

/** The payment each driver call is tied to after `links` saw the history in order (records are copied: observe fills them in). */
function tied(links: { observe(rec: HistoryRecord): void }, records: HistoryRecord[]): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  for (const rec of records) {
    const copy = structuredClone(rec);
    links.observe(copy);
    if (copy.kind === 'exchange' && (copy.op === 'submit_hpp' || copy.op === 'complete_3ds')) out.push((copy as ExchangeRecord).sent.paymentId);
  }
  return out;
}

describe('DriverLinks, redirect paths in a paged index', () => {
  it('ties every driver call to the payment the Map of paths did', async () => {
    let linked = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const records = history(seed);
      const want = tied(new MapLinks(), records);
      const got = seed % 2 ? await withPagesOnDisk(() => tied(new DriverLinks(), records)) : tied(new DriverLinks(), records);
      expect({ seed, got }).toEqual({ seed, got: want });
      linked += want.filter((id) => id !== undefined && !id.startsWith('pay_named_')).length;
    }
    // Most driver calls are tied by their path.
    expect(linked).toBeGreaterThan(5000);
  });
});
