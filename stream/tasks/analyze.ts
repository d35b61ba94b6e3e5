/** Piscina task: the rows of an analysis batch as loaded in, every analyzer's rows out. Pure. */
import { runAnalysisWork, type WorkInput, type WorkOutput } from '../analyze/work.js';

export default function analyze(input: WorkInput): WorkOutput {
  return runAnalysisWork(input);
}
