/** Every evaluation of `npm run eval`, in report order. Each analysis adds its module here. */
import type { EvalModule } from './lib/report.js';
import { segmentsEval } from './segments/index.js';
import { stepScoresEval } from './step-scores/index.js';
import { worldStateEval } from './world-state/index.js';

export const modules: EvalModule[] = [segmentsEval, stepScoresEval, worldStateEval];
