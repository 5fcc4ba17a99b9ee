/** Shim of the `k6` module: check, sleep, group, fail, randomSeed (per runtime, as in k6). */
import { rt, syncSleep, emitSample, timestamp, checkAlive, systemTagOn } from './state.mjs';

export function check(val, sets, tags) {
  checkAlive();
  let all = true;
  for (const [name, fn] of Object.entries(sets)) {
    const ok = typeof fn === 'function' ? Boolean(fn(val)) : Boolean(fn);
    all = all && ok;
    emitSample('checks', 'rate', 'default', ok ? 1 : 0, { ...(tags || {}), ...(systemTagOn('check') ? { check: name } : {}) });
  }
  return all;
}
export function sleep(seconds) {
  syncSleep(seconds);
}
/** Runs `fn` with the group tag `::name` (nested: `::a::b`) and emits group_duration, as k6. */
export function group(name, fn) {
  checkAlive();
  if (rt.stage === 'init') throw new Error('group() is not supported in the init context');
  const parent = rt.groupPath;
  rt.groupPath = `${parent}::${name}`;
  const started = performance.now();
  try {
    return fn();
  } finally {
    const ms = performance.now() - started;
    emitSample('group_duration', 'trend', 'time', ms, {}, { time: timestamp() });
    rt.groupPath = parent;
  }
}
export function fail(message) {
  throw new Error(message ?? 'fail()');
}
/** k6's randomSeed: Math.random of this runtime becomes a seeded generator. */
export function randomSeed(seed) {
  Math.random = seededRandom(Number(seed));
}
/** A small seeded generator of floats in [0, 1) (mulberry32). */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
export default { check, sleep, group, fail, randomSeed };
