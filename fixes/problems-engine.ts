/**
 * Adapter from the problems engine to the fix pipeline's ProblemSource. Until the engine module
 * is present in this build, every call answers 503 (the fix routes need problems).
 */
import { UnavailableError } from '../core/errors.js';
import type { ProblemSource } from './problem-source.js';

export function createEngineProblemSource(): ProblemSource {
  const unavailable = async (): Promise<never> => {
    throw new UnavailableError('the problems engine is not available in this build', 60, { code: 'problems_unavailable' });
  };
  return { runOnce: unavailable, get: unavailable, listRanked: unavailable, trustedAttributions: unavailable, submitFeedback: unavailable };
}
