/**
 * A scenario's name as the page says it: the Scenario select, the walkthrough's scene line, the
 * stage and the talk's chapter cards all name the run on screen with these words, one list.
 */
import type { ScenarioName } from '../../../engine/runs/index.ts';
import { WINDOW_LAST_DAY_ISO, WINDOW_START_ISO } from '../../../engine/incident/timeline.ts';
import { formatUtcDayRange, type Lang } from '../../i18n/format.ts';
import type { MessageKey, Translate } from '../../i18n/messages.ts';

const SCENARIO_LABEL = { incident: 'scenarioIncident', demo: 'scenarioDemo', matrix: 'scenarioMatrix', microscope: 'scenarioMicroscope' } as const satisfies Record<ScenarioName, MessageKey>;

export function scenarioName(name: ScenarioName, t: Translate, lang: Lang): string {
  return t(SCENARIO_LABEL[name], { range: formatUtcDayRange(WINDOW_START_ISO.slice(0, 10), WINDOW_LAST_DAY_ISO, lang) });
}
