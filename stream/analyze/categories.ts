/**
 * The failure-category registries of the tenants being analyzed, cached on the main thread: read
 * from `tool_failure_categories` when a tenant is first seen or its copy is older than `ttlMs` (so
 * categories another replica issued arrive within that time), and extended with what this replica
 * issues. Category ids are derived from the tenant and the template, so two replicas issuing the
 * same category write the same row.
 */
import { namedQuery, type Store } from '../../core/clickhouse.js';
import type { RegisteredCategory } from '../analyses/tool-failure-categories.js';
import { CATEGORIES_VERSION } from '../analyses/tool-failure-categories.js';

export interface CategoryCache {
  /** Known categories of each tenant (loaded in one read for the tenants not cached). */
  known(tenants: readonly string[]): Promise<Record<string, RegisteredCategory[]>>;
  /** Rows to persist for newly issued categories. */
  rows(created: Record<string, RegisteredCategory[]>): Record<string, unknown>[];
  /** Adds persisted categories to the cache. */
  add(created: Record<string, RegisteredCategory[]>): void;
}

export function createCategoryCache(store: Store, ttlMs = 30_000, now = () => Date.now()): CategoryCache {
  const cache = new Map<string, { loadedAt: number; categories: Map<string, RegisteredCategory> }>();
  return {
    async known(tenants) {
      const stale = [...new Set(tenants)].filter((t) => (cache.get(t)?.loadedAt ?? -Infinity) + ttlMs < now());
      if (stale.length) {
        const rows = await store.query<RegisteredCategory & { tenant_id: string }>(namedQuery('stream-analysis-categories'), { tenants: stale });
        const at = now();
        for (const t of stale) cache.set(t, { loadedAt: at, categories: new Map() });
        for (const { tenant_id, ...c } of rows) cache.get(tenant_id)!.categories.set(c.id, c as RegisteredCategory);
      }
      return Object.fromEntries(tenants.map((t) => [t, [...(cache.get(t)?.categories.values() ?? [])]]));
    },
    rows(created) {
      return Object.entries(created).flatMap(([tenant, list]) =>
        list.map((c) => ({
          tenant_id: tenant,
          category_id: c.id,
          analyzer_version: CATEGORIES_VERSION,
          template: c.template,
          label: c.label,
          family: c.family,
          likely_cause: c.likely_cause,
          action_hint: c.action_hint,
          tool_hint: c.tool_hint ?? '',
        })),
      );
    },
    add(created) {
      for (const [tenant, list] of Object.entries(created)) {
        const entry = cache.get(tenant);
        if (entry) for (const c of list) entry.categories.set(c.id, c);
      }
    },
  };
}
