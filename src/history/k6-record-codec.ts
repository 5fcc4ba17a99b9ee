/**
 * How a history exchange record travels inside k6's `--out json` output: the text of the
 * `paystorm_record` metadata of a `paystorm_exchange` point. One module for both ends: the k6
 * scripts encode (k6/lib/record.ts), the converter decodes (src/history/k6.ts).
 *
 * Two encodings, told apart by the text's first character:
 * - `{…}`, encoding 1: the record as JSON (what scripts built before encoding 2 write).
 * - `[2,…]`, encoding 2 (K6_RECORD_ENCODING): a positional array. Each object the record holds
 *   is an array of its fields in a fixed order (FIELDS below), so no field name is written;
 *   a field that equals its default is `null`, and trailing nulls are dropped. Defaults come
 *   from what the record already says: an answer's `amount`, `currency`, `description`,
 *   `metadata` are the ones sent, a retrieved payment's id is the one asked for, `wireStatus`
 *   is `status`, `tIntended` and `wall` are `tStart`; times are written as differences
 *   (`tEnd` from `tStart`, Unix-second fields from the second of `tStart`), each the shortest
 *   decimal that gives the value back exactly. Few quotes are left to escape when k6 writes
 *   the text as a JSON string (swapping `"` for `'` would save under 1% more, not worth a pass
 *   over every record on both ends).
 *
 * Exact: decoding gives what `JSON.parse(JSON.stringify(record))` gives, for every record the
 * schema accepts. A value no slot can say (a null where the default is not null, a field this
 * table does not know, a time that is no finite number) is carried whole in the array's last
 * element, a list of `[path, value]` overrides, so a field added to the record later still
 * travels, just less compactly. A new incompatible layout takes a new version number; the
 * converter refuses a version it does not know.
 *
 * It imports only types and the format's version: it is bundled into the k6 scripts (no Node, no zod).
 */
import type { ExchangeRecord } from './schema.ts';
import { HISTORY_VERSION } from './version.ts';

/** The version (first element) of the positional encoding. Encoding 1 is the record's JSON. */
export const K6_RECORD_ENCODING = 2;

type Obj = Record<string, unknown>;
type Path = (string | number)[];

/** What defaults may read: the record's send time (ms and its Unix second) and the objects decoded so far. */
interface Ctx {
  /** tStart, ms. */
  t: number;
  /** Math.floor(tStart / 1000): the base of Unix-second fields. */
  sec: number;
  sent: Obj;
  /** The payment being coded (refunds default their paymentId to its id). */
  pay: Obj | null;
}

/** The objects a record holds, each with its field table in FIELDS. */
type Shape = 'record' | 'sent' | 'cardMeta' | 'sentList' | 'rate' | 'payment' | 'nextAction' | 'card' | 'refund' | 'list' | 'error';

interface Field {
  key: string;
  /**
   * plain: the value (required field; null is null).
   * opt: an optional field; null = absent.
   * def: null = `def(ctx, obj)`.
   * ms: a time in ms, written as its difference from `tStart` (null = equal when `zero`).
   * sec: Unix seconds, written as the difference from tStart's second; null = null (opt: absent).
   * secs: an array of Unix seconds (or nulls), each written that way.
   * obj / objs: a nested object / array of objects (FIELDS[sub]); null = null (opt: absent).
   */
  kind: 'plain' | 'opt' | 'def' | 'ms' | 'sec' | 'secs' | 'obj' | 'objs';
  opt?: boolean;
  def?: (c: Ctx, o: Obj) => unknown;
  /** ms: null means "equal to tStart" (tIntended, wall); without it the difference is always written. */
  zero?: boolean;
  sub?: Shape;
}

