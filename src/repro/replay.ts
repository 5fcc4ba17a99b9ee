/**
 * Replays a repro plan against a target with paystorm's own client, records the exchanges as a
 * small history (the original run record with this target and keys), and judges it with the
 * invariant that reported the violation: the oracle judges a history, so "reproduces" means that
 * invariant fails on the replay's history.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ClientFactory, type KeySecret } from '../client/index.ts';
import { judge } from '../oracle/judge.ts';
import { isTerminal, type CardsFile, type InvariantResult, type PaymentStatus, type Presentation } from '../spec/index.ts';
import { HISTORY_VERSION, type ExchangeRecord, type HistoryRecord, type RunRecord, type Sent } from '../history/index.ts';
import type { ReproPlan, ReproRequest, ReproWait } from './plan.ts';

export interface ReplayOptions {
  targetUrl: string;
  /** Key i stands for the plan's KEY_(i+1). */
  keys: readonly KeySecret[];
  cards: CardsFile;
  presentation: Presentation;
  /** The original run record (settle bound, rate limit, ...), re-pointed at this target. */
  run: RunRecord;
  /** Longest wait for a payment or refund to settle, ms. */
  waitMs?: number;
  timeScale?: number;
}

export interface ReplayResult {
  reproduces: boolean;
  invariant: InvariantResult | null;
  records: ExchangeRecord[];
  /** Why the replay could not judge (setup failed), if so. */
  setupFailed: string | null;
}

const fill = (s: string, values: ReadonlyMap<string, string>): string => s.replace(/\{\{([A-Z0-9_]+)\}\}/g, (m, name: string) => values.get(name) ?? m);
const fillDeep = (x: unknown, values: ReadonlyMap<string, string>): unknown => {
  if (typeof x === 'string') return fill(x, values);
  if (Array.isArray(x)) return x.map((v) => fillDeep(v, values));
  if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, fillDeep(v, values)]));
  return x;
};

export async function replay(plan: ReproPlan, o: ReplayOptions): Promise<ReplayResult> {
  if (o.keys.length < plan.keys.length) throw new Error(`the repro needs ${plan.keys.length} keys (${plan.keys.map((k) => k.label).join(', ')}); ${o.keys.length} given`);
  const t0 = performance.now();
  const wall0 = Date.now();
  const clock = { now: () => performance.now() - t0, wall: () => wall0 + (performance.now() - t0) };
  const records: ExchangeRecord[] = [];
  const factory = new ClientFactory({ baseUrl: o.targetUrl, keys: o.keys, presentation: o.presentation, clock, sink: (r) => records.push(r), timeScale: o.timeScale ?? 1, scenario: 'repro' });
  const values = new Map<string, string>();
  const tag = `repro-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  plan.idems.forEach((k, i) => {
    const v = `${tag}-${i + 1}`;
    values.set(k.name, k.length > 255 ? v.padEnd(k.length, 'k') : v);
  });
  for (const n of plan.nonces) values.set(n, randomUUID());
  for (const c of plan.cards) {
    const num = o.cards[c];
    if (num) values.set(`CARD_${c.toUpperCase()}`, num);
  }
  const waitMs = o.waitMs ?? 30_000;

  const send = async (r: ReproRequest) => {
    const client = factory.client(o.keys[r.key].handle);
    factory.setScenario(r.scenario);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.headers)) headers[k] = fill(v, values);
    const res = await client.raw(
      { method: r.method as 'GET', path: fill(r.path, values), ...(Object.keys(headers).length ? { headers } : {}), ...(r.body !== null ? { body: fill(r.body, values) } : {}), auth: r.auth },
      { op: r.op, ...(r.group ? { group: r.group } : {}), ...(r.idem ? { idemKey: values.get(r.idem) } : r.method === 'POST' ? { omitIdemKey: true } : {}) },
    );
    // The record carries what the original sent (with this replay's ids), so the invariant reads the same fields.
    const rec = res.record;
    const sent = fillDeep(r.sent, values) as Sent;
    rec.sent = r.op === 'raw' ? { ...rec.sent, ...sent } : sent;
    if (r.captures && res.status >= 200 && res.status < 300 && rec.payment) values.set(r.captures, rec.payment.id);
    return res;
  };
  const wait = async (w: ReproWait): Promise<string | null> => {
    const id = values.get(w.pay);
    if (!id) return null;
    const client = factory.client(o.keys[w.key].handle);
    const deadline = clock.now() + waitMs;
    for (;;) {
      const res = await client.retrieve(id, {});
      const p = res.record.payment;
      const okStatus = !w.until.length || (p !== null && w.until.includes(p.status));
      const settled = !w.refundsSettled || (p !== null && !(p.refunds ?? []).some((x) => x.status === 'pending'));
      if (p && okStatus && settled) return null;
      if (p && w.until.length && isTerminal(p.status as PaymentStatus) && !w.until.includes(p.status)) return `${id} ended ${p.status}, not ${w.until.join('/')}`;
      if (clock.now() > deadline) return `${id} did not reach ${w.until.join('/') || 'a settled refund'} within ${waitMs} ms`;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  let setupFailed: string | null = null;
  try {
    for (const s of plan.stages) {
      if (s.kind === 'request') {
        if (s.request.seq === 0 && !values.has(s.request.path.match(/PAY_\d+/)?.[0] ?? '')) continue;
        const res = await send(s.request);
        if (s.request.captures && !s.request.evidence && !values.has(s.request.captures)) {
          setupFailed = `no payment in the answer to the setup request #${s.request.seq} (status ${res.status})`;
          break;
        }
      } else if (s.kind === 'concurrent') await Promise.all(s.requests.map(send));
      else if (s.kind === 'fill') {
        const client = factory.client(o.keys[s.fill.key].handle);
        factory.setScenario('repro');
        const first = await client.list({ limit: 1 }, { group: 'repro-fill' });
        const remaining = first.record.rate?.remaining;
        if (typeof remaining !== 'number') {
          setupFailed = 'no X-RateLimit-Remaining to size the window with';
          break;
        }
        for (let left = remaining + 1 - s.fill.evidence; left > 0; left -= 10) await Promise.all(Array.from({ length: Math.min(10, left) }, () => client.list({ limit: 1 }, { group: 'repro-fill' })));
      }
      else {
        const problem = await wait(s.wait);
        if (problem) {
          setupFailed = problem;
          break;
        }
      }
    }
  } finally {
    await factory.close();
  }

  const run: RunRecord = {
    ...o.run,
    runId: `${o.run.runId}-repro-${plan.id}`,
    wall: wall0,
    target: { url: o.targetUrl, embedded: o.run.target.embedded, presentation: o.presentation },
    keys: o.keys.map((k) => ({ label: k.handle.label, merchant: k.handle.merchant, mode: k.handle.mode, prefix: k.handle.prefix, last4: k.handle.last4, ...(k.handle.directApi !== undefined ? { directApi: k.handle.directApi } : {}) })),
    webhooks: null,
  };
  const history: HistoryRecord[] = [run, ...records.sort((a, b) => a.seq - b.seq), { v: HISTORY_VERSION, kind: 'end', tEnd: clock.now(), wall: Date.now(), complete: true, reason: 'done', requests: records.length, dropped: 0 }];
  const judgement = await judge(history, { only: [plan.invariant] });
  const invariant = judgement.invariants.find((i) => i.id === plan.invariant) ?? null;
  return { reproduces: !setupFailed && invariant?.status === 'fail', invariant, records, setupFailed };
}
