/** Shim of `k6/metrics`: records samples per metric name. */
import { state, emitSample } from './state.mjs';

class Metric {
  constructor(name, isTime = false, type = 'trend') {
    if (state.metrics[name] && state.metrics[name].type !== type) throw new Error(`metric ${name} redefined with another type`);
    this.name = name;
    state.metrics[name] = state.metrics[name] || { type, isTime, values: [] };
  }
  add(value, tags) {
    const v = typeof value === 'boolean' ? (value ? 1 : 0) : value;
    state.metrics[this.name].values.push(v);
    const m = state.metrics[this.name];
    emitSample(this.name, m.type, m.isTime ? 'time' : 'default', v, tags);
  }
}
export class Trend extends Metric {
  constructor(name, isTime) {
    super(name, isTime, 'trend');
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
  constructor(name) {
    super(name, false, 'gauge');
  }
}
export default { Trend, Rate, Counter, Gauge };
