/**
 * k6's execution segments (lib/execution_segment.go), for the stand-in: how an instance given
 * `--execution-segment 1/4:2/4` (k6-operator splits a test this way) takes its share of VUs,
 * iterations and arrival-rate starts. The sequence (given, or filled around the segment: 0,from,to,1)
 * is striped over its least common denominator, biggest segments first, so every instance owns
 * fixed positions of each cycle; a value is scaled by counting the positions below it.
 * Rationals are small here, so plain numbers do.
 */

const gcd = (a, b) => {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) [a, b] = [b, a % b];
  return a || 1;
};
const rat = (n, d = 1) => {
  const g = gcd(n, d);
  return d < 0 ? { n: -n / g, d: -d / g } : { n: n / g, d: d / g };
};
const sub = (a, b) => rat(a.n * b.d - b.n * a.d, a.d * b.d);
const cmp = (a, b) => a.n * b.d - b.n * a.d;
/** Go's big.Rat RatString: "1/4", or "1" for an integer. */
const ratString = (r) => (r.d === 1 ? String(r.n) : `${r.n}/${r.d}`);

/** A percentage (25%), a decimal (0.25) or a fraction (1/4), as k6's stringToRat reads it. */
export function parseRat(s) {
  const t = String(s).trim();
  let m = /^(\d+)%$/.exec(t);
  if (m) return rat(Number(m[1]), 100);
  m = /^(\d+)\/(\d+)$/.exec(t);
  if (m && Number(m[2]) > 0) return rat(Number(m[1]), Number(m[2]));
  m = /^(\d+)(?:\.(\d+))?$/.exec(t);
  if (m) {
    const decimals = m[2] ?? '';
    return rat(Number(m[1] + decimals), 10 ** decimals.length);
  }
  throw new Error(`'${t}' is not a valid percentage, decimal, fraction or interval value`);
}

function segment(from, to) {
  if (from.n < 0) throw new Error(`segment start value should be at least 0 but was ${ratString(from)}`);
  if (cmp(from, to) >= 0) throw new Error(`segment start(${ratString(from)}) should be less than its end(${ratString(to)})`);
  if (cmp(to, rat(1)) > 0) throw new Error(`segment end value shouldn't be more than 1 but was ${ratString(to)}`);
  return { from, to, length: sub(to, from) };
}

/** `from:to`, or `to` alone (then from 0); empty: the whole test. */
export function parseSegment(text) {
  const t = String(text ?? '').trim() || '1';
  const i = t.indexOf(':');
  return i < 0 ? segment(rat(0), parseRat(t)) : segment(parseRat(t.slice(0, i)), parseRat(t.slice(i + 1)));
}

/** `r1,r2,…,rn`: the segments (r1,r2], (r2,r3], … */
export function parseSequence(text) {
  const points = String(text).split(',').map(parseRat);
  if (points.length < 2) throw new Error(`at least 2 points are needed for an execution segment sequence, ${points.length} given`);
  return points.slice(1).map((p, i) => segment(points[i], p));
}

const segmentString = (s) => `${ratString(s.from)}:${ratString(s.to)}`;
const sameSegment = (a, b) => cmp(a.from, b.from) === 0 && cmp(a.to, b.to) === 0;

/** The striped positions of each segment in one LCD-long cycle: [start, gap1, gap2, …] per segment. */
function stripe(sequence) {
  let lcd = 1;
  for (const s of sequence) lcd = (lcd * s.length.d) / gcd(lcd, s.length.d);
  const order = sequence.map((s, i) => ({ num: s.length.n * (lcd / s.length.d), index: i }));
  order.sort((a, b) => b.num - a.num); // stable: biggest segments first
  const offsets = sequence.map(() => []);
  const prev = sequence.map(() => 0);
  const chosen = order.map(() => 0);
  for (let i = 0; i < lcd; i++) {
    for (let k = 0; k < order.length; k++) {
      const num = chosen[k] * lcd;
      const den = order[k].num;
      if (i > Math.floor(num / den) || (i === Math.floor(num / den) && num % den === 0)) {
        chosen[k]++;
        const idx = order[k].index;
        offsets[idx].push(i - prev[idx]);
        prev[idx] = i;
        if (offsets[idx].length === den) offsets[idx].push(offsets[idx][0] + lcd - i);
        break;
      }
    }
  }
  return { lcd, offsets };
}

