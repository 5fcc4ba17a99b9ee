/**
 * A simulated webhook sender for WH-9 tests: each event is delivered once per entry of `offsets`
 * (after the event's start), each delivery chain retried after a failure by `gap(k)` (k = that
 * chain's failures so far), up to `horizon`. The receiver answers with its own AnswerBook, as in a
 * run (failShare 1: every event fails; the first three failing events fail three times per chain,
 * as the receiver reads the chains).
 */
import type { WebhookRecord } from '../../src/history/index.ts';
import { AnswerBook } from '../../src/webhooks/answer.ts';
import { pay, webhook } from './fixtures.ts';

export function simulateDeliveries(events: readonly { id: string; start: number }[], o: { offsets: readonly number[]; gap: (k: number) => number; horizon: number }): WebhookRecord[] {
  const book = new AnswerBook({ seed: 1, failShare: 1, stallShare: 0, failAttempts: 3 });
  const chains = events.flatMap((e) => o.offsets.map((off) => ({ id: e.id, next: e.start + off, failed: 0, done: false })));
  const seen = new Map<string, number>();
  const out: WebhookRecord[] = [];
  for (;;) {
    const live = chains.filter((x) => !x.done && x.next <= o.horizon).sort((a, b) => a.next - b.next);
    if (!live.length) break;
    const x = live[0];
    const attempt = seen.get(x.id) ?? 0;
    seen.set(x.id, attempt + 1);
    const answered = book.answer(x.id, attempt, false, x.next) === 'fail' ? 500 : 200;
    out.push(webhook({ eventId: x.id, tReceived: x.next, answered, duplicate: attempt > 0, payment: pay({ id: `pay_${x.id}`, status: 'succeeded' }) }));
    if (answered === 200) x.done = true;
    else x.next += o.gap(x.failed++);
  }
  return out;
}