const plain = (key: string): Field => ({ key, kind: 'plain' });
const opt = (key: string): Field => ({ key, kind: 'opt' });
const def = (key: string, d: (c: Ctx, o: Obj) => unknown): Field => ({ key, kind: 'def', def: d });
const sec = (key: string, optional = false): Field => ({ key, kind: 'sec', opt: optional });
const obj = (key: string, sub: Shape, optional = false): Field => ({ key, kind: 'obj', sub, opt: optional });
const orNull = (v: unknown): unknown => (v === undefined ? null : v);
const sentField = (name: string) => (c: Ctx) => orNull(c.sent[name]);

/**
 * Field order per object. Frequent fields first: trailing defaults cost nothing. Changing an
 * order or a default changes the encoding: give it a new K6_RECORD_ENCODING.
 */
const FIELDS: Record<Shape, readonly Field[]> = {
  record: [
    plain('op'),
    plain('key'),
    plain('scenario'),
    { key: 'tStart', kind: 'plain' },
    { key: 'tEnd', kind: 'ms' },
    plain('status'),
    obj('sent', 'sent'),
    def('contentType', () => 'application/json'),
    obj('rate', 'rate'),
    sec('date', true),
    def('json', () => true),
    obj('payment', 'payment'),
    obj('list', 'list'),
    obj('refund', 'refund'),
    obj('error', 'error'),
    plain('retryAfter'),
    opt('idemKey'),
    opt('bodyDigest'),
    opt('attempt'),
    opt('location'),
    opt('group'),
    plain('failure'),
    { key: 'tIntended', kind: 'ms', zero: true },
    { key: 'wall', kind: 'ms', zero: true },
    opt('bodySnippet'),
    opt('shapeProblems'),
    opt('leaks'),
    opt('retryAfterRaw'),
    opt('oversizedBodyChars'),
    opt('clockSlackMs'),
    def('seq', () => 0),
    def('kind', () => 'exchange'),
    def('v', () => HISTORY_VERSION),
  ],
  sent: [
    opt('paymentId'),
    opt('amount'),
    opt('currency'),
    opt('description'),
    opt('metadata'),
    opt('merchantReference'),
    opt('returnUrl'),
    opt('cardLast4'),
    opt('cardOutcome'),
    obj('cardMeta', 'cardMeta', true),
    opt('inputShape'),
    obj('list', 'sentList', true),
    opt('method'),
    opt('path'),
    opt('threeDsResult'),
    opt('idemVariant'),
    opt('cardBrand'),
    opt('auth'),
    opt('badInput'),
  ],
  cardMeta: [plain('expMonth'), plain('expYear'), plain('cvcLength'), plain('holderName')],
  sentList: [opt('limit'), opt('startingAfter'), opt('status'), opt('createdGte'), opt('createdLt')],
  rate: [plain('limit'), plain('remaining'), sec('reset'), opt('raw')],
  payment: [
    def('id', sentField('paymentId')),
    plain('status'),
    def('wireStatus', (_c, o) => o.status),
    plain('presentation'),
    def('amount', sentField('amount')),
    def('currency', sentField('currency')),
    def('livemode', () => false),
    sec('created'),
    def('hosted', () => false),
    obj('nextAction', 'nextAction'),
    def('amountRefunded', () => 0),
    plain('amountRefundable'),
    obj('card', 'card'),
    plain('failureCode'),
    def('description', sentField('description')),
    def('metadata', sentField('metadata')),
    def('merchantReference', sentField('merchantReference')),
    def('redirectUrl', (_c, o) => (o.nextAction !== null && typeof o.nextAction === 'object' ? orNull((o.nextAction as Obj).redirectUrl) : null)),
    sec('succeededAt'),
    sec('failedAt'),
    sec('refundedAt'),
    { key: 'refunds', kind: 'objs', sub: 'refund' },
  ],
  nextAction: [plain('type'), plain('reason'), plain('redirectUrl')],
  card: [
    plain('brand'),
    def('last4', sentField('cardLast4')),
    def('exp_month', (c) => orNull((c.sent.cardMeta as Obj | undefined)?.expMonth)),
    def('exp_year', (c) => orNull((c.sent.cardMeta as Obj | undefined)?.expYear)),
    opt('country'),
  ],
  refund: [
    plain('id'),
    def('paymentId', (c) => orNull(c.pay ? c.pay.id : c.sent.paymentId)),
    def('amount', (c) => (c.pay ? null : orNull(c.sent.amount))),
    plain('status'),
    sec('created'),
  ],
  list: [
    plain('ids'),
    plain('statuses'),
    { key: 'created', kind: 'secs' },
    plain('livemodes'),
    opt('descriptions'),
    plain('hasMore'),
    def('object', () => 'list'),
    def('url', () => '/v1/payments'),
  ],
  error: [plain('type'), plain('code'), plain('message'), plain('param'), plain('decline_code'), plain('doc_url'), plain('request_id'), def('missing', () => [])],
};

