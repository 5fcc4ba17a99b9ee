/**
 * history.ndjson, format v1: one JSON record a line. Everything the oracle reads is
 * here, so `paystorm check` judges a saved run exactly as a live one. Keys and card
 * numbers never appear: a key is its label, a card its last four and its outcome.
 *
 * Times: `t*` fields are milliseconds on the run's monotonic clock (0 = run start,
 * fractional); `wall` fields are Unix epoch milliseconds.
 */
import { z } from 'zod';
import { OPERATIONS } from '../spec/operations.ts';
import { CARD_OUTCOMES } from '../spec/cards.ts';
import { EVENT_TYPES } from '../spec/events.ts';
import { PAYMENT_STATUSES, REFUND_STATUSES } from '../spec/statuses.ts';

import { HISTORY_VERSION } from './version.ts';

export { HISTORY_VERSION };

const canonicalRefund = z.object({
  id: z.string(),
  paymentId: z.string(),
  // null: the refund body had no amount (not shown by the spec).
  amount: z.number().nullable(),
  status: z.enum(REFUND_STATUSES),
  created: z.number().nullable(),
});

/**
 * A payment's amount. normalizePayment gives NaN for a body whose `amount` is not a number (a
 * string, absent), and JSON writes NaN as null: null reads back as NaN, so such a record stays
 * readable and the oracle still sees an amount that is no integer (ERR-5, WH-7). Readers that take
 * records without this schema's output call reviveRecord.
 */
const paymentAmount = z.union([z.number(), z.null().transform((): number => NaN)]);

const canonicalPayment = z.object({
  id: z.string(),
  presentation: z.enum(['A', 'B']),
  status: z.enum(PAYMENT_STATUSES),
  wireStatus: z.string(),
  amount: paymentAmount,
  currency: z.string(),
  livemode: z.boolean().nullable(),
  created: z.number().nullable(),
  hosted: z.boolean().nullable(),
  nextAction: z.object({ type: z.string(), reason: z.string().nullable(), redirectUrl: z.string().nullable() }).nullable(),
  amountRefunded: z.number().nullable(),
  amountRefundable: z.number().nullable(),
  card: z
    .object({
      brand: z.string().nullable(),
      last4: z.string().nullable(),
      exp_month: z.number().nullable(),
      exp_year: z.number().nullable(),
      country: z.string().nullable().optional(),
    })
    .nullable(),
  failureCode: z.string().nullable(),
  description: z.string().nullable(),
  metadata: z.record(z.string(), z.any()).nullable(),
  merchantReference: z.number().nullable(),
  redirectUrl: z.string().nullable(),
  succeededAt: z.number().nullable(),
  failedAt: z.number().nullable(),
  refundedAt: z.number().nullable(),
  refunds: z.array(canonicalRefund).nullable(),
});

export const keyInfoSchema = z.object({
  label: z.string(),
  merchant: z.string(),
  mode: z.enum(['test', 'live']),
  prefix: z.string(),
  last4: z.string(),
  /** Capabilities known to the run (e.g. the reference service's no-Direct-API key). */
  directApi: z.boolean().optional(),
  /**
   * The key may be used by other clients during the run (`--shared-key`): rules that need the
   * run to own the key's traffic (the rate limit's lower bound) only observe it. Absent: owned.
   */
  shared: z.boolean().optional(),
});
export type KeyInfo = z.infer<typeof keyInfoSchema>;

