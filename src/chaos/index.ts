/** Chaos: fault schedules applied through Toxiproxy (the real one, or the embedded one in proxy/). */
export { openChaosSession } from './session.ts';
export type { ChaosSession, ChaosSessionOptions, SessionProxy, ProxyLink } from './session.ts';
export { ToxiproxyDriver, ToxiproxyApiError } from './driver.ts';
export type { ProxyState, ToxicState } from './driver.ts';
export { runWindows, sleepUntil, toxicName, TOXIC_PREFIX } from './schedule.ts';
export { installCleanupHooks } from './exit-hooks.ts';
export { groupSessions, type ChaosGroup } from './session-group.ts';
