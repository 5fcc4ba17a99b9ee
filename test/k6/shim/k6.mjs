/** Shim of the `k6` module: check, sleep, group, fail, randomSeed. */
import { state, syncSleep, emitSample } from './state.mjs';

export function check(val, sets, tags) {
  let all = true;
  for (const [name, fn] of Object.entries(sets)) {
    const ok = typeof fn === 'function' ? Boolean(fn(val)) : Boolean(fn);
    const c = state.checks[name] || (state.checks[name] = { passes: 0, fails: 0 });
    if (ok) c.passes++;
    else c.fails++;
    all = all && ok;
    emitSample('checks', 'rate', 'default', ok ? 1 : 0, { ...(tags || {}), check: name });
  }
  return all;
}
export function sleep(seconds) {
  syncSleep(seconds);
}
export function group(name, fn) {
  return fn();
}
export function fail(message) {
  throw new Error(message ?? 'fail()');
}
export function randomSeed() {}
export default { check, sleep, group, fail, randomSeed };