/** JSON's view of a value: what the record's JSON would hold (NaN and ±Infinity are null). */
function jsonOf(v: unknown): unknown {
  return typeof v === 'number' && !Number.isFinite(v) ? null : v;
}

function same(a: unknown, b: unknown): boolean {
  a = jsonOf(a);
  b = jsonOf(b);
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The shortest number d with base + d === x (x - base is exact near base); undefined when there is none. */
function diff(x: unknown, base: number): number | undefined {
  if (typeof x !== 'number' || !Number.isFinite(x) || !Number.isFinite(base)) return undefined;
  const d = x - base;
  if (base + d !== x) return undefined;
  for (let p = 1; p < 17; p++) {
    const s = Number(d.toPrecision(p));
    if (base + s === x) return s;
  }
  return d;
}

class Encoder {
  /** Values no slot can say: [path, value]. */
  readonly extra: [Path, unknown][] = [];
  constructor(readonly c: Ctx) {}

  object(o: Obj, fields: readonly Field[], path: Path): unknown[] {
    const out: unknown[] = new Array(fields.length).fill(null);
    const known = new Set<string>();
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i];
      known.add(f.key);
      out[i] = this.slot(o, f, [...path, f.key]);
    }
    for (const k of Object.keys(o)) if (!known.has(k) && o[k] !== undefined) this.extra.push([[...path, k], o[k]]);
    let n = out.length;
    while (n > 0 && out[n - 1] === null) n--;
    out.length = n;
    return out;
  }

  private slot(o: Obj, f: Field, path: Path): unknown {
    const v = jsonOf(o[f.key]);
    if (v === undefined) return null; // absent: optional fields (a missing required one is not a schema-valid record)
    switch (f.kind) {
      case 'plain':
        return v;
      case 'opt':
        return v === null ? this.spill(path, null) : v;
      case 'def': {
        if (same(v, f.def!(this.c, o))) return null;
        return v === null ? this.spill(path, null) : v;
      }
      case 'ms': {
        const d = diff(v, this.c.t);
        if (d === undefined) return this.spill(path, v);
        return f.zero && d === 0 ? null : d;
      }
      case 'sec': {
        if (v === null) return f.opt ? this.spill(path, null) : null;
        const d = diff(v, this.c.sec);
        return d === undefined ? this.spill(path, v) : d;
      }
      case 'secs': {
        if (!Array.isArray(v)) return this.spill(path, v);
        const out: unknown[] = [];
        for (const x of v) {
          const d = x === null ? null : diff(x, this.c.sec);
          if (d === undefined) return this.spill(path, v);
          out.push(d);
        }
        return out;
      }
      case 'obj':
        if (v === null) return f.opt ? this.spill(path, null) : null;
        return typeof v === 'object' && !Array.isArray(v) ? this.nested(v as Obj, f, path) : this.spill(path, v);
      case 'objs':
        if (v === null) return null;
        if (!Array.isArray(v) || !v.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x))) return this.spill(path, v);
        return v.map((x: Obj, i) => this.object(x, FIELDS[f.sub!], [...path, i]));
    }
  }

  private nested(v: Obj, f: Field, path: Path): unknown[] {
    if (f.sub === 'payment') {
      this.c.pay = v;
      try {
        return this.object(v, FIELDS.payment, path);
      } finally {
        this.c.pay = null;
      }
    }
    return this.object(v, FIELDS[f.sub!], path);
  }

  /** Carried whole in the overrides; the slot says null. */
  private spill(path: Path, v: unknown): null {
    this.extra.push([path, v]);
    return null;
  }
}

