/** Shim of `k6/execution`: the scenario and VU counters the runner maintains. */
import { state } from './state.mjs';

export class TestAborted extends Error {}

const exec = {
  get scenario() {
    return state.scenario;
  },
  get vu() {
    return { ...state.vu, tags: state.vuMetrics.tags, metrics: state.vuMetrics };
  },
  instance: { iterationsInterrupted: 0, iterationsCompleted: 0, vusActive: 1, vusInitialized: 1, currentTestRunDuration: 0 },
  test: {
    abort(message) {
      throw new TestAborted(message ?? 'test aborted');
    },
    fail(message) {
      state.logs.push({ level: 'error', text: `test.fail: ${message ?? ''}` });
    },
    options: {},
  },
};
export const scenario = state.scenario;
export const vu = exec.vu;
export const test = exec.test;
export const instance = exec.instance;
export default exec;
