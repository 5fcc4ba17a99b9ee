/** The scenario registry and the helpers scenarios share (no target needed). */
import { describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { isRuleId, ruleInfo, parseKeyArg, CARD_OUTCOMES } from '../../src/spec/index.ts';
import { parseFaultSchedule } from '../../src/chaos/fault-schedule.ts';
import { type KeyInfo } from '../../src/history/index.ts';
import { DEFAULT_KEYS } from '../../src/target/index.ts';
import { SCENARIOS, DEFAULT_SUITE, scenarioByName, SCENARIO_NAMES } from '../../scenarios/index.ts';
import { Pacer } from '../../scenarios/lib/pace.ts';
import { keyFacts, loadKeysOf, rateLimitKeyOf } from '../../scenarios/lib/keys.ts';
import { DEFAULT_ENV, declareRules } from '../../scenarios/lib/rules.ts';
import { CHAOS_SCHEDULE, CLIENT_PROXY, UPSTREAM_PROXY } from '../../scenarios/chaos.ts';

const embeddedKeys: KeyInfo[] = DEFAULT_KEYS.map((k) => {
  const p = parseKeyArg(`${k.merchant}:${k.key}`);
  return { label: p.label, merchant: p.merchant, mode: p.mode, prefix: p.prefix, last4: p.last4, directApi: k.direct_api };
});

describe('scenario registry', () => {
  it('has one uniquely named scenario per file, each with a description and run', () => {
    expect(SCENARIO_NAMES).toEqual(['auth-and-input', 'mixed', 'idempotency', 'refunds', 'lists', 'flows', 'chaos-short', 'rate-limit', 'webhooks', 'soak', 'chaos']);
    for (const s of SCENARIOS) {
      expect(scenarioByName(s.name)).toBe(s);
      expect(s.description.length).toBeGreaterThan(20);
      expect(typeof s.run).toBe('function');
    }
    expect(scenarioByName('nope')).toBeUndefined();
  });

  it('keeps soak and the full chaos scenario out of the default suite; its short chaos phase is in', () => {
    expect(DEFAULT_SUITE.map((s) => s.name).sort()).toEqual(['auth-and-input', 'chaos-short', 'flows', 'idempotency', 'lists', 'mixed', 'rate-limit', 'refunds', 'webhooks']);
  });

  it('declares only known, non-observe rule ids, in every environment', () => {
    const envs = [
      DEFAULT_ENV,
      { ...DEFAULT_ENV, presentation: 'A' as const },
      { ...DEFAULT_ENV, presentation: 'B' as const },
      { ...DEFAULT_ENV, keys: embeddedKeys },
      { presentation: 'B' as const, embedded: false, keys: embeddedKeys.slice(0, 1), cardOutcomes: [], webhooks: null },
    ];
    for (const s of SCENARIOS) {
      for (const r of s.rules) {
        expect(isRuleId(r), `${s.name}: ${r}`).toBe(true);
        expect(ruleInfo(r)!.kind, `${s.name}: ${r}`).not.toBe('observe');
      }
      for (const env of envs) for (const r of s.rulesFor?.(env) ?? s.rules) expect(isRuleId(r), `${s.name}: ${r}`).toBe(true);
    }
  });

  it('a run without a cards file declares no rule that needs a card (a missing card is not exercised)', () => {
    const none = { ...DEFAULT_ENV, cardOutcomes: [] };
    expect(scenarioByName('flows')!.rulesFor!(none)).toEqual([]);
    expect(scenarioByName('webhooks')!.rulesFor!(none)).toEqual([]);
    for (const name of ['mixed', 'idempotency']) {
      const declared = scenarioByName(name)!.rulesFor!(none);
      expect(declared, name).not.toContain('PAY-6');
      expect(declared.length, name).toBeGreaterThan(0);
    }
    expect(scenarioByName('mixed')!.rulesFor!(none)).not.toContain('SM-1');
    // With the cards, as before.
    expect(scenarioByName('flows')!.rulesFor!(DEFAULT_ENV)).toEqual(expect.arrayContaining(['PAY-1', 'PAY-6', 'SM-1', 'SM-6']));
    expect(scenarioByName('mixed')!.rulesFor!(DEFAULT_ENV)).toEqual(expect.arrayContaining(['PAY-6', 'SM-1']));
  });

  it('drops the rules whose cards, keys, presentation or receiver the run lacks', () => {
    const flows = scenarioByName('flows')!;
    const noCards = flows.rulesFor!({ ...DEFAULT_ENV, cardOutcomes: ['succeeds'] });
    expect(noCards).not.toContain('SM-4');
    expect(noCards).not.toContain('PAY-16');
    expect(flows.rulesFor!({ ...DEFAULT_ENV, presentation: 'B' })).toContain('PAY-14');
    expect(flows.rulesFor!({ ...DEFAULT_ENV, presentation: 'A' })).not.toContain('PAY-14');
    const wh = scenarioByName('webhooks')!;
    expect(wh.rulesFor!({ ...DEFAULT_ENV, webhooks: null }).some((r) => r.startsWith('WH-'))).toBe(false);
    expect(wh.rulesFor!({ ...DEFAULT_ENV, webhooks: { wired: true, failShare: 0 } })).not.toContain('WH-9');
    expect(wh.rulesFor!(DEFAULT_ENV)).toContain('WH-9');
    const idem = scenarioByName('idempotency')!;
    expect(idem.rulesFor!({ ...DEFAULT_ENV, keys: embeddedKeys.slice(0, 1) })).not.toContain('IDEM-8');
    const lists = scenarioByName('lists')!;
    expect(lists.rulesFor!({ ...DEFAULT_ENV, keys: DEFAULT_ENV.keys.filter((k) => k.mode === 'test') })).not.toContain('LIST-9');
    expect(() => declareRules(['NOPE-1'])).toThrow(/unknown rule id/);
  });

  it('chaos exports a valid fault schedule over both links', () => {
    const chaos = scenarioByName('chaos')!;
    expect(chaos.faults?.schedule).toBe(CHAOS_SCHEDULE);
    expect(parseFaultSchedule(CHAOS_SCHEDULE)).toEqual(CHAOS_SCHEDULE);
    const upstream = CHAOS_SCHEDULE.filter((s) => s.proxy === UPSTREAM_PROXY).map((s) => s.type);
    expect(new Set(upstream)).toEqual(new Set(['latency', 'timeout', 'reset_peer', 'bandwidth', 'slow_close', 'slicer', 'limit_data', 'down']));
    expect(CHAOS_SCHEDULE.filter((s) => s.proxy === CLIENT_PROXY).length).toBe(1);
    // Windows never overlap: one fault at a time.
    const sorted = [...CHAOS_SCHEDULE].sort((a, b) => a.at - b.at);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i].at).toBeGreaterThanOrEqual(sorted[i - 1].at + sorted[i - 1].duration);
  });
});