/** The record in encoding 2 (for the `paystorm_record` metadata). */
export function encodeK6Record(r: ExchangeRecord): string {
  const rec = r as unknown as Obj;
  const t = typeof r.tStart === 'number' && Number.isFinite(r.tStart) ? r.tStart : 0;
  const c: Ctx = { t, sec: Math.floor(t / 1000), sent: (r.sent ?? {}) as Obj, pay: null };
  const e = new Encoder(c);
  const body = e.object(rec, FIELDS.record, []);
  // tStart is written whole: the base of the differences (0 when it is no finite number, which JSON writes as null).
  const out: unknown[] = [K6_RECORD_ENCODING, ...body];
  if (e.extra.length) {
    while (out.length < FIELDS.record.length + 1) out.push(null);
    out.push(e.extra);
  }
  return JSON.stringify(out);
}

class Decoder {
  /** Overrides by the JSON of their path. */
  private readonly extra: Map<string, unknown> | null;
  /** Overrides of fields the table does not know, by the JSON of their object's path. */
  private readonly unknown: Map<string, [string, unknown][]> | null;

  constructor(
    readonly c: Ctx,
    extra: unknown,
  ) {
    if (extra === undefined || extra === null) {
      this.extra = null;
      this.unknown = null;
      return;
    }
    if (!Array.isArray(extra)) throw new Error('the overrides are not a list');
    this.extra = new Map();
    this.unknown = new Map();
    for (const e of extra) {
      if (!Array.isArray(e) || e.length !== 2 || !Array.isArray(e[0]) || e[0].length === 0) throw new Error('an override is not [path, value]');
      const path = e[0] as Path;
      this.extra.set(JSON.stringify(path), e[1]);
      const parent = JSON.stringify(path.slice(0, -1));
      const list = this.unknown.get(parent) ?? [];
      list.push([String(path[path.length - 1]), e[1]]);
      this.unknown.set(parent, list);
    }
  }

  /** `a[offset…]` holds the object's slots. `path` is only kept when there are overrides (NO_PATH otherwise). */
  object(a: unknown, fields: readonly Field[], path: Path, into: Obj = {}, offset = 0): Obj {
    if (!Array.isArray(a)) throw new Error(`${path.join('.') || 'the record'} is not an array`);
    const o = into;
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i];
      const at = this.extra === null ? null : JSON.stringify([...path, f.key]);
      if (at !== null && this.extra!.has(at)) {
        const over = this.extra!.get(at);
        o[f.key] = over;
        if (f.sub === 'sent' && over !== null && typeof over === 'object') this.c.sent = over as Obj;
        continue;
      }
      const v = this.slot(i + offset < a.length ? a[i + offset] : null, f, o, path);
      if (v !== undefined) o[f.key] = v;
    }
    if (this.unknown !== null) {
      const known = new Set(fields.map((f) => f.key));
      for (const [k, v] of this.unknown.get(JSON.stringify(path)) ?? []) if (!known.has(k)) o[k] = v;
    }
    return o;
  }

  /** The path of a field (only with overrides: it names them). */
  private pathTo(path: Path, key: string): Path {
    return this.extra === null ? NO_PATH : [...path, key];
  }

  private slot(s: unknown, f: Field, o: Obj, path: Path): unknown {
    switch (f.kind) {
      case 'plain':
        return s;
      case 'opt':
        return s === null ? undefined : s;
      case 'def':
        return s === null ? f.def!(this.c, o) : s;
      case 'ms':
        if (s === null) return f.zero ? this.c.t : null;
        return this.c.t + num(s, f.key);
      case 'sec':
        if (s === null) return f.opt ? undefined : null;
        return this.c.sec + num(s, f.key);
      case 'secs':
        if (s === null) return null;
        if (!Array.isArray(s)) throw new Error(`${f.key} is not a list`);
        return s.map((x) => (x === null ? null : this.c.sec + num(x, f.key)));
      case 'obj': {
        if (s === null) return f.opt ? undefined : null;
        const p = this.pathTo(path, f.key);
        if (f.sub === 'payment') {
          const pay: Obj = {};
          this.c.pay = pay;
          try {
            return this.object(s, FIELDS.payment, p, pay);
          } finally {
            this.c.pay = null;
          }
        }
        const v = this.object(s, FIELDS[f.sub!], p);
        if (f.sub === 'sent') this.c.sent = v;
        return v;
      }
      case 'objs':
        if (s === null) return null;
        if (!Array.isArray(s)) throw new Error(`${f.key} is not a list`);
        return s.map((x, i) => this.object(x, FIELDS[f.sub!], this.extra === null ? NO_PATH : [...path, f.key, i]));
    }
  }
}

