/**
 * A violation's reproduction plan: the few requests of the history that show it, rebuilt from
 * what each exchange record sent, plus the setup they depend on (the create of a payment they act
 * on, the wait for its status, the refunds before), in order, with concurrent requests grouped.
 *
 * Values that must be fresh on every replay or that the plan never holds are placeholders
 * `{{NAME}}`: `KEY_n` (an API key, per key label), `CARD_<OUTCOME>` (a test card number),
 * `PAY_n` (a payment id the repro itself creates), `IDEM_n` (an Idempotency-Key: one fresh value
 * per recorded key, so requests that shared a key still share one), `NONCE_n` (a uuid nonce in a
 * description or metadata, so a replay's objects are told apart from an earlier run's).
 * The bash script (script.ts) and the replay (replay.ts) fill them in.
 */
import { API_PATHS, BAD_INPUT_CASES, DEFAULT_TEST_CARDS, REFUND_PATHS, UNKNOWN_ID_PROBE, directCreateBody, hostedCreateBody, listQueryString, validBadInputBase, type CardOutcome, type Evidence, type PaymentInput } from '../spec/index.ts';
import { type ExchangeRecord, type Sent } from '../history/index.ts';

export interface ReproRequest {
  /** Seq of the record it rebuilds (0 for steps the plan adds, e.g. a final retrieve). */
  seq: number;
  op: ExchangeRecord['op'];
  scenario: string;
  group?: string;
  /** Index into plan.keys. */
  key: number;
  auth: NonNullable<Sent['auth']>;
  method: string;
  /** Path and query, with placeholders. */
  path: string;
  /** Extra headers (a bad-input case's), with placeholders; never Authorization. */
  headers: Record<string, string>;
  /** `IDEM_n` placeholder name, or null when no Idempotency-Key is sent. */
  idem: string | null;
  /** JSON text or raw text, with placeholders; null: no body. */
  body: string | null;
  /** The recorded `sent`, with placeholders in its strings (the replay's record carries it). */
  sent: Sent;
  /** Capture the answered payment's id into this `PAY_n`. */
  captures?: string;
  /** What the run saw: status and error code. */
  seen: { status: number; code: string | null; paymentId: string | null };
  /** True for the requests the evidence names (not setup). */
  evidence: boolean;
}

export interface ReproWait {
  /** Poll GET /v1/payments/{PAY_n} until its status is one of these (lower case)... */
  pay: string;
  key: number;
  until: string[];
  /** ...and no refund on it is pending. */
  refundsSettled: boolean;
}

/**
 * Spend a key's rate window (cheap lists, ten at a time) so that its `evidence` requests that
 * follow bring it one past the limit: one list first reads X-RateLimit-Remaining (R), then
 * R + 1 - evidence more. The run's limit is only for the text: the target's header decides.
 */
export interface ReproFill {
  key: number;
  evidence: number;
  limit: number;
}

export type ReproStage = { kind: 'request'; request: ReproRequest } | { kind: 'concurrent'; requests: ReproRequest[] } | { kind: 'wait'; wait: ReproWait } | { kind: 'fill'; fill: ReproFill };

/** A check the script can make itself; `none` when only the oracle (paystorm repro) can judge. */
export type ReproCheck =
  | { kind: 'status'; seq: number; expectStatus: number[]; expectCode: string | null; text: string }
  | { kind: 'one-payment'; seqs: number[]; text: string }
  | { kind: 'not-all-admitted'; seqs: number[]; text: string }
  /** The payment (its final GET, `after_PAY_n`) must not show more refunded than its amount (REF-3). */
  | { kind: 'refunded-within'; pay: string; text: string }
  | { kind: 'none'; text: string };

