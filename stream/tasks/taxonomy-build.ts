/**
 * Piscina task of a taxonomy build: the segments (and the previous run's tree) in, the build out.
 * A build of 100k segments is a minute of CPU; on its own thread the stream role's main thread
 * keeps acking, inserting and renewing the job's lease. Pure.
 */
import { buildTaxonomy, type TaxonomyBuild, type TaxonomySegment } from '../analyses/taxonomy/build.js';
import { movedResult } from './moved.js';

export interface BuildRequest {
  segments: TaxonomySegment[];
  previous?: { leafOf: Array<[string, string]>; categoryOf: Array<[string, string]> };
}

export default function build(req: BuildRequest): TaxonomyBuild {
  const previous = req.previous && { leafOf: new Map(req.previous.leafOf), categoryOf: new Map(req.previous.categoryOf) };
  const b = buildTaxonomy(req.segments, previous);
  // the large arrays move to the main thread instead of being copied
  return movedResult(b, [b.vectors.buffer as ArrayBuffer, b.model.components.buffer as ArrayBuffer]);
}