const NO_PATH: Path = [];
const TSTART_SLOT = FIELDS.record.findIndex((f) => f.key === 'tStart');

function num(s: unknown, key: string): number {
  if (typeof s !== 'number') throw new Error(`${key} is not a number`);
  return s;
}

/**
 * The record a `paystorm_record` text holds, as JSON would give it (not yet checked against the
 * schema). Throws an Error saying what is wrong for text that is neither encoding.
 */
export function decodeK6Record(text: string, opts: { table?: boolean } = {}): unknown {
  // The first character past any leading white space (no trimmed copy of the text).
  let at = 0;
  while (at < text.length && (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 9 || text.charCodeAt(at) === 10 || text.charCodeAt(at) === 13)) at++;
  const first = text[at];
  if (first === '{') return JSON.parse(text);
  if (first !== '[') throw new Error('neither a JSON record ({…}) nor a compact one ([2,…])');
  const a: unknown = JSON.parse(text);
  if (!Array.isArray(a)) throw new Error('not a list');
  if (a[0] !== K6_RECORD_ENCODING) {
    throw new Error(`encoding ${JSON.stringify(a[0])} is not one this paystorm reads (${K6_RECORD_ENCODING}; 1 is a JSON record): written by a newer paystorm? Judge it with that version`);
  }
  const extra = a.length > FIELDS.record.length + 1 ? a[FIELDS.record.length + 1] : null;
  // tStart first: it is the base of the differences.
  const t0 = a[TSTART_SLOT + 1];
  const t = typeof t0 === 'number' ? t0 : 0;
  const c: Ctx = { t, sec: Math.floor(t / 1000), sent: {}, pay: null };
  // The record's slots follow the version (the overrides, if any, come after them).
  // (`table`: through the table-driven Decoder even so; tests hold the two to the same output.)
  if (extra === null && opts.table !== true) return compiledDecoders().record(a, 1, c);
  return new Decoder(c, extra).object(a, FIELDS.record, [], {}, 1);
}

/** A record's object decoded from its slots `a[offset…]` (no overrides): what Decoder.object gives. */
type CompiledDecoder = (a: unknown, offset: number, c: Ctx, into?: Obj) => Obj;

let compiled: Record<Shape, CompiledDecoder> | null = null;

/**
 * Decoder.object written out per shape, once, as straight-line code (a million records are
 * decoded per fleet hour, and the table-driven loop cost more than the oracle's reading of them).
 * Same fields, in the same order, with the same defaults and errors; records with overrides
 * still go through Decoder.
 */
