/**
 * Bad-input probes: a request whose `sent.badInput` says what it broke. Which rule
 * a probe exercises comes from `badInput.rule`, else from its op, case and expected code.
 * The expected answer comes from the spec wherever the spec fixes it (PAY-2, PAY-4,
 * PAY-17); elsewhere from the probe, which knows the presentation (PAY-5's return_url).
 * A probe no rule demands an answer for (`badInput.expectation` `lenient-ok`), or a Direct API
 * create in the other presentation's input shape, is never a violation: a 2xx is an observation.
 * A probe the spec allows to be accepted (`either`, docs/open-readings.md) may get a 2xx (an
 * observation; the payment it made is judged by the create invariants like any other) or the
 * expected refusal, nothing else; `badInput.altParams` are fields its `param` may name instead.
 */
import type { Presentation } from '../../spec/index.ts';
import type { ExchangeRecord } from '../../history/index.ts';
import { errorCode, is2xx, isCreate, isInconclusive } from './exchange.ts';
import { evidence, show, type Findings } from './findings.ts';

type BadInput = NonNullable<ExchangeRecord['sent']['badInput']>;

export function probeRule(x: ExchangeRecord): string | undefined {
  const b = x.sent.badInput;
  if (!b) {
    // An amount below the minimum is PAY-2's probe whoever sent it.
    if (isCreate(x) && typeof x.sent.amount === 'number' && x.sent.amount < 1) return 'PAY-2';
    return undefined;
  }
  if (b.rule) return b.rule;
  if (x.op === 'retrieve') return 'PAY-17';
  if (x.op === 'list' || x.sent.list) {
    if (/limit/i.test(b.case)) return 'LIST-3';
    if (/starting_after|cursor/i.test(b.case)) return 'LIST-4';
    if (/status/i.test(b.case)) return 'LIST-6';
    if (/created/i.test(b.case)) return 'LIST-7';
    return undefined;
  }
  if (b.expectCode === 'invalid_request_body') return 'PAY-4';
  if (/amount/i.test(b.case) && (b.expectParam === 'amount' || typeof x.sent.amount === 'number')) return 'PAY-2';
  // A missing or oversized Idempotency-Key is an idempotency probe, not a missing body field.
  if (b.expectCode === 'parameter_missing' || /idempotency-key-missing/i.test(b.case)) return 'IDEM-1';
  if (/idempotency-key/i.test(b.case)) return 'IDEM-2';
  if (/missing/i.test(b.case)) return 'PAY-3';
  if (isCreate(x)) return 'PAY-5';
  return undefined;
}

export interface Expected {
  /** An exact status, or '2xx' for "accepted". */
  status: number | '2xx';
  code: string | null;
  /** `param` must contain this field's name (the last segment of a nested name), or that of one of `altParams`. */
  param: string | null;
  altParams?: readonly string[];
}

export function expectedFor(rule: string, x: ExchangeRecord): Expected {
  const b: BadInput | undefined = x.sent.badInput;
  switch (rule) {
    case 'PAY-2':
      return { status: 400, code: 'parameter_invalid', param: 'amount' };
    case 'PAY-4':
      return { status: 400, code: 'invalid_request_body', param: null };
    case 'PAY-17':
      return { status: 404, code: 'resource_missing', param: null };
    case 'PAY-3':
      return { status: 400, code: 'parameter_invalid', param: b?.expectParam ?? null, altParams: b?.altParams };
    default:
      if (!b) return { status: 400, code: 'parameter_invalid', param: null };
      return is2xx(b.expectStatus) ? { status: '2xx', code: null, param: null } : { status: b.expectStatus, code: b.expectCode || null, param: b.expectParam, altParams: b.altParams };
  }
}

/** The name `param` must contain: `customer.address.city` -> `city`, compared without case or underscores. */
function leaf(name: string): string {
  const parts = name.split(/[.[\]]+/).filter(Boolean);
  return (parts[parts.length - 1] ?? name).replace(/_/g, '').toLowerCase();
}
export function paramNames(param: unknown, field: string): boolean {
  return typeof param === 'string' && param.replace(/_/g, '').toLowerCase().includes(leaf(field));
}
/** Whether `param` names the expected field or one of its alternatives. */
function paramNamesExpected(param: unknown, want: Expected): boolean {
  return want.param === null || [want.param, ...(want.altParams ?? [])].some((field) => paramNames(param, field));
}

/**
 * Whether a rule demands the probe's expected answer: not when the probe says `lenient-ok`, nor
 * for a Direct API create in the input shape of the other presentation than the service's
 * (a field that shape never had is not "missing" there).
 */
export function probeDemanded(x: ExchangeRecord, presentation: Presentation | null = null): boolean {
  if (x.sent.badInput?.expectation === 'lenient-ok') return false;
  if (presentation && x.op === 'create' && x.sent.inputShape && x.sent.inputShape !== presentation) return false;
  return true;
}

/** Judges one probe against what it should get; inconclusive answers are skipped. `presentation`: the service's, when known. */
export function judgeProbe(x: ExchangeRecord, rule: string, f: Findings, presentation: Presentation | null = null): void {
  if (isInconclusive(x) || x.status === 401 || x.status === 403) return;
  const what = x.sent.badInput?.case ?? `amount ${show(x.sent.amount)}`;
  const lenient = !probeDemanded(x, presentation);
  if (lenient || (x.sent.badInput?.expectation === 'either' && is2xx(x.status))) {
    // lenient-ok: any refusal is fine. An acceptance the spec allows is worth telling, never a failure.
    f.check();
    if (is2xx(x.status)) {
      f.observe(`lenient-input-${rule.toLowerCase()}`, `The service accepted bad inputs that no rule demands a 400 for under ${rule}, a lenient answer the spec allows`, [rule], what, x);
    }
    return;
  }
  const want = expectedFor(rule, x);
  f.check();
  const got = `${x.status} ${show(errorCode(x))}${x.error ? ` param ${show(x.error.param)}` : ''}`;
  if (want.status === '2xx') {
    if (!is2xx(x.status)) f.violation(evidence(`${what}: a valid request was refused with ${got}`, [x]));
    return;
  }
  const wrong = x.status !== want.status || (want.code !== null && errorCode(x) !== want.code) || !paramNamesExpected(x.error?.param, want);
  if (wrong) {
    const named = want.param ? ` naming ${[want.param, ...(want.altParams ?? [])].join(' or ')}` : '';
    const expect = `${want.status}${want.code ? ' ' + want.code : ''}${named}${x.sent.badInput?.expectation === 'either' ? ' (or a 2xx)' : ''}`;
    f.violation(evidence(`${what}: expected ${expect}, got ${got}`, [x]));
  }
}
