/**
 * Shim of `k6/execution`, answering where k6 v1.3 answers and throwing where it throws
 * (../../shared/samples/k6/README.md): `instance` only in setup() and default() (teardown() and
 * handleSummary() run without the execution state: "getting instance information in the init
 * context is not supported"); `scenario` only in default(); `vu` outside the init context;
 * `test.options` everywhere (the consolidated options). Errors are GoErrors, as k6 throws them.
 */
import { rt, counters, post, flush, checkAlive, Interrupted } from './state.mjs';

function goError(message) {
  const e = new Error(message);
  e.name = 'GoError';
  return e;
}

const NO_INSTANCE = 'getting instance information in the init context is not supported';
const NO_SCENARIO = 'getting scenario information outside of the VU context is not supported';
const NO_VU = 'getting VU information in the init context is not supported';

function instanceInfo() {
  if (rt.stage !== 'setup' && rt.stage !== 'default') throw goError(NO_INSTANCE);
  return Object.freeze({
    get currentTestRunDuration() {
      return performance.timeOrigin + performance.now() - rt.startedAt;
    },
    get iterationsCompleted() {
      return Atomics.load(counters, 0);
    },
    get iterationsInterrupted() {
      return Atomics.load(counters, 1);
    },
    get vusActive() {
      return Atomics.load(counters, 2);
    },
    get vusInitialized() {
      return Atomics.load(counters, 3);
    },
  });
}

function scenarioInfo() {
  if (rt.stage === 'init') throw goError(NO_SCENARIO);
  const sc = () => {
    if (rt.stage !== 'default' || !rt.scenario) throw goError(NO_SCENARIO);
    return rt.scenario;
  };
  return Object.freeze({
    get name() {
      return sc().name;
    },
    get executor() {
      return sc().executor;
    },
    get startTime() {
      return sc().startTime;
    },
    get progress() {
      const s = sc();
      return s.durationMs > 0 ? Math.min(1, (Date.now() - s.startTime) / s.durationMs) : s.progress;
    },
    get iterationInInstance() {
      return sc().iterationInInstance;
    },
    get iterationInTest() {
      return sc().iterationInTest;
    },
  });
}

const tagsProxy = new Proxy(rt.vuTags, {
  set(target, key, value) {
    if (!['string', 'number', 'boolean'].includes(typeof value)) {
      post({ type: 'log', level: 'warn', text: `the execution.vu.tags.Set('${String(key)}') operation has been discarded because only String, Boolean and Number types are accepted as a Tag value` });
      return true;
    }
    target[key] = String(value);
    return true;
  },
});

function vuInfo() {
  if (rt.stage === 'init') throw goError(NO_VU);
  return {
    idInInstance: rt.vuIdInInstance,
    idInTest: rt.vuIdInTest,
    iterationInInstance: rt.stage === 'default' ? rt.iteration : 0,
    iterationInScenario: rt.stage === 'default' ? rt.iterationInScenario : 0,
    tags: tagsProxy,
    metrics: { tags: tagsProxy, metadata: rt.vuMetadata },
  };
}

const test = Object.freeze({
  /** Stops the whole test (k6 exit 108); teardown() and handleSummary() still run. */
  abort(message) {
    const reason = message === undefined ? 'test aborted' : `test aborted: ${message}`;
    rt.aborted = reason;
    flush();
    post({ type: 'abort', reason });
    throw new Interrupted(reason);
  },
  /** Marks the test failed (k6 exit 110) and goes on. */
  fail(message) {
    checkAlive();
    post({ type: 'fail', reason: message === undefined ? 'test marked as failed' : String(message) });
  },
  get options() {
    return rt.testOptions;
  },
});

const exec = Object.defineProperties(
  {},
  {
    instance: { get: instanceInfo, enumerable: true },
    scenario: { get: scenarioInfo, enumerable: true },
    vu: { get: vuInfo, enumerable: true },
    test: { get: () => test, enumerable: true },
  },
);

export default exec;
/** Named imports (`import { scenario } from 'k6/execution'`) read through to the same accessors at use. */
const lazy = (name) => new Proxy({}, { get: (_, key) => exec[name][key], has: (_, key) => key in exec[name] });
export const instance = lazy('instance');
export const scenario = lazy('scenario');
export const vu = lazy('vu');
export { test };
