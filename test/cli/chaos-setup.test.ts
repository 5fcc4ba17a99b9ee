/**
 * Fault schedules are checked against the proxies that exist before load (issue 11 §3): the
 * default suite's chaos phase skips what cannot run (its reason recorded, its rules undeclared),
 * a scenario named on the command line with nothing that can run, or a --config schedule on a
 * missing proxy, is refused with exit 3 naming the flag to add. The chaos schedules are sized
 * from the declared upstream time-out, with the `timeout` window certain (toxicity 1).
 */
import { describe, expect, it } from 'vitest';
import { EXIT, PaystormError } from '../../src/spec/index.ts';
import { parseFaultSchedule } from '../../src/chaos/fault-schedule.ts';
import { planFaults, viaProxyUrl } from '../../src/cli/chaos-setup.ts';
import { scenarioByName } from '../../scenarios/index.ts';
import { chaosPlan, SHORT, CLIENT_PROXY, UPSTREAM_PROXY } from '../../scenarios/chaos.ts';
import { DEFAULT_ENV } from '../../scenarios/lib/rules.ts';

const chaos = scenarioByName('chaos')!;
const short = scenarioByName('chaos-short')!;
const run = { timeScale: 1, embedded: false };
const base = { extraFaults: [], toxiproxyUrl: 'http://127.0.0.1:8474', targetHost: 'svc.test:4010', run };

function refusal(fn: () => unknown): PaystormError {
  try {
    fn();
  } catch (e) {
    return e as PaystormError;
  }
  throw new Error('expected a refusal');
}

describe('planFaults', () => {
  it('runs the upstream steps and skips the client step, with the flag that adds it, when only upstream exists', () => {
    const plan = planFaults({ ...base, scenarios: [chaos], named: true, proxies: ['upstream'] });
    expect(plan.faultProxies).toEqual(['upstream']);
    expect(plan.skipped.map((s) => [s.scenario, s.proxy, s.type])).toEqual([['chaos', 'client', 'latency']]);
    expect(plan.skipped[0].reason).toContain('--proxy "client=127.0.0.1:4110>svc.test:4010"');
    expect(plan.notes).toHaveLength(1);
    expect(plan.notes[0]).toMatch(/chaos: 1 fault step\(s\) \(latency\) skipped/);
  });

  it('skips nothing when every proxy exists', () => {
    const plan = planFaults({ ...base, scenarios: [chaos, short], named: true, proxies: ['upstream', 'client'] });
    expect(plan.skipped).toEqual([]);
  });

  it('refuses a named scenario none of whose faults can run (exit 3, naming --proxy)', () => {
    const e = refusal(() => planFaults({ ...base, scenarios: [chaos], named: true, proxies: null, toxiproxyUrl: null }));
    expect(e).toBeInstanceOf(PaystormError);
    expect(e.exitCode).toBe(EXIT.usage);
    expect(e.message).toMatch(/scenario chaos: no "upstream" proxy in this run .*--proxy "upstream=LISTEN_HOST:PORT>PROCESSOR_HOST:PORT".*embedded Toxiproxy-compatible proxy/);
  });

  it('skips the default suite\'s chaos phase on a target without proxies, and says why', () => {
    const plan = planFaults({ ...base, scenarios: [short], named: false, proxies: null, toxiproxyUrl: null });
    expect(new Set(plan.skipped.map((s) => s.proxy))).toEqual(new Set(['upstream', 'client']));
    expect(plan.faultProxies).toEqual([]);
    expect(plan.notes.join('\n')).toMatch(/no "upstream" proxy in this run \(no --toxiproxy and no --proxy\)/);
  });

  it('refuses a --config schedule step on a proxy that does not exist, naming the step', () => {
    const extraFaults = parseFaultSchedule([{ at: 0, duration: 1000, proxy: 'db', type: 'down' }]);
    const e = refusal(() => planFaults({ ...base, scenarios: [], named: false, extraFaults, proxies: ['upstream'] }));
    expect(e.exitCode).toBe(EXIT.usage);
    expect(e.field).toBe('faults[0].proxy');
    expect(e.message).toMatch(/faults\[0\]\.proxy: no "db" proxy on Toxiproxy at http:\/\/127\.0\.0\.1:8474: add --proxy "db=/);
  });
});

describe('viaProxyUrl', () => {
  it('keeps the scheme and path of the target on the proxy address; a wildcard listen is reached on the Toxiproxy host', () => {
    expect(viaProxyUrl('http://svc.test:4010', '127.0.0.1:4110', 'http://127.0.0.1:8474')).toBe('http://127.0.0.1:4110');
    expect(viaProxyUrl('http://svc.test:4010/api/', '0.0.0.0:4110', 'http://tp.test:8474')).toBe('http://tp.test:4110/api/');
  });
});

describe('chaos schedules', () => {
  it('hold every processor connection (toxicity 1) for longer than the declared upstream time-out', () => {
    for (const shape of [undefined, SHORT]) {
      const { schedule } = chaosPlan({ ...run, upstreamTimeoutMs: 10_000 }, shape);
      const t = schedule.find((s) => s.type === 'timeout')!;
      expect(t.toxicity).toBe(1);
      expect(t.duration).toBeGreaterThanOrEqual(11_000);
      // Windows still never overlap.
      const sorted = [...schedule].sort((a, b) => a.at - b.at);
      for (let i = 1; i < sorted.length; i++) expect(sorted[i].at).toBeGreaterThanOrEqual(sorted[i - 1].at + sorted[i - 1].duration);
      // Without a declared time-out the window keeps the shape's step.
      expect(chaosPlan(run, shape).schedule.find((s) => s.type === 'timeout')!.duration).toBeLessThan(10_000);
    }
  });

  it('the default suite\'s phase is short: three upstream toxics and the client fault within 12 s', () => {
    const { schedule } = chaosPlan({ timeScale: 0.05, embedded: true, upstreamTimeoutMs: 500 }, SHORT);
    expect(schedule.filter((s) => s.proxy === UPSTREAM_PROXY).map((s) => s.type)).toEqual(['latency', 'timeout', 'down']);
    expect(schedule.filter((s) => s.proxy === CLIENT_PROXY)).toHaveLength(1);
    expect(Math.max(...schedule.map((s) => s.at + s.duration))).toBeLessThanOrEqual(12_000);
    expect(short.defaultSuite).toBe(true);
  });

  it('declare FT-3 only with a client proxy, and no FT rule (nor any rule of the phase) without an upstream one', () => {
    const rules = (s: typeof chaos, faultProxies?: string[]) => s.rulesFor!({ ...DEFAULT_ENV, ...(faultProxies ? { faultProxies } : {}) });
    expect(rules(chaos)).toEqual(expect.arrayContaining(['FT-1', 'FT-2', 'FT-3', 'FT-4', 'FT-5']));
    expect(rules(chaos, ['upstream'])).not.toContain('FT-3');
    expect(rules(chaos, ['upstream'])).toEqual(expect.arrayContaining(['FT-1', 'FT-2', 'FT-4', 'FT-5']));
    expect(rules(short, ['upstream', 'client'])).toEqual(expect.arrayContaining(['FT-1', 'FT-2', 'FT-3', 'FT-4', 'FT-5', 'SM-1']));
    expect(rules(short, [])).toEqual([]);
  });
});
