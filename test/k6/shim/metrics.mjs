/** Shim of `k6/metrics`: custom metrics whose samples go to the runner (--out json, thresholds, summary). */
import { rt, emitSample, checkAlive } from './state.mjs';

const defined = new Map();

class Metric {
  constructor(name, isTime = false, type = 'trend') {
    if (rt.stage !== 'init') throw new Error('metrics must be declared in the init context');
    if (defined.has(name) && defined.get(name) !== type) throw new Error(`metric ${name} redefined with another type`);
    defined.set(name, type);
    this.name = name;
    this.type = type;
    this.contains = isTime ? 'time' : 'default';
  }
  add(value, tags) {
    checkAlive();
    if (rt.stage === 'init') throw new Error('Adding to metrics in the init context is not supported');
    const v = typeof value === 'boolean' ? (value ? 1 : 0) : Number(value);
    emitSample(this.name, this.type, this.contains, v, tags, { custom: true });
  }
}
export class Trend extends Metric {
  constructor(name, isTime) {
    super(name, Boolean(isTime), 'trend');
  }
}
export class Rate extends Metric {
  constructor(name) {
    super(name, false, 'rate');
  }
}
export class Counter extends Metric {
  constructor(name) {
    super(name, false, 'counter');
  }
}
export class Gauge extends Metric {
  constructor(name, isTime) {
    super(name, Boolean(isTime), 'gauge');
  }
}
export default { Trend, Rate, Counter, Gauge };
