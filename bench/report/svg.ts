import type { BenchResult } from './summary.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

interface Bar {
  label: string;
  value: number | null;
  color: string;
}

function panel(title: string, unit: string, bars: Bar[], y0: number, width: number): { svg: string; height: number } {
  const rowH = 22;
  const labelW = 300;
  const plotW = width - labelW - 120;
  const max = Math.max(1e-9, ...bars.map((b) => b.value ?? 0));
  const parts = [`<text x="10" y="${y0 + 18}" font-size="15" font-weight="bold">${esc(title)}</text>`];
  bars.forEach((b, i) => {
    const y = y0 + 30 + i * rowH;
    parts.push(`<text x="${labelW - 8}" y="${y + 15}" font-size="12" text-anchor="end">${esc(b.label)}</text>`);
    if (b.value === null || !Number.isFinite(b.value)) {
      parts.push(`<text x="${labelW + 4}" y="${y + 15}" font-size="12" fill="#888">n/a</text>`);
      return;
    }
    const w = Math.max(1, (b.value / max) * plotW);
    parts.push(`<rect x="${labelW}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 6}" fill="${b.color}"/>`);
    parts.push(`<text x="${labelW + w + 6}" y="${y + 15}" font-size="12">${esc(Math.round(b.value).toLocaleString('en-US'))} ${esc(unit)}</text>`);
  });
  return { svg: parts.join('\n'), height: 40 + bars.length * rowH };
}

/** A hand-written SVG chart: throughput against ceilings, and data API p99 beside the bare query. */
export function renderSvg(r: BenchResult): string {
  const width = 900;
  const ceiling = '#9aa5b1';
  const ours = '#2f6fdf';
  const through: Bar[] = [
    { label: 'ceiling: ClickHouse bulk insert', value: r.ceilings.clickhouse_insert?.events_per_s ?? null, color: ceiling },
    { label: 'ceiling: JetStream publish', value: r.ceilings.jetstream?.publish_events_per_s ?? null, color: ceiling },
    { label: 'ceiling: JetStream consume', value: r.ceilings.jetstream?.consume_events_per_s ?? null, color: ceiling },
    { label: 'ceiling: bare HTTP parse (mean)', value: r.ceilings.http_parse_events_per_s ?? null, color: ceiling },
    { label: 'end to end, max sustained', value: r.summary.e2e_events_per_s, color: ours },
    ...r.edge.map((e) => ({ label: `ingest edge ${e.format}`, value: e.ingest?.events_per_s ?? null, color: ours })),
  ];
  const q: Bar[] = [];
  for (const e of r.query) {
    if (!e.api) continue;
    q.push({ label: `${e.name} (API)`, value: e.api.p99_ms, color: ours });
    if (e.bare) q.push({ label: `${e.name} (bare query)`, value: e.bare.p99_ms, color: ceiling });
  }
  const a = panel('Throughput, events/s (grey: ceilings measured in the same run)', 'ev/s', through, 40, width);
  const b = panel(`Data API p99 latency, ms (dataset ${(r.dataset?.events ?? 0).toLocaleString('en-US')} events)`, 'ms', q, 60 + a.height, width);
  const height = 80 + a.height + b.height;
  const title = `Tracehouse bench ${r.machine.commit} — ${r.machine.cpus} cpus, ${r.started_at}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="24" font-size="17" font-weight="bold">${esc(title)}</text>`,
    a.svg,
    b.svg,
    '</svg>',
  ].join('\n');
}
