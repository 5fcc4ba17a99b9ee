/**
 * The default suite against the embedded reference service, presentations A and B (limit 60,
 * 2 s window, time scale 0.02, webhook receiver failing a share of deliveries). One run per
 * presentation; each test then checks in the recorded history that a scenario did what it
 * promises, and, when the oracle is available, that the clean service passes every invariant
 * and every declared rule was exercised.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, IN_FLIGHT_409_CODE, REFUND_SUBCODE_PATTERN, isTerminal, type Presentation } from '../../src/spec/index.ts';
import { type ExchangeRecord } from '../../src/history/index.ts';
import { DEFAULT_SUITE } from '../../scenarios/index.ts';
import { judge, unexercisedDeclaredRules } from '../../src/oracle/index.ts';
import { paramMatches, badInputCasesFor } from '../../src/spec/bad-inputs.ts';
import { inGroup, LIMIT, runAgainstReference, type ScenarioRun } from './harness.ts';
const ok = (x: ExchangeRecord) => x.status >= 200 && x.status < 300;
const overlapping = (xs: ExchangeRecord[]) => Math.max(...xs.map((x) => x.tStart)) < Math.min(...xs.map((x) => x.tEnd));
const groupsOf = (xs: ExchangeRecord[], prefix: string) => {
  const m = new Map<string, ExchangeRecord[]>();
  for (const x of inGroup(xs, prefix)) m.set(x.group!, [...(m.get(x.group!) ?? []), x]);
  return m;
};
/** The last status seen for each payment id. */
function lastStatus(xs: ExchangeRecord[]): Map<string, ExchangeRecord> {
  const m = new Map<string, ExchangeRecord>();
  for (const x of xs) if (x.payment) m.set(x.payment.id, x);
  return m;
}