export interface ReproPlan {
  /** `<invariant>-<n>` (n from 1): the violation id `paystorm repro` takes. */
  id: string;
  invariant: string;
  rules: string[];
  title: string;
  message: string;
  /** The run's key labels, in placeholder order (KEY_1 = keys[0]). */
  keys: { label: string; merchant: string; mode: string; prefix: string }[];
  /** Card outcomes the plan's bodies need (CARD_<OUTCOME>). */
  cards: CardOutcome[];
  idems: { name: string; length: number }[];
  nonces: string[];
  pays: string[];
  stages: ReproStage[];
  /** Whether some requests must be sent at once. */
  concurrent: boolean;
  checks: ReproCheck[];
  /** What could not be rebuilt (the script says so). */
  notes: string[];
}

export interface ViolationRef {
  invariant: { id: string; title: string; rules: string[] };
  /** 1-based example number. */
  n: number;
  evidence: Evidence;
}

/** At most this many of an example's requests go into its repro. */
export const MAX_EVIDENCE_REQUESTS = 40;

export const violationId = (invariant: string, n: number): string => `${invariant}-${n}`;

const PAY_ID = /pay_[A-Za-z0-9-]+/g;
const UUID = /(?<!pay_)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const is2xx = (s: number) => s >= 200 && s < 300;

/** Payment ids an exchange acts on (not the one it was answered with). */
export function referencedPayments(r: ExchangeRecord): string[] {
  const ids = new Set<string>();
  if (r.sent.paymentId) ids.add(r.sent.paymentId);
  for (const m of (r.sent.path ?? '').match(PAY_ID) ?? []) ids.add(m);
  if (r.sent.list?.startingAfter?.startsWith('pay_')) ids.add(r.sent.list.startingAfter);
  return [...ids];
}

/** Records of the history a plan needs: the evidence's own, and for the payments they act on, their create and the refunds before. */
export function isSetupFor(r: ExchangeRecord, ids: ReadonlySet<string>): boolean {
  if (!is2xx(r.status)) return false;
  if ((r.op === 'create' || r.op === 'create_hpp') && r.payment && ids.has(r.payment.id)) return true;
  if ((r.op === 'refund' || r.op === 'refund_create') && r.sent.paymentId && ids.has(r.sent.paymentId) && !r.sent.badInput) return true;
  return false;
}

/**
 * Builds the plan of one violation from its evidence records (`evidence`, by seq), the setup
 * records of the payments they act on (`setup`), and the last status the run saw of each such
 * payment before the evidence began (`statusBefore`).
 */