/**
 * This instance's segment within its sequence (k6's ExecutionTuple). Without a segment: the
 * whole test, and every value scales to itself.
 */
export class ExecutionTuple {
  constructor(segmentText, sequenceText) {
    this.segment = segmentText ? parseSegment(segmentText) : null;
    let seq = sequenceText ? parseSequence(sequenceText) : this.segment && this.segment.length.n !== this.segment.length.d ? [this.segment] : [segment(rat(0), rat(1))];
    if (cmp(seq[0].from, rat(0)) !== 0) seq = [segment(rat(0), seq[0].from), ...seq];
    if (cmp(seq.at(-1).to, rat(1)) !== 0) seq = [...seq, segment(seq.at(-1).to, rat(1))];
    this.sequence = seq;
    this.index = this.segment ? seq.findIndex((s) => sameSegment(s, this.segment)) : 0;
    if (this.index < 0) throw new Error(`provided segment ${segmentString(this.segment)} can't be found in sequence ${this.sequenceString()}`);
    const { lcd, offsets } = stripe(seq);
    this.lcd = lcd;
    this.offsets = offsets;
  }

  /** k6's consolidated `executionSegment` (reduced fractions, `1/4:1/2`), or null. */
  segmentString() {
    return this.segment ? segmentString(this.segment) : null;
  }

  sequenceString() {
    return [ratString(this.sequence[0].from), ...this.sequence.map((s) => ratString(s.to))].join(',');
  }

  /** This instance's share of a whole number (VUs, iterations), as ExecutionTuple.ScaleInt64. */
  scale(value) {
    if (this.sequence.length === 1) return value;
    return scaleIn(this.lcd, this.offsets[this.index], value);
  }

  /** The first striped position of this segment and the gaps after it (GetStripedOffsets). */
  striped() {
    const o = this.offsets[this.index];
    return { start: o[0], gaps: o.slice(1), lcd: this.lcd };
  }

  /** The tuple re-segmented by how `value` splits between the segments (GetNewExecutionTupleFromValue). */
  fromValue(value) {
    if (value < 1) return null;
    if (value % this.lcd === 0) return this;
    const seq = [];
    let prev = 0;
    let index = -1;
    this.sequence.forEach((_, i) => {
      const n = scaleIn(this.lcd, this.offsets[i], value);
      if (n === 0) return;
      if (i === this.index) index = seq.length;
      seq.push(segment(rat(prev, value), rat(prev + n, value)));
      prev += n;
    });
    if (index < 0) return null;
    const t = Object.create(ExecutionTuple.prototype);
    Object.assign(t, { segment: seq[index], sequence: seq, index }, stripe(seq));
    return t;
  }
}

function scaleIn(lcd, own, value) {
  const [start, ...gaps] = own;
  let result = Math.floor(value / lcd) * gaps.length;
  for (let g = 0, i = start; i < value % lcd; i += gaps[g], g++) result++;
  return result;
}

/** A striped iterator over a tuple (k6's SegmentedIndex): next() gives [scaled, unscaled], both from 1. */
export class SegmentedIndex {
  constructor(tuple) {
    const { start, gaps } = tuple.striped();
    this.start = start;
    this.gaps = gaps;
    this.scaled = 0;
    this.unscaled = 0;
  }
  next() {
    this.unscaled += this.scaled === 0 ? this.start + 1 : this.gaps[(this.scaled - 1) % this.gaps.length];
    this.scaled++;
    return [this.scaled, this.unscaled];
  }
}