function compiledDecoders(): Record<Shape, CompiledDecoder> {
  if (compiled !== null) return compiled;
  const out = {} as Record<Shape, CompiledDecoder>;
  for (const shape of Object.keys(FIELDS) as Shape[]) {
    const fields = FIELDS[shape];
    const body: string[] = [
      "if (!Array.isArray(a)) throw new Error('the record is not an array');",
      'const o = into === undefined ? {} : into;',
      'const n = a.length;',
      'let s, v;',
    ];
    fields.forEach((f, i) => {
      const k = JSON.stringify(f.key);
      body.push(`s = offset + ${i} < n ? a[offset + ${i}] : null;`);
      switch (f.kind) {
        case 'plain':
          body.push(`o[${k}] = s;`);
          break;
        case 'opt':
          body.push(`if (s !== null) o[${k}] = s;`);
          break;
        case 'def':
          body.push(`v = s === null ? F[${i}].def(c, o) : s;`, `if (v !== undefined) o[${k}] = v;`);
          break;
        case 'ms':
          body.push(`o[${k}] = s === null ? ${f.zero ? 'c.t' : 'null'} : c.t + num(s, ${k});`);
          break;
        case 'sec':
          body.push(`if (s !== null) o[${k}] = c.sec + num(s, ${k});${f.opt ? '' : ` else o[${k}] = null;`}`);
          break;
        case 'secs':
          body.push(
            `if (s === null) o[${k}] = null;`,
            `else { if (!Array.isArray(s)) throw new Error(${JSON.stringify(`${f.key} is not a list`)}); o[${k}] = s.map((x) => (x === null ? null : c.sec + num(x, ${k}))); }`,
          );
          break;
        case 'obj': {
          const sub = JSON.stringify(f.sub);
          const decode =
            f.sub === 'payment'
              ? `{ const pay = {}; c.pay = pay; try { o[${k}] = D.payment(s, 0, c, pay); } finally { c.pay = null; } }`
              : f.sub === 'sent'
                ? `{ v = D.sent(s, 0, c); c.sent = v; o[${k}] = v; }`
                : `o[${k}] = D[${sub}](s, 0, c);`;
          body.push(`if (s !== null) ${decode}${f.opt ? '' : ` else o[${k}] = null;`}`);
          break;
        }
        case 'objs':
          body.push(
            `if (s === null) o[${k}] = null;`,
            `else { if (!Array.isArray(s)) throw new Error(${JSON.stringify(`${f.key} is not a list`)}); o[${k}] = s.map((x) => D[${JSON.stringify(f.sub)}](x, 0, c)); }`,
          );
          break;
      }
    });
    body.push('return o;');
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the table's code, generated once (above)
    const make = new Function('F', 'D', 'num', `return function decode_${shape}(a, offset, c, into) {\n${body.join('\n')}\n};`) as (F: readonly Field[], D: Record<Shape, CompiledDecoder>, n: typeof num) => CompiledDecoder;
    out[shape] = make(fields, out, num);
  }
  return (compiled = out);
}

/** What the converter sorts and summarises records by, before it decodes them whole. */
export interface K6RecordHead {
  key: string;
  scenario: string;
  tStart: number;
  tEnd: number;
  /** rate.limit (null: no rate or no limit; undefined: not read, k6RecordHeadOfLiteral). */
  rateLimit: number | null | undefined;
}

const slotOf = (key: string) => FIELDS.record.findIndex((f) => f.key === key) + 1;
const HEAD_SLOTS = { key: slotOf('key'), scenario: slotOf('scenario'), tStart: slotOf('tStart'), tEnd: slotOf('tEnd'), rate: slotOf('rate') };
const RATE_LIMIT_SLOT = FIELDS.rate.findIndex((f) => f.key === 'limit');

/**
 * The head of a compact record (encoding 2) read from its slots without decoding the rest: what
 * decodeK6Record would give for these fields. Null when the text is not a plain compact record
 * (JSON, overrides, or a slot of another type than a valid record has): decode it whole.
 */
