/** Every evaluation of `npm run eval`, in report order. Each analysis adds its module here. */
import type { EvalModule } from './lib/report.js';
import { analyzeCliEval } from './analyze-cli/index.js';
import { emotionsEval } from './emotions/index.js';
import { hallucinationsEval } from './hallucinations/index.js';
import { lazinessEval } from './laziness/index.js';
import { segmentsEval } from './segments/index.js';
import { stepScoresEval } from './step-scores/index.js';
import { summaryEval } from './summary/index.js';
import { toolFailuresEval } from './tool-failures/index.js';
import { worldStateEval } from './world-state/index.js';
import { taxonomyEval } from './taxonomy/index.js';
import { searchEval } from './search/index.js';
import { problemsEval } from './problems/index.js';

export const modules: EvalModule[] = [segmentsEval, summaryEval, emotionsEval, toolFailuresEval, lazinessEval, hallucinationsEval, taxonomyEval, searchEval, analyzeCliEval, stepScoresEval, worldStateEval, problemsEval];
