/**
 * Step 5 of `paystorm run`: the oracle's verdict on the history. The same judgement for the
 * final report and for a soak's mid-run snapshots; only `interrupted` differs.
 */
import type { Summary } from '../../spec/index.ts';
import type { HistoryRecord } from '../../history/index.ts';
import { check } from '../../oracle/index.ts';
import { scenarioByName } from '../../../scenarios/index.ts';
import type { JudgeSettings } from './settings.ts';

export async function judgeRun(history: Iterable<HistoryRecord> | AsyncIterable<HistoryRecord>, judging: JudgeSettings, interrupted: boolean): Promise<Summary> {
  const { summary } = await check(history, {
    ...judging,
    // Histories whose run record names scenarios without their thresholds: take them from the code.
    scenarioThresholds: (name) => scenarioByName(name)?.thresholds ?? [],
    interrupted,
  });
  return summary;
}
