/** Every evaluation of `npm run eval`, in report order. Each analysis adds its module here. */
import type { EvalModule } from './lib/report.js';
import { segmentsEval } from './segments/index.js';
import { summaryEval } from './summary/index.js';
import { lazinessEval } from './laziness/index.js';
import { hallucinationsEval } from './hallucinations/index.js';

export const modules: EvalModule[] = [segmentsEval, summaryEval, lazinessEval, hallucinationsEval];
