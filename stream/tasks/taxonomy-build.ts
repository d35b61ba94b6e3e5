/**
 * Worker thread of a taxonomy build: the segments (and the previous run's tree) in, the build out.
 * A build of 100k segments is a minute of CPU; on its own thread the stream role's main thread
 * keeps acking, inserting and renewing the job's lease. Pure apart from the message passing.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { buildTaxonomy, type TaxonomySegment } from '../analyses/taxonomy/build.js';

export interface BuildRequest {
  segments: TaxonomySegment[];
  previous?: { leafOf: Array<[string, string]>; categoryOf: Array<[string, string]> };
}

if (parentPort) {
  const req = workerData as BuildRequest;
  const previous = req.previous && { leafOf: new Map(req.previous.leafOf), categoryOf: new Map(req.previous.categoryOf) };
  const b = buildTaxonomy(req.segments, previous);
  // the large arrays move to the main thread instead of being copied
  parentPort.postMessage(b, [b.vectors.buffer as ArrayBuffer, b.model.components.buffer as ArrayBuffer]);
}
