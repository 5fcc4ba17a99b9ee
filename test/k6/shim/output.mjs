/**
 * What the stand-in does with samples, as k6 v1.3 does (compare ../../shared/samples/k6):
 * - `--out json`: a `Metric` line the first time a metric gets a sample (type, contains, its
 *   thresholds, its sub-metrics: those the thresholds name, and http_req_duration's
 *   `expected_response:true`), then one `Point` line per sample,
 *   `{"metric","type":"Point","data":{"time","value","tags"[,"metadata"]}}`, tags and metadata
 *   with sorted keys as Go writes maps; gzipped when the file ends in .gz.
 * - sinks per metric and sub-metric, for thresholds (evaluated on metrics that got samples,
 *   as k6 evaluates observed metrics only) and for handleSummary's `data.metrics`.
 */
import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import { createHash } from 'node:crypto';
import { durationMs } from './options.mjs';

const OPERATORS = ['<=', '<', '>=', '>', '===', '==', '!='];

/** `aggregation operator value` (k6's thresholds_parser.go). */
export function parseThreshold(source) {
  for (const op of OPERATORS) {
    const i = source.indexOf(op);
    if (i < 0) continue;
    const lhs = source.slice(0, i).trim();
    const value = Number(source.slice(i + op.length).trim());
    if (!Number.isFinite(value)) throw new Error(`failed parsing right hand side of threshold "${source}"`);
    const p = /^p\((\d+(?:\.\d+)?)\)$/.exec(lhs);
    if (!p && !['count', 'rate', 'value', 'avg', 'min', 'med', 'max'].includes(lhs)) throw new Error(`failed parsing method of threshold "${source}"`);
    return { method: p ? 'p' : lhs, percentile: p ? Number(p[1]) : null, op, value };
  }
  throw new Error(`malformed threshold expression "${source}"`);
}

