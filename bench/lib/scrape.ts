/**
 * A role's `/metrics` (Prometheus text) read once, for the bench's diagnostics: each series of a
 * metric by its labels. Names are given without the `tracehouse_` prefix.
 */
export interface Scrape {
  /** The series of `name` whose labels include `labels` (all of them when none are given). */
  series(name: string, labels?: Record<string, string>): Array<{ labels: Record<string, string>; value: number }>;
  /** The one series of `name` with these labels (NaN when there is none): the first that matches. */
  value(name: string, labels?: Record<string, string>): number;
}

const LINE = /^tracehouse_(\w+)(?:\{([^}]*)\})? (\S+)$/gm;
const LABEL = /(\w+)="([^"]*)"/g;

export async function scrape(baseUrl: string): Promise<Scrape> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const all: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  for (const m of text.matchAll(LINE)) {
    all.push({ name: m[1]!, labels: Object.fromEntries([...(m[2] ?? '').matchAll(LABEL)].map((l) => [l[1]!, l[2]!])), value: Number(m[3]) });
  }
  const series = (name: string, labels: Record<string, string> = {}) =>
    all.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).map(({ labels: l, value }) => ({ labels: l, value }));
  return { series, value: (name, labels) => series(name, labels)[0]?.value ?? NaN };
}