export function buildPlan(v: ViolationRef, evidence: ExchangeRecord[], setup: ExchangeRecord[], statusBefore: ReadonlyMap<string, string>, opts: { rateLimit?: { limit: number; windowMs: number } | null } = {}): ReproPlan {
  const plan: ReproPlan = {
    id: violationId(v.invariant.id, v.n),
    invariant: v.invariant.id,
    rules: v.invariant.rules,
    title: v.invariant.title,
    message: v.evidence.message,
    keys: [],
    cards: [],
    idems: [],
    nonces: [],
    pays: [],
    stages: [],
    concurrent: false,
    checks: [],
    notes: [],
  };
  const sorted = [...evidence].sort((a, b) => a.tStart - b.tStart);
  // A repro is a few requests: an example naming many (a long list walk) keeps its first ones.
  const ev = sorted.slice(0, MAX_EVIDENCE_REQUESTS);
  if (sorted.length > ev.length) plan.notes.push(`the evidence names ${sorted.length} requests; the first ${ev.length} are sent`);
  const t0 = ev.length ? ev[0].tStart : 0;
  const keyIndex = new Map<string, number>();
  const idemIndex = new Map<string, string>();
  const nonceIndex = new Map<string, string>();
  const payVar = new Map<string, string>();

  const keyOf = (label: string): number => {
    let i = keyIndex.get(label);
    if (i === undefined) {
      i = plan.keys.length;
      keyIndex.set(label, i);
      const [merchant = '', mode = ''] = label.split('/');
      plan.keys.push({ label, merchant, mode, prefix: '' });
    }
    return i;
  };
  const idemOf = (k: string): string => {
    let name = idemIndex.get(k);
    if (!name) {
      name = `IDEM_${plan.idems.length + 1}`;
      idemIndex.set(k, name);
      plan.idems.push({ name, length: k.length });
    }
    return name;
  };
  /** Replaces uuid nonces and known payment ids in a string by placeholders. */
  const tpl = (s: string): string =>
    s
      .replace(UUID, (u) => {
        let name = nonceIndex.get(u.toLowerCase());
        if (!name) {
          name = `NONCE_${plan.nonces.length + 1}`;
          nonceIndex.set(u.toLowerCase(), name);
          plan.nonces.push(name);
        }
        return `{{${name}}}`;
      });
  const payTpl = (s: string): string => s.replace(PAY_ID, (id) => (payVar.has(id) ? `{{${payVar.get(id)}}}` : id));
  const tplDeep = (x: unknown): unknown => {
    if (typeof x === 'string') return tpl(payTpl(x));
    if (Array.isArray(x)) return x.map(tplDeep);
    if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, val]) => [k, tplDeep(val)]));
    return x;
  };
  const card = (o: CardOutcome | undefined): string => {
    const outcome = o ?? 'succeeds';
    if (!plan.cards.includes(outcome)) plan.cards.push(outcome);
    return `{{CARD_${outcome.toUpperCase()}}}`;
  };

  const toRequest = (r: ExchangeRecord, isEvidence: boolean): ReproRequest | null => {
    const s = r.sent;
    const key = keyOf(r.key);
    const shape = s.inputShape ?? r.payment?.presentation ?? 'B';
    let method = s.method ?? 'GET';
    let path = s.path ?? '';
    const headers: Record<string, string> = {};
    let body: string | null = null;
    let omitIdem = s.idemVariant === 'missing';
    // An unknown-id probe is a plain retrieve of an id no payment has: rebuilt as it was sent.
    const probe = s.badInput && s.badInput.case !== UNKNOWN_ID_PROBE.case ? s.badInput : undefined;
    const bad = probe ? BAD_INPUT_CASES.find((c) => c.case === probe.case) : undefined;
    if (probe && !bad) {
      plan.notes.push(`request #${r.seq} (${probe.case}): its body is not in the bad-input catalog, so it is not rebuilt`);
      return null;
    }
    if (bad) {
      const valid = validBadInputBase(bad.op, bad.shape ?? shape, DEFAULT_TEST_CARDS);
      let b = bad.mutate(valid, DEFAULT_TEST_CARDS);
      for (const [name, value] of Object.entries(bad.headers ?? {})) {
        if (name.toLowerCase() === 'idempotency-key') omitIdem = value === null;
        else if (value !== null) headers[name.toLowerCase()] = value;
      }
      if (bad.op === 'list') {
        method = 'GET';
        const q = typeof b === 'string' ? b : listQueryString(b);
        path = q ? `${API_PATHS.payments}?${q}` : API_PATHS.payments;
      } else {
        method = 'POST';
        if (bad.op === 'refund') {
          const pid = s.paymentId ?? '';
          if (r.op === 'refund_create') {
            path = REFUND_PATHS.topLevel;
            if (typeof b === 'object') b = { payment_id: pid, ...b };
          } else path = REFUND_PATHS.paymentScoped(pid);
        } else path = bad.op === 'create_hpp' ? API_PATHS.hosted : API_PATHS.payments;
        body = typeof b === 'string' ? b : JSON.stringify(b);
        // The catalog's valid base carries the default test cards: placeholders instead.
        for (const [outcome, number] of Object.entries(DEFAULT_TEST_CARDS)) if (body.includes(number)) body = body.split(number).join(card(outcome as CardOutcome));
      }
    } else if (r.op === 'create' || r.op === 'create_hpp') {
      const input: PaymentInput = {
        amount: s.amount,
        currency: s.currency,
        description: s.description,
        metadata: s.metadata,
        merchantReference: s.merchantReference,
        returnUrl: s.returnUrl,
      };
      if (s.cardLast4 && r.op === 'create') {
        const m = s.cardMeta;
        input.card = { number: card(s.cardOutcome), exp_month: m?.expMonth ?? 12, exp_year: m?.expYear ?? new Date().getUTCFullYear() + 3, cvc: '1234'.slice(0, m?.cvcLength ?? 3), holder_name: m?.holderName ?? 'Pay Storm' };
        if (!s.cardOutcome) plan.notes.push(`request #${r.seq} used a card ending ${s.cardLast4} whose outcome was not recorded; the succeeding test card stands in`);
      }
      method = 'POST';
      path = r.op === 'create' ? API_PATHS.payments : API_PATHS.hosted;
      body = JSON.stringify(r.op === 'create' ? directCreateBody(input, shape) : hostedCreateBody(input));
    } else if (r.op === 'retrieve') {
      method = 'GET';
      path = API_PATHS.payment(s.paymentId ?? '');
    } else if (r.op === 'list') {
      method = 'GET';
      if (s.list) {
        const q = new URLSearchParams();
        const l = s.list;
        if (l.limit !== undefined) q.set('limit', String(l.limit));
        if (l.startingAfter !== undefined) q.set('starting_after', l.startingAfter);
        if (l.status !== undefined) q.set('status', l.status);
        if (l.createdGte !== undefined) q.set('created[gte]', String(l.createdGte));
        if (l.createdLt !== undefined) q.set('created[lt]', String(l.createdLt));
        const qs = q.toString();
        path = API_PATHS.payments + (qs ? `?${qs}` : '');
      } else path = s.path ?? API_PATHS.payments;
    } else if (r.op === 'refund' || r.op === 'refund_create') {
      method = 'POST';
      const pid = s.paymentId ?? '';
      const amount = s.amount;
      if (r.op === 'refund_create') {
        path = REFUND_PATHS.topLevel;
        body = JSON.stringify(amount === undefined ? { payment_id: pid } : { payment_id: pid, amount });
      } else {
        path = REFUND_PATHS.paymentScoped(pid);
        body = JSON.stringify(amount === undefined ? {} : { amount });
      }
    } else if (r.op === 'raw' && s.method && s.path) {
      method = s.method;
      path = s.path;
      if (method !== 'GET') plan.notes.push(`request #${r.seq} (${method} ${path}): its body is not recorded, so it is sent without one`);
    } else {
      plan.notes.push(`request #${r.seq} (${r.op}) is a browser step (3DS page or hosted page) and is not rebuilt`);
      return null;
    }
    const idem = method === 'POST' && !omitIdem ? (r.idemKey ? idemOf(r.idemKey) : idemOf(`fresh-${r.seq}`)) : null;
    let captures: string | undefined;
    if ((r.op === 'create' || r.op === 'create_hpp') && r.payment && is2xx(r.status) && !payVar.has(r.payment.id)) {
      captures = `PAY_${plan.pays.length + 1}`;
      payVar.set(r.payment.id, captures);
      plan.pays.push(captures);
    }
    // Placeholders: payment ids the repro creates, then uuid nonces (not those inside a payment id).
    const bodyT = body === null ? null : tpl(payTpl(body));
    const pathT = tpl(payTpl(path));
    const sentT = tplDeep(s) as Sent;
    return {
      seq: r.seq,
      op: r.op,
      scenario: r.scenario,
      ...(r.group ? { group: r.group } : {}),
      key,
      auth: s.auth ?? 'ok',
      method,
      path: pathT,
      headers,
      idem,
      body: bodyT,
      sent: sentT,
      ...(captures ? { captures } : {}),
      seen: { status: r.status, code: typeof r.error?.code === 'string' ? r.error.code : null, paymentId: r.payment?.id ?? null },
      evidence: isEvidence,
    };
  };

  // Setup: per payment the evidence acts on, its create, a wait for the status the run saw, the refunds before.
  const evSeqs = new Set(ev.map((r) => r.seq));
  const acted = new Set(ev.flatMap(referencedPayments));
  const about = (r: ExchangeRecord) => (r.payment !== null && acted.has(r.payment.id)) || (r.sent.paymentId !== undefined && acted.has(r.sent.paymentId));
  const before = setup.filter((r) => !evSeqs.has(r.seq) && r.tStart < t0 && about(r)).sort((a, b) => a.tStart - b.tStart);
  const creates = before.filter((r) => r.op === 'create' || r.op === 'create_hpp');
  for (const c of creates) {
    const req = toRequest(c, false);
    if (!req) continue;
    plan.stages.push({ kind: 'request', request: req });
    const id = c.payment!.id;
    const st = statusBefore.get(id);
    const refunds = before.filter((r) => r.op !== 'create' && r.op !== 'create_hpp' && r.sent.paymentId === id);
    if (req.captures && st && st !== 'pending' && st !== 'processing') plan.stages.push({ kind: 'wait', wait: { pay: req.captures, key: req.key, until: [st], refundsSettled: false } });
    // Refunds that overlapped in the run (a concurrent-refund race, REF-3) are fired at once again.
    for (const wave of waves(refunds)) {
      const rr = wave.map((rf) => toRequest(rf, false)).filter((x): x is ReproRequest => x !== null);
      if (!rr.length) continue;
      if (rr.length > 1) {
        plan.stages.push({ kind: 'concurrent', requests: rr });
        plan.concurrent = true;
      } else plan.stages.push({ kind: 'request', request: rr[0] });
      if (req.captures) plan.stages.push({ kind: 'wait', wait: { pay: req.captures, key: req.key, until: st ? [st] : [], refundsSettled: true } });
    }
  }

  // Rate rules judged on a window's count (RL-1, RL-5): spend the window so that the evidence's requests
  // bring it to limit + 1; a conforming service refuses the last with 429.
  const rateRule = v.invariant.rules.some((r) => r === 'RL-1' || r === 'RL-5');
  if (rateRule && opts.rateLimit && ev.length) {
    const label = ev[0].key;
    const mine = ev.filter((r) => r.key === label);
    plan.stages.push({ kind: 'fill', fill: { key: keyOf(label), evidence: mine.length, limit: opts.rateLimit.limit } });
  }

  // The evidence, in waves: a request that starts before the wave's last answer came is concurrent with it.
  let wave: ExchangeRecord[] = [];
  let waveEnd = -Infinity;
  const flush = () => {
    const reqs = wave.map((r) => toRequest(r, true)).filter((x): x is ReproRequest => x !== null);
    if (reqs.length > 1) {
      plan.stages.push({ kind: 'concurrent', requests: reqs });
      plan.concurrent = true;
    } else if (reqs.length === 1) plan.stages.push({ kind: 'request', request: reqs[0] });
    wave = [];
    waveEnd = -Infinity;
  };
  for (const r of ev) {
    if (wave.length && r.tStart >= waveEnd) flush();
    wave.push(r);
    waveEnd = Math.max(waveEnd, r.tEnd);
  }
  flush();

  // Afterwards: the state of every payment the repro created, once its refunds settled.
  const evReqs = plan.stages.flatMap((s) => (s.kind === 'request' ? [s.request] : s.kind === 'concurrent' ? s.requests : []));
  for (const [, name] of payVar) {
    const owner = plan.stages.flatMap((s) => (s.kind === 'request' ? [s.request] : s.kind === 'concurrent' ? s.requests : [])).find((q) => q.captures === name);
    const key = owner?.key ?? 0;
    if (evReqs.some((q) => q.evidence && (q.op === 'refund' || q.op === 'refund_create'))) plan.stages.push({ kind: 'wait', wait: { pay: name, key, until: [], refundsSettled: true } });
    plan.stages.push({ kind: 'request', request: afterRetrieve(name, key) });
  }

  plan.checks = checksFor(v.invariant.id, ev.filter((r) => evReqs.some((q) => q.seq === r.seq)));
  if (v.invariant.id === 'refunds-within-amount' && plan.pays.length) {
    plan.checks = plan.pays.map((pay) => ({ kind: 'refunded-within' as const, pay, text: `${pay} must not show more refunded than its amount` }));
  }
  const fill = plan.stages.find((s): s is { kind: 'fill'; fill: ReproFill } => s.kind === 'fill');
  if (fill) {
    const seqs = evReqs.filter((q) => q.evidence && q.key === fill.fill.key).map((q) => q.seq);
    plan.checks = [{ kind: 'not-all-admitted', seqs, text: `with the window spent first, the last of these ${seqs.length} requests is one past X-RateLimit-Limit (the run's was ${fill.fill.limit}) and must be refused with 429` }];
  }
  return plan;
}

