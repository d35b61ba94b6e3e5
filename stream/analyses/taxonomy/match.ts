/**
 * Stable node ids across rebuilds: a new node takes the id of the previous run's node it mostly
 * continues. Vectors of two runs live in different LSA spaces, so nodes are matched by their
 * members (segment ids), not by centroids: new node N takes old node O's id when most of O's
 * surviving members are in N and most of N's previously assigned members came from O (both > ½),
 * pairs taken greedily by shared members, one to one. Any other node gets a fresh id derived from
 * its members, so a rebuild of the same data gives the same ids.
 */
import { createHash } from 'node:crypto';

export interface PreviousNodes {
  /** Segment → node id in the previous run, for one level of the tree. */
  nodeOf: ReadonlyMap<string, string>;
}

/** A new id from the level and the sorted members. */
export function freshNodeId(prefix: string, members: readonly string[]): string {
  const h = createHash('sha1').update(prefix);
  for (const m of [...members].sort()) h.update('\u0000').update(m);
  return `${prefix}_${h.digest('hex').slice(0, 12)}`;
}

/** Ids for new groups of segments (same order as `groups`). */
export function matchNodeIds(groups: ReadonlyArray<readonly string[]>, previous: PreviousNodes | undefined, prefix: string): string[] {
  const ids: Array<string | undefined> = groups.map(() => undefined);
  if (previous && previous.nodeOf.size) {
    const present = new Set(groups.flat());
    // surviving members of every old node
    const oldSize = new Map<string, number>();
    for (const [seg, node] of previous.nodeOf) if (present.has(seg)) oldSize.set(node, (oldSize.get(node) ?? 0) + 1);
    const pairs: Array<{ g: number; old: string; shared: number; known: number }> = [];
    groups.forEach((members, g) => {
      const shared = new Map<string, number>();
      let known = 0;
      for (const seg of members) {
        const old = previous.nodeOf.get(seg);
        if (!old) continue;
        known++;
        shared.set(old, (shared.get(old) ?? 0) + 1);
      }
      for (const [old, n] of shared) pairs.push({ g, old, shared: n, known });
    });
    pairs.sort((a, b) => b.shared - a.shared || a.g - b.g || (a.old < b.old ? -1 : 1));
    const taken = new Set<string>();
    for (const p of pairs) {
      if (ids[p.g] || taken.has(p.old)) continue;
      if (p.shared * 2 > oldSize.get(p.old)! && p.shared * 2 > p.known) {
        ids[p.g] = p.old;
        taken.add(p.old);
      }
    }
  }
  const used = new Set(ids.filter(Boolean));
  return groups.map((members, g) => {
    if (ids[g]) return ids[g]!;
    let id = freshNodeId(prefix, members);
    // a fresh id equal to a kept one (same members, different level history) gets a suffix
    for (let n = 2; used.has(id); n++) id = `${freshNodeId(prefix, members)}_${n}`;
    used.add(id);
    return id;
  });
}
