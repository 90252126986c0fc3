import { useT } from '../i18n/i18n.ts';
import { useApp } from '../state/store.ts';
import { scenarioName } from '../views/shared/scenarioName.ts';
import { CHAPTERS } from '../walkthrough/chapters/index.ts';
import { scenarioOf } from '../walkthrough/chapters/chapter.ts';

/**
 * Which run the chapter shows (the demo, the incident window): said on every chapter, and as a new
 * scene where it is not the chapter before's, so that a change of numbers and pages is never silent.
 * The walkthrough panel and the talk's chapter cards say it alike.
 */
export function SceneLine({ chapter, className, testId }: { chapter: number; className: string; testId: string }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const scenario = scenarioOf(CHAPTERS[chapter - 1]!);
  const changed = chapter > 1 && scenarioOf(CHAPTERS[chapter - 2]!) !== scenario;
  return (
    <p className={`${className}${changed ? ` ${className}-new` : ''}`} data-testid={testId} data-scenario={scenario} data-new={changed ? 'true' : 'false'}>
      {t(changed ? 'sceneNew' : 'sceneOnScreen', { run: scenarioName(scenario, t, lang) })}
    </p>
  );
}