describe('key roles', () => {
  it('gives the rate-limit scenario the last test key of the first merchant and the others the rest', () => {
    const rl = rateLimitKeyOf(embeddedKeys)!;
    expect(rl.merchant).toBe(embeddedKeys.find((k) => k.mode === 'test')!.merchant);
    expect(rl).toBe(embeddedKeys.filter((k) => k.mode === 'test' && k.merchant === rl.merchant).at(-1));
    const load = loadKeysOf(embeddedKeys);
    expect(load).not.toContain(rl);
    expect(load.every((k) => k.mode === 'test' && k.directApi !== false)).toBe(true);
    expect(load.length).toBe(4);
    expect(keyFacts(embeddedKeys)).toMatchObject({ merchants: 2, live: true, twoTestKeys: true });
  });

  it('shares the only test key when there is one', () => {
    const one = embeddedKeys.filter((k) => k.mode === 'test').slice(0, 1);
    expect(rateLimitKeyOf(one)).toBe(one[0]);
    expect(loadKeysOf(one)).toEqual(one);
    expect(rateLimitKeyOf(embeddedKeys.filter((k) => k.mode === 'live'))).toBeNull();
  });
});

describe('Pacer', () => {
  it('never lets more than its budget start within one window', async () => {
    const p = new Pacer(10, 200);
    const starts: number[] = [];
    const booked: number[] = [];
    await Promise.all(
      Array.from({ length: 35 }, async () => {
        await p.acquire(1);
        // What the pacer promises is about its bookings: read them at the grant, since a
        // continuation that runs late on a busy machine would misdate the start.
        booked.push(p.inWindow());
        starts.push(performance.now());
      }),
    );
    starts.sort((a, b) => a - b);
    expect(booked.length).toBe(35);
    for (const n of booked) expect(n).toBeLessThanOrEqual(10);
    // 35 requests at 10 per 200 ms take at least three windows.
    expect(starts.at(-1)! - starts[0]).toBeGreaterThanOrEqual(3 * 200 - 5);
  });

  it('books a batch at once and stops waiting when aborted', async () => {
    const p = new Pacer(5, 10_000);
    await p.acquire(5);
    expect(p.inWindow()).toBe(5);
    const ac = new AbortController();
    const waiting = p.acquire(1, ac.signal);
    ac.abort();
    await expect(waiting).rejects.toThrow(/abort/);
  });
});

it('covers every card outcome the cards file can name', () => {
  expect(DEFAULT_ENV.cardOutcomes).toEqual([...CARD_OUTCOMES]);
});