/** Records in start order, in waves: one that starts before the wave's last answer came is concurrent with it. */
function waves(records: readonly ExchangeRecord[]): ExchangeRecord[][] {
  const out: ExchangeRecord[][] = [];
  let end = -Infinity;
  for (const r of [...records].sort((a, b) => a.tStart - b.tStart)) {
    if (out.length && r.tStart < end) {
      out[out.length - 1].push(r);
      end = Math.max(end, r.tEnd);
    } else {
      out.push([r]);
      end = r.tEnd;
    }
  }
  return out;
}

function afterRetrieve(pay: string, key: number): ReproRequest {
  return {
    seq: 0,
    op: 'retrieve',
    scenario: 'repro',
    key,
    auth: 'ok',
    method: 'GET',
    path: `/v1/payments/{{${pay}}}`,
    headers: {},
    idem: null,
    body: null,
    sent: { paymentId: `{{${pay}}}` },
    seen: { status: 200, code: null, paymentId: null },
    evidence: false,
  };
}

/** Refund validation failures and refunds of payments not succeeded: 422 action_not_allowed (REF-4, REF-5). */
const REFUND_422 = new Set(['over-refund-refused', 'refund-requires-succeeded', 'bad-refund-no-effect']);
/** Same-key concurrent creates: one payment at most (IDEM-6). */
const ONE_PAYMENT = new Set(['idem-single-object', 'idem-in-flight', 'idem-replay', 'idem-no-ghost-object']);

