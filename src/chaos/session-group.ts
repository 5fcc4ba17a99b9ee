/**
 * Several chaos sessions run as one: the embedded stack opens the upstream proxy
 * before the service starts (its address is the service's upstream URL) and the
 * client proxy after (it forwards to the service), so they are two sessions.
 * A schedule's steps go to the session that owns the step's proxy.
 */
import type { FaultStep } from '../spec/index.ts';
import type { FaultRecord } from '../history/index.ts';
import type { ChaosSession } from './session.ts';

export interface ChaosGroup {
  readonly sessions: readonly ChaosSession[];
  runSchedule(steps: readonly FaultStep[], signal?: AbortSignal): Promise<FaultRecord[]>;
  cleanup(): Promise<void>;
}

export function groupSessions(sessions: readonly ChaosSession[]): ChaosGroup {
  const owner = (proxy: string) => sessions.find((s) => s.proxies.has(proxy)) ?? sessions[0];
  return {
    sessions,
    async runSchedule(steps, signal) {
      const bySession = new Map<ChaosSession, FaultStep[]>();
      for (const step of steps) {
        const s = owner(step.proxy);
        if (!s) throw new Error(`fault step on proxy "${step.proxy}": no chaos session is open`);
        bySession.set(s, [...(bySession.get(s) ?? []), step]);
      }
      const results = await Promise.all([...bySession].map(([s, st]) => s.runSchedule(st, signal)));
      return results.flat();
    },
    async cleanup() {
      for (const s of [...sessions].reverse()) await s.cleanup();
    },
  };
}
