import { runPipeline, type PipelineTask } from '../pipeline.js';

/** Piscina entry point: the request pipeline for large bodies, off the event loop. */
export default function pipelineWorker(task: PipelineTask) {
  return runPipeline(task);
}
