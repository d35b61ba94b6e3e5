/**
 * A small Prometheus registry: counters, gauges and histograms with labels, rendered in the text
 * exposition format. Collectors registered with `onCollect` refresh gauges just before a scrape.
 */
type Labels = Record<string, string | number>;

interface Series {
  labels: Labels;
  value: number;
  buckets?: number[];
  sum?: number;
  count?: number;
}

interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  bucketBounds?: number[];
  series: Map<string, Series>;
}

export interface Counter {
  inc(labels?: Labels, by?: number): void;
}
export interface Gauge {
  set(labels: Labels, value: number): void;
  set(value: number): void;
}
export interface Histogram {
  observe(labels: Labels, value: number): void;
}

export interface Metrics {
  counter(name: string, help: string): Counter;
  gauge(name: string, help: string): Gauge;
  histogram(name: string, help: string, buckets?: number[]): Histogram;
  onCollect(fn: () => void | Promise<void>): void;
  render(): Promise<string>;
  /** Current value of one series (tests and `tracehouse status`). */
  value(name: string, labels?: Labels): number;
  snapshot(): Record<string, Array<{ labels: Labels; value: number; sum?: number; count?: number }>>;
}

const DEFAULT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Label names of one call, sorted in place (a handful: insertion sort, no array per call). */
const names: string[] = [];

/**
 * The series key of a label set, whatever the order of its names: `name=value` pairs sorted by
 * name, comma-separated. Counters are bumped per event on the ingest path, so this allocates
 * nothing but the key (no `Object.keys`, sort copy, mapped array or join per call).
 */
export function keyOf(labels: Labels): string {
  let n = 0;
  for (const k in labels) {
    let i = n++;
    while (i > 0 && names[i - 1]! > k) {
      names[i] = names[i - 1]!;
      i--;
    }
    names[i] = k;
  }
  let key = '';
  for (let i = 0; i < n; i++) key += `${i ? ',' : ''}${names[i]}=${labels[names[i]!]}`;
  return key;
}

function escapeLabel(v: string | number): string {
  return String(v).replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function renderLabels(labels: Labels, extra?: [string, string]): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  if (extra) parts.push(`${extra[0]}="${extra[1]}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

export function createMetrics(prefix = 'tracehouse_'): Metrics {
  const families = new Map<string, Family>();
  const collectors: Array<() => void | Promise<void>> = [];

  const family = (name: string, help: string, type: Family['type'], bucketBounds?: number[]): Family => {
    const full = prefix + name;
    let f = families.get(full);
    if (!f) {
      f = { name: full, help, type, bucketBounds, series: new Map() };
      families.set(full, f);
    }
    return f;
  };
  const seriesOf = (f: Family, labels: Labels): Series => {
    const k = keyOf(labels);
    let s = f.series.get(k);
    if (!s) {
      s = { labels, value: 0 };
      if (f.type === 'histogram') {
        s.buckets = new Array(f.bucketBounds!.length).fill(0);
        s.sum = 0;
        s.count = 0;
      }
      f.series.set(k, s);
    }
    return s;
  };

  return {
    counter(name, help) {
      const f = family(name, help, 'counter');
      return { inc: (labels = {}, by = 1) => void (seriesOf(f, labels).value += by) };
    },
    gauge(name, help) {
      const f = family(name, help, 'gauge');
      return {
        set: (a: Labels | number, b?: number) => {
          if (typeof a === 'number') seriesOf(f, {}).value = a;
          else seriesOf(f, a).value = b ?? 0;
        },
      } as Gauge;
    },
    histogram(name, help, buckets = DEFAULT_BUCKETS) {
      const f = family(name, help, 'histogram', buckets);
      return {
        observe: (labels, value) => {
          const s = seriesOf(f, labels);
          s.sum! += value;
          s.count! += 1;
          const bounds = f.bucketBounds!;
          for (let i = 0; i < bounds.length; i++) if (value <= bounds[i]!) s.buckets![i]! += 1;
        },
      };
    },
    onCollect(fn) {
      collectors.push(fn);
    },
    async render() {
      for (const c of collectors) {
        try {
          await c();
        } catch {
          // a failing collector leaves its gauges at their last value; the scrape still answers
        }
      }
      const out: string[] = [];
      for (const f of families.values()) {
        out.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} ${f.type}`);
        for (const s of f.series.values()) {
          if (f.type === 'histogram') {
            f.bucketBounds!.forEach((b, i) => out.push(`${f.name}_bucket${renderLabels(s.labels, ['le', String(b)])} ${s.buckets![i]}`));
            out.push(`${f.name}_bucket${renderLabels(s.labels, ['le', '+Inf'])} ${s.count}`);
            out.push(`${f.name}_sum${renderLabels(s.labels)} ${s.sum}`);
            out.push(`${f.name}_count${renderLabels(s.labels)} ${s.count}`);
          } else {
            out.push(`${f.name}${renderLabels(s.labels)} ${s.value}`);
          }
        }
      }
      return out.join('\n') + '\n';
    },
    value(name, labels = {}) {
      const f = families.get(prefix + name);
      if (!f) return 0;
      const s = f.series.get(keyOf(labels));
      if (!s) return 0;
      return f.type === 'histogram' ? s.count! : s.value;
    },
    snapshot() {
      const out: ReturnType<Metrics['snapshot']> = {};
      for (const f of families.values()) {
        out[f.name] = [...f.series.values()].map((s) => ({ labels: s.labels, value: f.type === 'histogram' ? s.count! : s.value, sum: s.sum, count: s.count }));
      }
      return out;
    },
  };
}