/** `name` or `name{tag:value,…}`. */
export function parseMetricKey(key) {
  const m = /^([^{]+)(?:\{(.*)\})?$/.exec(key.trim());
  if (!m) throw new Error(`bad metric key ${key}`);
  const tags = {};
  if (m[2] !== undefined) {
    for (const part of m[2].split(',')) {
      const i = part.indexOf(':');
      if (i <= 0) throw new Error(`bad sub-metric selector in ${key}`);
      tags[part.slice(0, i).trim()] = part.slice(i + 1).trim().replace(/^"(.*)"$/, '$1');
    }
  }
  return { name: m[1].trim(), suffix: m[2], tags };
}

const compare = (a, op, b) => (op === '<=' ? a <= b : op === '<' ? a < b : op === '>=' ? a >= b : op === '>' ? a > b : op === '!=' ? a !== b : a === b);

class Sink {
  constructor(type) {
    this.type = type;
    this.n = 0;
    this.sum = 0;
    this.trues = 0;
    this.min = Infinity;
    this.max = -Infinity;
    this.last = 0;
    this.values = type === 'trend' ? [] : null;
    this.sorted = true;
  }
  add(v) {
    this.n++;
    this.sum += v;
    if (v !== 0) this.trues++;
    this.min = Math.min(this.min, v);
    this.max = Math.max(this.max, v);
    this.last = v;
    if (this.values) {
      this.values.push(v);
      this.sorted = false;
    }
  }
  /** k6's TrendSink.P: linear interpolation between the closest ranks. */
  percentile(p) {
    if (this.n === 0) return 0;
    if (!this.sorted) {
      this.values.sort((a, b) => a - b);
      this.sorted = true;
    }
    const i = (p / 100) * (this.n - 1);
    const lo = this.values[Math.floor(i)];
    const hi = this.values[Math.ceil(i)];
    return lo + (hi - lo) * (i - Math.floor(i));
  }
  /** One aggregation, as thresholds and the summary read it; `seconds`: the test run so far. */
  get(method, percentile, seconds) {
    switch (method) {
      case 'count':
        return this.sum;
      case 'rate':
        return this.type === 'counter' ? (seconds > 0 ? this.sum / seconds : 0) : this.n ? this.trues / this.n : 0;
      case 'value':
        return this.last;
      case 'avg':
        return this.n ? this.sum / this.n : 0;
      case 'min':
        return this.n ? this.min : 0;
      case 'max':
        return this.n ? this.max : 0;
      case 'med':
        return this.percentile(50);
      case 'p':
        return this.percentile(percentile);
      default:
        throw new Error(`unknown aggregation ${method}`);
    }
  }
}

const sortedObject = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
const md5 = (s) => createHash('md5').update(s).digest('hex');

export class Metrics {
  /**
   * @param thresholds the script's `options.thresholds`
   * @param jsonOut k6's --out json file (.gz: gzipped), or null
   */
  constructor({ thresholds, jsonOut, summaryTrendStats, systemTags }) {
    // k6 adds http_req_duration{expected_response:true} only while that system tag is on.
    this.expectedResponseTag = !Array.isArray(systemTags) || systemTags.includes('expected_response');
    this.trendStats = summaryTrendStats ?? ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'];
    /** key -> { name, tags, suffix, sources: [{source, parsed, abortOnFail, delayMs}] } */
    this.keys = new Map();
    for (const [key, list] of Object.entries(thresholds ?? {})) {
      const k = parseMetricKey(key);
      const sources = (Array.isArray(list) ? list : [list]).map((t) => {
        const source = typeof t === 'string' ? t : t.threshold;
        return { source, parsed: parseThreshold(source), abortOnFail: typeof t === 'object' && Boolean(t.abortOnFail), delayMs: typeof t === 'object' && t.delayAbortEval ? durationMs(t.delayAbortEval) : 0 };
      });
      this.keys.set(key, { ...k, sources });
    }
    this.types = new Map();
    /** metric key (name or name{…}) -> Sink */
    this.sinks = new Map();
    /** custom metrics' values, for the runner's result file */
    this.custom = {};
    /** `group path\0check name` -> {passes, fails} */
    this.checks = new Map();
    this.out = null;
    this.closed = null;
    if (jsonOut) {
      const file = createWriteStream(jsonOut);
      this.closed = new Promise((resolve, reject) => {
        file.on('finish', resolve);
        file.on('error', reject);
      });
      if (jsonOut.endsWith('.gz')) {
        const gz = createGzip();
        gz.pipe(file);
        this.out = gz;
      } else this.out = file;
    }
    this.pending = [];
  }

  /** The sub-metrics k6 keeps for a metric: those the thresholds select, and http_req_duration{expected_response:true}. */
  submetricsOf(name) {
    const subs = [...this.keys.entries()].filter(([, k]) => k.name === name && k.suffix !== undefined).map(([key, k]) => ({ name: key, suffix: k.suffix, tags: k.tags }));
    if (name === 'http_req_duration' && this.expectedResponseTag && !subs.some((s) => s.suffix === 'expected_response:true')) subs.push({ name: 'http_req_duration{expected_response:true}', suffix: 'expected_response:true', tags: { expected_response: 'true' } });
    return subs;
  }

  write(line) {
    if (!this.out) return;
    this.pending.push(line);
    if (this.pending.length >= 256) this.flush();
  }

  flush() {
    if (this.out && this.pending.length) this.out.write(this.pending.join('\n') + '\n');
    this.pending = [];
  }

  /** One sample: {name, type, contains, value, tags, time, metadata?, custom?}. */
  add(s) {
    if (!this.types.has(s.name)) {
      const subs = this.submetricsOf(s.name);
      this.types.set(s.name, { type: s.type, contains: s.contains, subs });
      const own = this.keys.get(s.name);
      this.write(JSON.stringify({ type: 'Metric', data: { name: s.name, type: s.type, contains: s.contains, thresholds: own ? own.sources.map((t) => t.source) : [], submetrics: subs.length ? subs : null }, metric: s.name }));
    }
    const data = { time: s.time, value: s.value, tags: sortedObject(s.tags) };
    if (s.metadata && Object.keys(s.metadata).length) data.metadata = sortedObject(s.metadata);
    this.write(JSON.stringify({ metric: s.name, type: 'Point', data }));
    const { type, subs } = this.types.get(s.name);
    this.sink(s.name, type).add(s.value);
    for (const sub of subs) if (Object.entries(sub.tags).every(([k, v]) => s.tags[k] === v)) this.sink(sub.name, type).add(s.value);
    if (s.custom) (this.custom[s.name] ??= { type, isTime: s.contains === 'time', values: [] }).values.push(s.value);
    if (s.name === 'checks') {
      const key = `${s.tags.group ?? ''}\0${s.tags.check}`;
      const c = this.checks.get(key) ?? { passes: 0, fails: 0 };
      if (s.value) c.passes++;
      else c.fails++;
      this.checks.set(key, c);
    }
  }

  sink(key, type) {
    let k = this.sinks.get(key);
    if (!k) this.sinks.set(key, (k = new Sink(type)));
    return k;
  }

  /** Every threshold of a metric that got samples: [{key, source, ok, abortOnFail, delayMs}]. */
  evaluate(runMs) {
    const out = [];
    for (const [key, k] of this.keys) {
      const sink = this.sinks.get(key);
      if (!sink || sink.n === 0) continue;
      for (const t of k.sources) out.push({ key, source: t.source, ok: compare(sink.get(t.parsed.method, t.parsed.percentile, runMs / 1000), t.parsed.op, t.parsed.value), abortOnFail: t.abortOnFail, delayMs: t.delayMs });
    }
    return out;
  }

  /** Check counts by name, over all groups (the runner's result file). */
  checkCounts() {
    const out = {};
    for (const [key, c] of this.checks) {
      const name = key.slice(key.indexOf('\0') + 1);
      const o = (out[name] ??= { passes: 0, fails: 0 });
      o.passes += c.passes;
      o.fails += c.fails;
    }
    return out;
  }

  /** handleSummary's `data`: metrics (with sub-metrics and threshold results), root_group, options, state, setup_data. */
  summaryData({ runMs, setupData, evaluated }) {
    const metrics = {};
    for (const [key, sink] of this.sinks) {
      if (sink.n === 0) continue;
      const name = key.includes('{') ? key.slice(0, key.indexOf('{')) : key;
      const { type, contains } = this.types.get(name);
      const seconds = runMs / 1000;
      let values;
      if (type === 'counter') values = { count: sink.sum, rate: sink.get('rate', null, seconds) };
      else if (type === 'gauge') values = { value: sink.last, min: sink.min, max: sink.max };
      else if (type === 'rate') values = { rate: sink.get('rate', null, seconds), passes: sink.trues, fails: sink.n - sink.trues };
      else values = Object.fromEntries(this.trendStats.map((st) => [st, /^p\(/.test(st) ? sink.percentile(Number(st.slice(2, -1))) : sink.get(st, null, seconds)]));
      const m = { type, contains, values };
      const results = evaluated.filter((e) => e.key === key);
      if (results.length) m.thresholds = Object.fromEntries(results.map((e) => [e.source, { ok: e.ok }]));
      metrics[key] = m;
    }
    const root = { name: '', path: '', id: md5(''), groups: [], checks: [] };
    const groups = new Map([['', root]]);
    const groupOf = (path) => {
      if (groups.has(path)) return groups.get(path);
      const cut = path.lastIndexOf('::');
      const parent = groupOf(path.slice(0, Math.max(0, cut)));
      const g = { name: path.slice(cut + 2), path, id: md5(path), groups: [], checks: [] };
      parent.groups.push(g);
      groups.set(path, g);
      return g;
    };
    for (const [key, c] of this.checks) {
      const [path, name] = key.split('\0');
      groupOf(path).checks.push({ name, path: `${path}::${name}`, id: md5(`${path}::${name}`), passes: c.passes, fails: c.fails });
    }
    return {
      root_group: root,
      options: { summaryTrendStats: this.trendStats, summaryTimeUnit: '', noColor: false },
      state: { isStdOutTTY: false, isStdErrTTY: false, testRunDurationMs: runMs },
      metrics,
      ...(setupData !== undefined ? { setup_data: setupData } : {}),
    };
  }

  async close() {
    this.flush();
    if (!this.out) return;
    this.out.end();
    await this.closed;
  }
}