export function k6RecordHead(text: string): K6RecordHead | null {
  if (text.charCodeAt(0) !== 91) return null;
  let a: unknown;
  try {
    a = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(a) || a[0] !== K6_RECORD_ENCODING || a.length > FIELDS.record.length + 1) return null;
  const key = a[HEAD_SLOTS.key];
  const scenario = a[HEAD_SLOTS.scenario];
  const tStart = a[HEAD_SLOTS.tStart];
  const tEnd = a[HEAD_SLOTS.tEnd];
  const rate = a[HEAD_SLOTS.rate];
  if (typeof key !== 'string' || typeof scenario !== 'string' || typeof tStart !== 'number' || typeof tEnd !== 'number') return null;
  let rateLimit: number | null = null;
  if (rate !== null && rate !== undefined) {
    if (!Array.isArray(rate)) return null;
    const limit = rate[RATE_LIMIT_SLOT];
    if (limit !== null && limit !== undefined && typeof limit !== 'number') return null;
    rateLimit = typeof limit === 'number' ? limit : null;
  }
  return { key, scenario, tStart, tEnd: tStart + tEnd, rateLimit };
}

const HEAD_ORDER = ['op', 'key', 'scenario', 'tStart', 'tEnd'];
if (HEAD_ORDER.some((k, i) => FIELDS.record[i].key !== k)) throw new Error('k6RecordHeadOfLiteral reads op, key, scenario, tStart, tEnd as the first slots');

/** `"[2,` as the bytes of a JSON string literal's start. */
const LITERAL_HEAD = [34, 91, ...String(K6_RECORD_ENCODING).split('').map((c) => c.charCodeAt(0)), 44];
const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i);

/**
 * The head of a compact record from the bytes of its JSON string literal (as k6 writes it in
 * `--out json`: `"[2,\"create\",\"acme/test/…b605\",\"mixed\",1795869907126,2.406,…`),
 * without parsing it: the key and scenario through `text` (bytes -> string), tStart and tEnd by
 * JSON's number grammar (no exponent, at most 15 digits: then exactly what JSON.parse reads);
 * the rate limit is not read (undefined). Null for anything else (escapes in a string, another
 * number form, JSON records): parse the literal and use k6RecordHead.
 */
export function k6RecordHeadOfLiteral(b: Uint8Array, start: number, end: number, text: (bytes: Uint8Array, from: number, to: number) => string): K6RecordHead | null {
  let i = start;
  for (const c of LITERAL_HEAD) if (b[i++] !== c) return null;
  const strings: string[] = [];
  for (let k = 0; k < 3; k++) {
    // \"…\" with no escape inside.
    if (b[i] !== 92 || b[i + 1] !== 34) return null;
    const from = i + 2;
    let j = from;
    while (j < end && b[j] !== 92) j++;
    if (j + 2 >= end || b[j + 1] !== 34 || b[j + 2] !== 44) return null;
    if (k > 0) strings.push(text(b, from, j));
    i = j + 3;
  }
  const numbers: number[] = [];
  for (let k = 0; k < 2; k++) {
    const negative = b[i] === 45;
    if (negative) i++;
    let n = 0;
    let digits = 0;
    let c = b[i] - 48;
    if (c === 0) {
      i++;
      digits++;
    } else if (c > 0 && c <= 9) {
      for (; c >= 0 && c <= 9; c = b[++i] - 48) {
        n = n * 10 + c;
        digits++;
      }
    } else return null;
    let f = 0;
    if (b[i] === 46) {
      for (c = b[++i] - 48; c >= 0 && c <= 9; c = b[++i] - 48) {
        n = n * 10 + c;
        f++;
      }
      if (f === 0) return null;
    }
    if (digits + f > 15 || b[i] !== 44) return null;
    i++;
    numbers.push(negative ? -(n / POW10[f]) : n / POW10[f]);
  }
  return { key: strings[0], scenario: strings[1], tStart: numbers[0], tEnd: numbers[0] + numbers[1], rateLimit: undefined };
}
