/** Every evaluation of `npm run eval`, in report order. Each analysis adds its module here. */
import type { EvalModule } from './lib/report.js';
import { toolFailuresEval } from './tool-failures/index.js';

export const modules: EvalModule[] = [toolFailuresEval];