for (const presentation of ['B', 'A'] as Presentation[]) {
  describe(`default suite, presentation ${presentation}`, () => {
    let run: ScenarioRun;
    const of = (scenario: string) => run.exchanges.filter((x) => x.scenario === scenario);

    beforeAll(async () => {
      run = await runAgainstReference([...DEFAULT_SUITE], { presentation, webhooks: true, failShare: 0.3, stallShare: 0.1, faults: true });
    }, 120_000);

    it('completes without scenario errors and never fails to get an answer', () => {
      expect(run.outcome.scenarioErrors).toEqual([]);
      expect(run.outcome.complete).toBe(true);
      // The chaos phase's client-link fault times requests out on purpose (and an upstream fault may shed load with 503).
      expect(run.exchanges.filter((x) => x.scenario !== 'chaos-short' && (x.status === 0 || x.status >= 500))).toEqual([]);
      // Load scenarios stay under each key's limit: the only 429s are the rate-limit scenario's.
      expect(run.exchanges.filter((x) => x.status === 429 && x.scenario !== 'rate-limit')).toEqual([]);
    });

    it('auth-and-input: every 401 variant on every operation, without rate headers', () => {
      const xs = of('auth-and-input');
      for (const variant of ['missing', 'malformed', 'basic', 'basic-raw', 'bad-prefix', 'unknown-key']) {
        // Exact group: `auth-basic` is also the start of `auth-basic-raw`.
        const g = xs.filter((x) => x.group === `auth-${variant}`);
        expect(g.length, variant).toBeGreaterThanOrEqual(5);
        for (const x of g) {
          expect(x.status).toBe(401);
          expect(x.error?.code).toBe('invalid_api_key');
          expect(x.sent.auth).toBe(variant);
          expect(x.rate === null || (x.rate.limit === null && x.rate.remaining === null && x.rate.reset === null)).toBe(true);
        }
      }
      expect(inGroup(xs, 'auth-403').map((x) => [x.status, x.error?.code])).toEqual([[403, 'not_permitted']]);
      expect(inGroup(xs, 'unknown-id').map((x) => [x.status, x.error?.code])).toEqual([[404, 'resource_missing']]);
    });

    it("auth-and-input: every bad-input case of the target's presentation answered with its status, code and param", () => {
      const xs = inGroup(of('auth-and-input'), 'bad-input').filter((x) => x.sent.badInput);
      // Only the presentation's own input shape (and the cases of no shape) are sent.
      expect(xs.map((x) => x.sent.badInput!.case).sort()).toEqual(badInputCasesFor(presentation).map((c) => c.case).sort());
      const wrong = xs
        .filter((x) => {
          const b = x.sent.badInput!;
          // An acceptance case (a value at a limit) expects a 2xx and no error.
          if (b.expectStatus >= 200 && b.expectStatus < 300) return !(x.status >= 200 && x.status < 300);
          return x.status !== b.expectStatus || x.error?.code !== b.expectCode || !paramMatches(b.expectParam, x.error?.param);
        })
        .map((x) => [x.sent.badInput!.case, x.status, x.error?.code, x.error?.param]);
      expect(wrong).toEqual([]);
    });

    it('mixed: Direct API and hosted creates, settlement, refunds, lists and retrievals over several keys', () => {
      const xs = of('mixed');
      const count = (op: string) => xs.filter((x) => x.op === op && ok(x)).length;
      expect(count('create')).toBeGreaterThanOrEqual(10);
      expect(count('create_hpp')).toBeGreaterThanOrEqual(1);
      const driver = xs.filter((x) => (x.op === 'submit_hpp' || x.op === 'complete_3ds') && x.status === 303);
      expect(new Set(driver.map((x) => x.op))).toEqual(new Set(['submit_hpp', 'complete_3ds']));
      expect(count('refund') + count('refund_create')).toBeGreaterThanOrEqual(2);
      expect(count('list')).toBeGreaterThanOrEqual(3);
      expect(count('retrieve')).toBeGreaterThanOrEqual(10);
      expect(new Set(xs.map((x) => x.key)).size).toBeGreaterThanOrEqual(2);
      // Every Direct API payment reached a terminal status, and some succeeded and were refunded in full.
      const last = lastStatus(xs);
      const direct = new Set(xs.filter((x) => x.op === 'create' && x.payment).map((x) => x.payment!.id));
      for (const id of direct) expect(isTerminal(last.get(id)!.payment!.status), id).toBe(true);
      const full = [...last.values()].filter((x) => x.payment!.amountRefunded === x.payment!.amount && x.payment!.amount > 0);
      expect(full.length).toBeGreaterThanOrEqual(1);
    });

    it('idempotency: overlapping same-key races create one payment; replays, conflicts, scopes and key checks', () => {
      const xs = of('idempotency');
      const races = groupsOf(xs, 'idem-race-');
      expect(races.size).toBe(3);
      for (const [g, rs] of races) {
        expect(rs.length, g).toBeGreaterThanOrEqual(3);
        expect(new Set(rs.map((r) => r.idemKey)).size, g).toBe(1);
        expect(overlapping(rs), `${g} requests overlap`).toBe(true);
        const ids = new Set(rs.filter(ok).map((r) => r.payment?.id));
        expect(ids.size, g).toBe(1);
        for (const r of rs.filter((r) => !ok(r))) {
          expect(r.status).toBe(409);
          expect(r.error?.code).toBe(IN_FLIGHT_409_CODE);
        }
      }
      const replay = inGroup(xs, 'idem-replay-payment');
      expect(replay.map((r) => r.status)).toEqual([201, 201]);
      expect(replay[0].payment!.id).toBe(replay[1].payment!.id);
      for (const g of ['idem-diff-payment', 'idem-diff-hosted', 'idem-diff-refund']) {
        expect(inGroup(xs, g).map((r) => [r.status, ERROR_CODES[r.error?.code]?.type])).toEqual([[409, 'idempotency_error']]);
      }
      const retry = inGroup(xs, 'idem-error-retry-payment');
      expect(retry.map((r) => r.status)).toEqual([400, 201]);
      expect(inGroup(xs, 'idem-error-retry-refund').map((r) => r.status)).toEqual([422, 201]);
      const scopeKey = inGroup(xs, 'idem-scope-key');
      expect(new Set(scopeKey.map((r) => r.key)).size).toBe(2);
      expect(new Set(scopeKey.filter(ok).map((r) => r.payment?.id)).size).toBe(2);
      const scopeOp = inGroup(xs, 'idem-scope-op');
      expect(scopeOp.map((r) => [r.op, r.status])).toEqual([
        ['create', 201],
        ['create_hpp', 201],
        ['refund', 201],
      ]);
      expect(new Set(scopeOp.map((r) => r.idemKey)).size).toBe(1);
      expect(new Set(inGroup(xs, 'idem-mref').map((r) => r.payment?.id)).size).toBe(3);
      for (const g of ['idem-missing-payment', 'idem-missing-hosted', 'idem-missing-refund']) {
        expect(inGroup(xs, g).map((r) => [r.status, r.error?.code, r.sent.idemVariant])).toEqual([[400, 'parameter_missing', 'missing']]);
      }
      expect(inGroup(xs, 'idem-oversized').map((r) => [r.status, r.sent.idemVariant])).toEqual([[400, 'oversized']]);
      expect(inGroup(xs, 'idem-max').map((r) => [r.status, r.idemKey?.length])).toEqual([[201, 255]]);
    });

    it('idempotency: each race sends one nonce in its body, and the walk after the races lists every raced payment once', () => {
      const xs = of('idempotency');
      const nonces = new Set<string>();
      for (const [g, rs] of groupsOf(xs, 'idem-race-')) {
        const d = new Set(rs.map((r) => r.sent.description));
        expect(d.size, g).toBe(1);
        expect([...d][0], g).toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
        nonces.add([...d][0]!);
      }
      expect(nonces.size).toBe(3);
      const walk = inGroup(xs, 'idem-walk-races');
      expect(walk.length).toBeGreaterThanOrEqual(1);
      const listed = walk.flatMap((x) => x.list?.descriptions ?? []).filter((d): d is string => d !== null && nonces.has(d));
      expect(listed.sort()).toEqual([...nonces].sort());
    });

    it('refunds: partial and full on both paths, over-refund sub-code, not succeeded, races within the amount', () => {
      const xs = of('refunds');
      const ops = new Set(xs.filter((x) => (x.op === 'refund' || x.op === 'refund_create') && ok(x)).map((x) => x.op));
      expect(ops).toEqual(new Set(['refund', 'refund_create']));
      const over = inGroup(xs, 'refund-over').filter((x) => x.status === 422);
      expect(over.length).toBeGreaterThanOrEqual(3);
      for (const x of over) {
        expect(x.error?.code).toBe('action_not_allowed');
        expect(String(x.error?.message)).toMatch(REFUND_SUBCODE_PATTERN);
      }
      const notSucceeded = inGroup(xs, 'refund-not-succeeded');
      expect(notSucceeded.length).toBe(4);
      for (const x of notSucceeded) expect([x.status, x.error?.code]).toEqual([422, 'action_not_allowed']);
      const races = groupsOf(xs, 'refund-race-');
      expect(races.size).toBe(2);
      for (const [g, rs] of races) {
        const attempts = rs.filter((r) => r.op === 'refund' || r.op === 'refund_create');
        expect(attempts.length, g).toBe(4);
        expect(overlapping(attempts), g).toBe(true);
        const accepted = attempts.filter(ok).reduce((s, r) => s + (r.refund?.amount ?? 0), 0);
        const final = rs.filter((r) => r.payment).at(-1)!.payment!;
        expect(accepted, g).toBeLessThanOrEqual(final.amount);
        expect(final.amountRefunded!, g).toBeLessThanOrEqual(final.amount);
        expect(attempts.some((r) => r.status === 422), g).toBe(true);
      }
      if (presentation === 'B') {
        const fullyRefunded = [...lastStatus(xs).values()].map((x) => x.payment!).filter((p) => p.amountRefunded === p.amount);
        expect(fullyRefunded.length).toBeGreaterThanOrEqual(2);
        for (const p of fullyRefunded) expect(p.refundedAt).not.toBeNull();
      }
    });

    it('lists: cursor walks cover every pre-existing payment once while creates run; filters, bounds, isolation', () => {
      const xs = of('lists');
      const walks = groupsOf(xs, 'list-walk-');
      const pages = [...walks].filter(([g]) => !g.endsWith('-creates'));
      expect(pages.length).toBe(2);
      for (const [g, ps] of pages) {
        expect(ps.length, g).toBeGreaterThanOrEqual(3);
        expect(ps.at(-1)!.list!.hasMore, g).toBe(false);
        const start = ps[0].tStart;
        const gte = ps[0].sent.list!.createdGte as number;
        const lt = ps[0].sent.list!.createdLt as number;
        const existing = run.exchanges
          .filter((x) => x.key === ps[0].key && (x.op === 'create' || x.op === 'create_hpp') && x.status === 201 && x.tEnd < start && x.payment)
          .map((x) => x.payment!)
          .filter((p) => p.created! >= gte && p.created! < lt)
          .map((p) => p.id);
        expect(existing.length, g).toBeGreaterThanOrEqual(10);
        const seen = ps.flatMap((p) => p.list!.ids);
        expect(seen.length - new Set(seen).size, `${g} duplicates`).toBe(0);
        for (const id of new Set(existing)) expect(seen, `${g} ${id}`).toContain(id);
        // Creates ran while the walk was going on.
        const creates = walks.get(`${g}-creates`) ?? [];
        expect(creates.some((c) => c.tStart < ps.at(-1)!.tStart)).toBe(true);
      }
      expect(inGroup(xs, 'list-filter-status').filter(ok).length).toBe(6);
      expect(inGroup(xs, 'list-filter-status').filter((x) => x.status === 400).length).toBe(1);
      const limits = inGroup(xs, 'list-limit');
      expect(limits.filter((x) => x.status === 400).map((x) => x.error?.code)).toEqual(Array(4).fill('parameter_invalid'));
      const dflt = limits.find((x) => x.sent.list?.limit === undefined)!;
      expect(dflt.list!.ids.length).toBe(10);
      expect(inGroup(xs, 'list-cursor').map((x) => [x.status, x.error?.code])).toEqual([[400, 'parameter_invalid']]);
      const created = inGroup(xs, 'list-created');
      expect(created.filter(ok).length).toBe(4);
      const live = inGroup(xs, 'list-isolation-live');
      expect(live.filter((x) => x.status === 404).length).toBe(4);
      for (const x of live.filter((x) => x.list)) expect(new Set(x.list!.livemodes).size).toBeLessThanOrEqual(1);
      expect(inGroup(xs, 'list-isolation-merchant').filter((x) => x.status === 404).map((x) => x.error?.code)).toEqual(Array(3).fill('resource_missing'));
    });

    it("flows: each card's outcome, 3DS success/failure/abandonment, the hosted page with a plain and a 3DS card", () => {
      const xs = of('flows');
      const final = (g: string) => inGroup(xs, g).filter((x) => x.payment).at(-1)?.payment;
      expect(final('flow-direct-succeeds')?.status).toBe('succeeded');
      expect([final('flow-direct-do_not_honor')?.status, final('flow-direct-do_not_honor')?.failureCode]).toEqual(['failed', 'do_not_honor']);
      expect([final('flow-direct-insufficient_funds')?.status, final('flow-direct-insufficient_funds')?.failureCode]).toEqual(['failed', 'insufficient_funds']);
      expect(final('flow-3ds-success-1')?.status).toBe('succeeded');
      expect([final('flow-3ds-fail-1')?.status, final('flow-3ds-fail-1')?.failureCode]).toEqual(['failed', 'three_d_secure_failed']);
      expect(final('flow-3ds-abandon-1')?.status).toBe('expired');
      expect(final('flow-hosted-succeeds')?.status).toBe('succeeded');
      expect(final('flow-hosted-do_not_honor')?.status).toBe('failed');
      const hosted3ds = inGroup(xs, 'flow-hosted-three_ds_challenge');
      const submit = hosted3ds.findIndex((x) => x.op === 'submit_hpp');
      expect(hosted3ds.slice(submit).some((x) => x.payment?.status === 'requires_action' && x.payment.nextAction?.reason === 'three_d_secure')).toBe(true);
      expect(final('flow-hosted-three_ds_challenge')?.status).toBe('succeeded');
      const liveCard = inGroup(xs, 'flow-live-test-card');
      expect(liveCard.length).toBeGreaterThanOrEqual(1);
      expect(liveCard.some((x) => x.payment?.status === 'succeeded')).toBe(false);
    });

    it('rate-limit: exactly the limit then 429s, honest Retry-After, the exact edge, bursts at most twice the limit, a second key unaffected', () => {
      const xs = of('rate-limit');
      // Window 1 is opened by the last fresh-window probe (remaining = limit - 1), then driven to the limit.
      const opener = inGroup(xs, 'rl-fresh').at(-1)!;
      expect([opener.status === 429, opener.rate?.remaining]).toEqual([false, LIMIT - 1]);
      const w1 = inGroup(xs, 'rl-w1');
      const passed = [opener, ...w1.filter((x) => x.status !== 429)];
      expect(passed.length).toBe(LIMIT);
      expect(passed.every((x) => x.rate?.limit === LIMIT && x.rate.remaining !== null && x.rate.reset !== null)).toBe(true);
      expect(passed.some((x) => x.status === 404)).toBe(true);
      const refused = w1.filter((x) => x.status === 429);
      expect(refused.length).toBeGreaterThanOrEqual(3);
      for (const x of refused) {
        expect(x.error?.code).toBe('rate_limit_exceeded');
        expect(x.retryAfter).not.toBeNull();
        expect(x.rate?.remaining).toBe(0);
      }
      expect(inGroup(xs, 'rl-retry-after').map((x) => x.status === 429)).toEqual([false]);
      const other = inGroup(xs, 'rl-other-key');
      expect(other.length).toBeGreaterThanOrEqual(2);
      expect(other.every((x) => x.status === 200 && x.key !== w1[0].key)).toBe(true);
      expect(other.some((x) => x.tStart > refused[0].tEnd && x.tEnd < inGroup(xs, 'rl-retry-after')[0].tStart)).toBe(true);
      const edge = inGroup(xs, 'rl-edge');
      expect(edge.at(-1)!.status).not.toBe(429);
      expect(edge.at(-1)!.rate!.remaining).toBe(LIMIT - 1);
      expect(edge.slice(0, -1).every((x) => x.status === 429)).toBe(true);
      expect(edge.length).toBeGreaterThanOrEqual(2);
      const burst = inGroup(xs, 'rl-burst');
      const burstOk = burst.filter((x) => x.status !== 429).length;
      expect(burstOk).toBeGreaterThan(LIMIT);
      expect(burstOk).toBeLessThanOrEqual(2 * LIMIT);
      expect(burst.some((x) => x.status === 429)).toBe(true);
    });

    it('webhooks: signed deliveries arrive, some fail or stall and are retried with the same event id', () => {
      const wh = run.webhooks;
      expect(wh.length).toBeGreaterThanOrEqual(8);
      expect(wh.every((w) => w.signature === 'ok')).toBe(true);
      expect(wh.some((w) => w.answered !== 200 && w.answered !== 204)).toBe(true);
      const failedIds = new Set(wh.filter((w) => w.answered >= 500 || w.answered === 0).map((w) => w.eventId));
      const retried = wh.filter((w) => w.duplicate && failedIds.has(w.eventId));
      expect(retried.length).toBeGreaterThanOrEqual(1);
      const types = new Set(wh.map((w) => w.type));
      for (const t of ['payment.succeeded', 'payment.failed', 'refund.succeeded', 'refund.failed']) expect(types, t).toContain(t);
    });

    it('chaos-short: each upstream fault and the client-link fault in its window; client time-outs retried with the same key', () => {
      const faults = run.records.filter((r) => r.kind === 'fault');
      expect(faults.map((f) => `${f.link}:${f.toxic.type}:${f.toxic.toxicity}`).sort()).toEqual(['client:latency:1', 'upstream:down:1', 'upstream:latency:1', 'upstream:timeout:1']);
      const xs = of('chaos-short');
      for (const f of faults) expect(xs.some((x) => x.tStart >= f.tStart && x.tStart <= f.tEnd), f.toxic.name).toBe(true);
      const retried = inGroup(xs, 'chaos-client-retry-').filter((x) => (x.attempt ?? 0) > 0);
      expect(retried.length).toBeGreaterThan(0);
      expect(inGroup(xs, 'chaos-ft5-').length).toBeGreaterThanOrEqual(3);
    });

    it('oracle: no violation and every declared rule exercised against the clean service', async () => {
      const j = await judge(run.records);
      const bad = j.invariants.filter((i) => i.status === 'fail' || i.status === 'error').map((i) => ({ id: i.id, reason: i.reason, error: i.error, example: i.examples[0] }));
      expect(bad).toEqual([]);
      const declared = j.run!.scenarios.flatMap((s) => s.rules);
      expect(unexercisedDeclaredRules(j.invariants, declared)).toEqual([]);
    });
  });
}
