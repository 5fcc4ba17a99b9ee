/**
 * Judging tolerances the scenarios and the oracle share: a scenario sizes its waits so the
 * oracle can judge what it sent, so both read the same numbers from here.
 */

/**
 * Slack on "a request sent after Retry-After elapsed" (RL-8). No rounding slack is due: Retry-After
 * is whole seconds, so an honest server rounds the time left up, and a request we send at
 * (our receipt of the 429) + Retry-After reaches the server at least Retry-After after it wrote
 * the 429 (network delay only adds to that). What remains is clock effects at the server: its
 * clock stepping, or another node of a remote deployment with a clock a little behind.
 */
export function retryAfterSlackMs(embedded: boolean): number {
  return embedded ? 50 : 250;
}

/**
 * WH-9: with no retry seen for any event and none declared (--webhook-retry-within), how long
 * (target time, scaled) a failed delivery gets before "not retried" is judged; the webhooks
 * scenario waits this long after its traffic unless every failed delivery was retried sooner.
 */
export const NO_RETRY_SEEN_WAIT_MS = 300_000;

/**
 * WH-4/WH-5: a payment or refund seen terminal at least the acknowledge time plus this grace
 * (target time, scaled) before the run ended must have had its event delivered; the webhooks
 * scenario runs at least that long after its traffic, so its own objects' events are judged.
 */
export const DELIVERY_GRACE_MS = 30_000;

/**
 * Below this gap (ms) a delivery of an event id that arrives right after another delivery of it
 * may be a copy rather than a retry (at-least-once delivery): the receiver's answer policy
 * (src/webhooks/answer.ts) and the oracle's WH-9 check (failed-delivery-retried) read deliveries
 * the same way, except that the oracle measures from the latest delivery that is not itself such
 * a near copy (a run of near deliveries spread wider is retries, not a cascade of copies).
 */
export const COPY_GAP_MS = 200;