export const runRecordSchema = z.object({
  v: z.literal(HISTORY_VERSION),
  kind: z.literal('run'),
  runId: z.string(),
  wall: z.number(),
  target: z.object({
    url: z.string(),
    embedded: z.boolean(),
    presentation: z.enum(['A', 'B']).nullable(),
    /** Payments paystorm's presentation probe created before the run's first request: in no exchange, but lists may show them (FT-3). */
    probePayments: z.array(z.string()).optional(),
  }),
  /** Learned from X-RateLimit-Limit and the window edges; null when unknown. */
  rateLimit: z.object({ limit: z.number(), windowMs: z.number() }).nullable(),
  keys: z.array(keyInfoSchema),
  /** `thresholds`: the scenario's own default thresholds (k6 syntax), so `check` applies them without the scenario's code (a user's scenario file). */
  scenarios: z.array(z.object({ name: z.string(), rules: z.array(z.string()), thresholds: z.array(z.string()).optional() })),
  seed: z.number(),
  timeScale: z.number(),
  /** SM-6 / FT-2 bound in ms (already scaled). */
  settleBoundMs: z.number(),
  webhooks: z
    .object({
      receiverUrl: z.string(),
      /** Whether the target is known to deliver to the receiver (embedded: yes). */
      wired: z.boolean(),
      failShare: z.number(),
      ackTimeoutMs: z.number(),
      /**
       * Receiver paths the target delivers each mode's events to (WH-10), when the run set them
       * up per mode (embedded: `/webhooks/test` and `/webhooks/live`). Absent: not known.
       */
      endpoints: z.array(z.object({ path: z.string(), mode: z.enum(['test', 'live']) })).optional(),
      /**
       * WH-9: how long (the target's time, before time scaling) a failed delivery may wait for its
       * retry, when the run declared it (`--webhook-retry-within`). The spec sets no first retry
       * delay. Absent: "not retried" is judged from the service's own first retries (twice the
       * longest seen), or after 5 minutes when none was seen.
       */
      retryWithinMs: z.number().positive().optional(),
    })
    .nullable(),
  /**
   * The target's 3DS challenge time-out in ms (SM-4), when declared: the embedded service's
   * scaled challenge expiry, or `--challenge-timeout` for a real target. Absent: not known, and
   * an abandoned challenge that never ends is not judged.
   */
  challengeTimeoutMs: z.number().optional(),
  /**
   * The service's time-out for one processor call in ms, when declared (`--upstream-timeout`;
   * embedded: its own, scaled). Upstream faults are sized from it, and the oracle says whether a
   * fault window was long enough to make a processor call time out (docs/chaos.md).
   */
  upstreamTimeoutMs: z.number().optional(),
  /** Fault steps of the selected scenarios that did not run because their proxy does not exist, with the reason (their rules were not declared). */
  faultsSkipped: z.array(z.object({ scenario: z.string(), proxy: z.string(), type: z.string(), reason: z.string() })).optional(),
  /** Which test card outcomes the cards file provides (a missing one is not exercised). */
  cardOutcomes: z.array(z.enum(CARD_OUTCOMES)),
  /** Free-form facts (tool version, host, options) for the report only. */
  facts: z.record(z.string(), z.any()).optional(),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

export const rateInfoSchema = z.object({
  limit: z.number().nullable(),
  remaining: z.number().nullable(),
  reset: z.number().nullable(),
  /** Raw header values when they did not parse as integers. */
  raw: z.record(z.string(), z.string()).optional(),
});

export const errorInfoSchema = z.object({
  type: z.any(),
  code: z.any(),
  message: z.any(),
  param: z.any(),
  decline_code: z.any(),
  doc_url: z.any(),
  request_id: z.any(),
  /** Error-object fields that were absent (ERR-1). */
  missing: z.array(z.string()),
});
export type ErrorInfo = z.infer<typeof errorInfoSchema>;

/** What was sent that rules compare against. Never the card number or the key. */
export const sentSchema = z.object({
  path: z.string().optional(),
  method: z.string().optional(),
  amount: z.any().optional(),
  currency: z.any().optional(),
  description: z.any().optional(),
  metadata: z.any().optional(),
  merchantReference: z.any().optional(),
  returnUrl: z.any().optional(),
  cardLast4: z.string().optional(),
  cardOutcome: z.enum(CARD_OUTCOMES).optional(),
  cardBrand: z.string().optional(),
  paymentId: z.string().optional(),
  threeDsResult: z.enum(['success', 'fail']).optional(),
  list: z
    .object({
      limit: z.any().optional(),
      startingAfter: z.string().optional(),
      status: z.string().optional(),
      createdGte: z.any().optional(),
      createdLt: z.any().optional(),
    })
    .optional(),
  /** Auth variant of a probe: what the Authorization header held (described, never the key). */
  auth: z.enum(['ok', 'missing', 'malformed', 'basic', 'basic-raw', 'bad-prefix', 'unknown-key']).optional(),
  /**
   * Which body fields a bad-input probe broke, and the param it expects named.
   * `rule`: the rules.md id the probe exercises (PAY-2..5, PAY-17, LIST-3/4/6/7); when absent the
   * oracle infers it from the op, `case` and `expectCode`.
   * `expectation`: `demanded` (absent = demanded) when `rule` demands the expected answer for the
   * input shape sent; `lenient-ok` when no rule does (a type the spec only names, a field of the
   * other shape, B's return_url before 3DS is known): a 400 is fine and a 2xx is an observation;
   * `either` when the spec allows a 2xx and the expected refusal (docs/open-readings.md): a 2xx is
   * an observation, a refusal must be the expected one.
   * `altParams`: fields `param` may name instead of `expectParam` (a reading of the spec allows them).
   */
  badInput: z
    .object({
      case: z.string(),
      expectStatus: z.number(),
      expectCode: z.string(),
      expectParam: z.string().nullable(),
      altParams: z.array(z.string()).optional(),
      rule: z.string().optional(),
      expectation: z.enum(['demanded', 'lenient-ok', 'either']).optional(),
    })
    .optional(),
  /** Card details other than the number, for TEST-2 (never the number or the CVC itself). */
  cardMeta: z.object({ expMonth: z.number(), expYear: z.number(), cvcLength: z.number(), holderName: z.string() }).optional(),
  /** Which presentation's input shape the body used. */
  inputShape: z.enum(['A', 'B']).optional(),
  /** Idempotency-Key sent but deliberately unusual: 'missing' | 'oversized'. */
  idemVariant: z.enum(['missing', 'oversized']).optional(),
});
export type Sent = z.infer<typeof sentSchema>;

/**
 * `aborted`: paystorm itself ended the request (its client closed with the request in flight, or it was
 * asked to send after closing), so the service is not to blame. Appended last: older histories stay valid.
 */
export const FAILURE_KINDS = ['timeout', 'reset', 'refused', 'other', 'aborted'] as const;

/**
 * What a `leaks` entry reports. The scanners (src/history/leak-scanner.ts, src/webhooks/leaks.ts) write
 * phrases such as `api key … echoed`, `secret key … in body`, `full number of card …1234 echoed`,
 * `full card number at card.number`, `cvc returned at card.cvc`, `non-integer amount at amount`;
 * an entry may also start `<kind>:`. card_number and cvc break PAY-9 and SEC-2, api_key SEC-2,
 * non_integer_amount ERR-5.
 */
export const LEAK_KINDS = ['card_number', 'cvc', 'api_key', 'non_integer_amount'] as const;
export type LeakKind = (typeof LEAK_KINDS)[number];
export function leakKind(entry: string): LeakKind | undefined {
  const head = entry.split(':', 1)[0].trim();
  if ((LEAK_KINDS as readonly string[]).includes(head)) return head as LeakKind;
  if (/\b(api|secret) key\b/i.test(entry)) return 'api_key';
  if (/non-integer amount/i.test(entry)) return 'non_integer_amount';
  if (/\bcvc\b/i.test(entry)) return 'cvc';
  if (/card number|number of card/i.test(entry)) return 'card_number';
  return undefined;
}

/**
 * Merged histories only (`paystorm merge`), on exchange and webhook records: how far (ms) the
 * record's times may be off the merged clock, the uncertainty of its shard's clock offset. The
 * oracle widens the record's span by it when it orders observations, so records of two shards
 * are ordered only when the order holds whatever the offsets' errors. Absent: 0 (one clock).
 */
const clockSlackSchema = z.number().nonnegative().optional();

export const exchangeRecordSchema = z.object({
  v: z.literal(HISTORY_VERSION),
  kind: z.literal('exchange'),
  seq: z.number(),
  scenario: z.string(),
  /** A group of exchanges one probe judges together (e.g. an idempotency race). */
  group: z.string().optional(),
  op: z.enum(OPERATIONS),
  key: z.string(),
  idemKey: z.string().optional(),
  /** sha256 hex (first 16) of the exact request body. */
  bodyDigest: z.string().optional(),
  sent: sentSchema,
  /** When the iteration should have started (open model), actual start, end: run-monotonic ms. */
  tIntended: z.number(),
  tStart: z.number(),
  tEnd: z.number(),
  wall: z.number(),
  /** 0 when no response came (see failure). */
  status: z.number(),
  contentType: z.string().nullable(),
  rate: rateInfoSchema.nullable(),
  retryAfter: z.number().nullable(),
  /** Retry-After's raw text when it was sent but was neither delta-seconds nor an HTTP-date (retryAfter is then null). Optional (added later). */
  retryAfterRaw: z.string().optional(),
  /**
   * The response's Date header as Unix seconds (the server's clock; absent when none was sent or it
   * did not parse). The oracle estimates the server's clock offset from it (docs/oracle.md).
   */
  date: z.number().optional(),
  /** Whether the body parsed as JSON (ERR-5). */
  json: z.boolean(),
  error: errorInfoSchema.nullable(),
  payment: canonicalPayment.nullable(),
  refund: canonicalRefund.nullable(),
  list: z
    .object({
      object: z.any(),
      ids: z.array(z.string()),
      hasMore: z.boolean().nullable(),
      url: z.any(),
      statuses: z.array(z.string()),
      created: z.array(z.number().nullable()),
      livemodes: z.array(z.boolean().nullable()),
      /** Per item, its `description` (null when absent). Optional: older histories lack it. IDEM-6's ghost check reads the nonces it carries. */
      descriptions: z.array(z.string().nullable()).optional(),
    })
    .nullable(),
  /** Shape problems of the body against its presentation (validatePaymentShape). */
  shapeProblems: z.array(z.string()).optional(),
  /** Non-integer amount fields and leaked secrets found in the body (ERR-5, SEC-2, PAY-9): `<LeakKind>: <where>`. */
  leaks: z.array(z.string()).optional(),
  /** Trimmed, redacted body for evidence. */
  bodySnippet: z.string().optional(),
  /**
   * The body's length (characters) when it was too long to parse (over 4 MiB, BODY_PARSE_MAX_CHARS):
   * error, payment, refund, list, shapeProblems and structural leaks were not read from it (null /
   * absent); json still says whether it is JSON text, leaks still lists echoed secrets. Optional (added later).
   */
  oversizedBodyChars: z.number().optional(),
  /** For complete_3ds / submit_hpp: where the 303 pointed. */
  location: z.string().nullable().optional(),
  failure: z.enum(FAILURE_KINDS).nullable(),
  /** Retry number when the client retried the same logical request (0 = first). */
  attempt: z.number().optional(),
  /** Merged histories only: see clockSlackSchema. */
  clockSlackMs: clockSlackSchema,
});
export type ExchangeRecord = z.infer<typeof exchangeRecordSchema>;

export const webhookRecordSchema = z.object({
  v: z.literal(HISTORY_VERSION),
  kind: z.literal('webhook'),
  seq: z.number(),
  tReceived: z.number(),
  wall: z.number(),
  path: z.string(),
  signature: z.enum(['ok', 'missing', 'malformed', 'mismatch', 'stale']),
  /** Signature timestamp `t` (Unix seconds) when the header parsed. */
  t: z.number().nullable(),
  /** The header the signature was read from (lowercase, e.g. `acme-signature`); absent when none was. Optional (added later). */
  signatureHeader: z.string().optional(),
  /** Which `--webhook-secret` verified it (0 = the first), for `ok` and `stale`; never the secret. Optional (added later). */
  secretIndex: z.number().int().min(0).optional(),
  eventId: z.string().nullable(),
  type: z.string().nullable(),
  createdAt: z.any(),
  livemode: z.any(),
  /** Envelope problems (WH-3). */
  envelopeProblems: z.array(z.string()),
  payment: canonicalPayment.nullable(),
  refund: canonicalRefund.nullable(),
  /** What the receiver answered: HTTP status, or 0 when it stalled past the ack time. */
  answered: z.number(),
  stalledMs: z.number().optional(),
  duplicate: z.boolean(),
  leaks: z.array(z.string()).optional(),
  /** Merged histories only: see clockSlackSchema. */
  clockSlackMs: clockSlackSchema,
});
export type WebhookRecord = z.infer<typeof webhookRecordSchema>;

export const faultRecordSchema = z.object({
  v: z.literal(HISTORY_VERSION),
  kind: z.literal('fault'),
  proxy: z.string(),
  /** 'upstream' (service to processor) or 'client' (paystorm to service). */
  link: z.enum(['upstream', 'client']),
  toxic: z.object({
    name: z.string(),
    type: z.string(),
    stream: z.enum(['upstream', 'downstream']),
    toxicity: z.number(),
    attributes: z.record(z.string(), z.any()),
  }),
  /** The window the fault may have acted in: from before paystorm asked for it to after the removal was acknowledged. */
  tStart: z.number(),
  tEnd: z.number(),
  /**
   * The window it surely acted in: from Toxiproxy's acknowledgement of the toxic to paystorm's
   * request to remove it. Absent in histories written before it was recorded: there the wide
   * window still excuses, and nothing is required.
   */
  tApplied: z.number().optional(),
  tRemoving: z.number().optional(),
  wallStart: z.number(),
  /** Merged histories only: see clockSlackSchema. */
  clockSlackMs: clockSlackSchema,
});
export type FaultRecord = z.infer<typeof faultRecordSchema>;

export const endRecordSchema = z.object({
  v: z.literal(HISTORY_VERSION),
  kind: z.literal('end'),
  tEnd: z.number(),
  wall: z.number(),
  /** False when the run was interrupted or a cap stopped it before the scenarios finished. */
  complete: z.boolean(),
  reason: z.string(),
  requests: z.number(),
  dropped: z.number(),
  /** Each executor a scenario ran: its planned rate (iterations/s; null for closed models), what it did, when. Optional (added later). */
  load: z
    .array(z.object({ scenario: z.string(), executor: z.string(), targetRate: z.number().nullable(), iterations: z.number(), dropped: z.number(), tStart: z.number(), tEnd: z.number() }))
    .optional(),
});
export type EndRecord = z.infer<typeof endRecordSchema>;

export const historyRecordSchema = z.discriminatedUnion('kind', [
  runRecordSchema,
  exchangeRecordSchema,
  webhookRecordSchema,
  faultRecordSchema,
  endRecordSchema,
]);
export type HistoryRecord = z.infer<typeof historyRecordSchema>;

/**
 * Turns what JSON made of a NaN payment amount (null) back into NaN, in place, on a record read
 * without this schema's output (the reader checks only the first lines in full): every reader
 * hands the oracle the same `amount: number` whichever encoding (ndjson, bin, bin.gz) it came from.
 */
export function reviveRecord<T>(rec: T): T {
  const r = rec as { kind?: unknown; payment?: { amount?: unknown } | null };
  if ((r.kind === 'exchange' || r.kind === 'webhook') && r.payment && r.payment.amount === null) r.payment.amount = NaN;
  return rec;
}
