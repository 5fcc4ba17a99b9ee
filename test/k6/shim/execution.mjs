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
  instance: {
    get iterationsInterrupted() {
      return state.instance.iterationsInterrupted;
    },
    get iterationsCompleted() {
      return state.instance.iterationsCompleted;
    },
    vusActive: 1,
    vusInitialized: 1,
    /** ms since the test run started (before setup, as k6 counts), plus the simulated scenario time. */
    get currentTestRunDuration() {
      return state.instance.startedAt ? Date.now() - state.instance.startedAt + state.instance.advancedMs : 0;
    },
  },
  test: {
    abort(message) {
      throw new TestAborted(message ?? 'test aborted');
    },
    fail(message) {
      state.logs.push({ level: 'error', text: `test.fail: ${message ?? ''}` });
    },
    get options() {
      return state.testOptions;
    },
  },
};
export const scenario = state.scenario;
export const vu = exec.vu;
export const test = exec.test;
export const instance = exec.instance;
export default exec;