/** What the script checks itself, from the evidence and the rule. */
export function checksFor(invariant: string, ev: ExchangeRecord[]): ReproCheck[] {
  const checks: ReproCheck[] = [];
  for (const r of ev) {
    const b = r.sent.badInput;
    if (b && (b.expectation ?? 'demanded') === 'demanded') {
      checks.push({ kind: 'status', seq: r.seq, expectStatus: [b.expectStatus], expectCode: b.expectCode, text: `request #${r.seq} (${b.case}) must be answered ${b.expectStatus} ${b.expectCode}` });
    } else if (REFUND_422.has(invariant) && (r.op === 'refund' || r.op === 'refund_create')) {
      checks.push({ kind: 'status', seq: r.seq, expectStatus: [422], expectCode: 'action_not_allowed', text: `refund #${r.seq} must be refused with 422 action_not_allowed` });
    }
  }
  const creates = ev.filter((r) => (r.op === 'create' || r.op === 'create_hpp') && r.idemKey);
  if (ONE_PAYMENT.has(invariant) && creates.length > 1) {
    const byKey = new Map<string, number[]>();
    for (const r of creates) byKey.set(`${r.key} ${r.idemKey}`, [...(byKey.get(`${r.key} ${r.idemKey}`) ?? []), r.seq]);
    for (const seqs of byKey.values()) if (seqs.length > 1) checks.push({ kind: 'one-payment', seqs, text: `the ${seqs.length} requests under one Idempotency-Key must all be answered with one payment (or 409)` });
  }
  if (!checks.length) checks.push({ kind: 'none', text: 'no automatic check for this rule: compare the answers with the message above, or run `paystorm repro`' });
  return checks;
}
