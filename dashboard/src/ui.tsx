// Shared building blocks: number formats, loading / error / empty states, KPI cards, charts,
// pagination and the copy-paste ingest commands of empty states.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Loaded } from './api';

export const fmtInt = (n: number | null | undefined) => (n === null || n === undefined ? '—' : n.toLocaleString('en-US'));
export const fmtPct = (n: number | null | undefined) => (n === null || n === undefined ? '—' : `${n.toLocaleString('en-US', { maximumFractionDigits: 1 })}%`);
export const fmtScore = (n: number | null | undefined) => (n === null || n === undefined ? '—' : n.toFixed(2));
export function fmtTime(s: string | null | undefined): string {
  if (!s) return '—';
  const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(' ', 'T')}Z`);
  if (Number.isNaN(d.getTime())) return s;
  return d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}
export function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

export function Loading({ what }: { what?: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      Loading{what ? ` ${what}` : ''}…
    </p>
  );
}

export function ErrorBox({ error, retry }: { error: Error; retry?: () => void }) {
  const status = (error as { status?: number }).status;
  return (
    <div class="error-box" role="alert">
      <strong>{status ? `The server answered ${status}` : 'Request failed'}:</strong> {error.message}
      {retry && (
        <button type="button" class="link" onClick={retry}>
          Retry
        </button>
      )}
    </div>
  );
}

/** Renders `render(data)` once loaded, with the loading and error states around it. */
export function Async<T>({ state, what, children }: { state: Loaded<T>; what?: string; children: (data: T) => ComponentChildren }) {
  if (state.error) return <ErrorBox error={state.error} retry={state.reload} />;
  if (state.data === undefined) return <Loading what={what} />;
  return <>{children(state.data)}</>;
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty" data-empty>
      <p class="empty-title">{title}</p>
      {children}
    </div>
  );
}

export function Kpi({ label, value, sub, id, trend }: { label: string; value: string; sub?: ComponentChildren; id: string; trend?: number }) {
  return (
    <div class="kpi" data-kpi={id}>
      <div class="kpi-label">{label}</div>
      <div class="kpi-value" data-value>
        {value}
      </div>
      {trend !== undefined && (
        <div class={`kpi-trend ${trend > 0 ? 'up' : trend < 0 ? 'down' : ''}`} data-trend>
          {trend > 0 ? '▲' : trend < 0 ? '▼' : '●'} {fmtPct(Math.abs(trend))} vs previous period
        </div>
      )}
      {sub && <div class="kpi-sub">{sub}</div>}
    </div>
  );
}

export interface Series {
  name: string;
  cls: string;
  values: number[];
}

/** A small SVG line chart of daily series (one x label per day), with a legend and a table fallback. */
export function TimeChart({ days, series, title }: { days: string[]; series: Series[]; title: string }) {
  const W = 640;
  const H = 180;
  const P = { l: 36, r: 8, t: 10, b: 24 };
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const x = (i: number) => P.l + (days.length <= 1 ? (W - P.l - P.r) / 2 : (i * (W - P.l - P.r)) / (days.length - 1));
  const y = (v: number) => H - P.b - (v / max) * (H - P.t - P.b);
  const step = Math.max(1, Math.ceil(days.length / 8));
  return (
    <figure class="chart" data-chart={title}>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={title} preserveAspectRatio="none">
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line class="grid" x1={P.l} x2={W - P.r} y1={y(max * f)} y2={y(max * f)} />
            <text class="axis" x={P.l - 4} y={y(max * f) + 4} text-anchor="end">
              {Math.round(max * f)}
            </text>
          </g>
        ))}
        {days.map((d, i) =>
          i % step === 0 || i === days.length - 1 ? (
            <text key={d} class="axis" x={x(i)} y={H - 6} text-anchor="middle">
              {d.slice(5)}
            </text>
          ) : null,
        )}
        {series.map((s) => (
          <g key={s.name} class={`series ${s.cls}`}>
            <polyline fill="none" points={s.values.map((v, i) => `${x(i)},${y(v)}`).join(' ')} />
            {s.values.map((v, i) => (
              <circle key={i} cx={x(i)} cy={y(v)} r={2.5}>
                <title>{`${days[i]}: ${v} ${s.name}`}</title>
              </circle>
            ))}
          </g>
        ))}
      </svg>
      <figcaption class="legend">
        {series.map((s) => (
          <span key={s.name} class={`swatch ${s.cls}`} data-series={s.name} data-total={s.values.reduce((a, b) => a + b, 0)}>
            {s.name} ({fmtInt(s.values.reduce((a, b) => a + b, 0))})
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** A horizontal bar proportional to `value / max`. */
export function Bar({ value, max, label }: { value: number; max: number; label?: string }) {
  const w = max > 0 ? Math.max(2, Math.round((value / max) * 100)) : 0;
  return (
    <span class="bar" title={label ?? String(value)}>
      <span class="bar-fill" style={{ width: `${w}%` }} />
    </span>
  );
}

export function Pager({ pagination, onPage }: { pagination: { limit: number; offset: number; total: number; has_more: boolean }; onPage: (offset: number) => void }) {
  const { limit, offset, total, has_more } = pagination;
  const from = total === 0 ? 0 : offset + 1;
  const to = Math.min(offset + limit, total);
  return (
    <nav class="pager" aria-label="Pagination">
      <button type="button" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - limit))}>
        ← Previous
      </button>
      <span data-range>
        {fmtInt(from)}–{fmtInt(to)} of <span data-total>{fmtInt(total)}</span>
      </span>
      <button type="button" disabled={!has_more} onClick={() => onPage(offset + limit)}>
        Next →
      </button>
    </nav>
  );
}

export function ingestOrigin(): string {
  const port = document.querySelector('meta[name="tracehouse-ingest-port"]')?.getAttribute('content');
  return `${location.protocol}//${location.hostname}${port && /^\d+$/.test(port) ? `:${port}` : ''}`;
}

/** Copy-paste commands that send a first conversation to this installation. */
export function IngestHelp() {
  const cmd = `curl -s -X POST ${ingestOrigin()}/v1/ingest \\
  -H "Authorization: Bearer $TRACEHOUSE_KEY" -H 'content-type: application/json' \\
  -d '{"events":[{"conversation_id":"demo-1","role":"user","message":"I need a refund for order 1234"},
  {"conversation_id":"demo-1","role":"assistant","message":"Let me look up order 1234."}]}'`;
  return (
    <div class="ingest-help">
      <p>Send conversations to the ingest endpoint with your key; they show here within seconds:</p>
      <CopyBlock text={cmd} />
      <p class="muted">
        OpenTelemetry exporters can point at <code>{ingestOrigin()}/v1/traces</code> and <code>/v1/logs</code>. The{' '}
        <a href="/api">API reference</a> lists every endpoint: the data API and the fix routes.
      </p>
    </div>
  );
}

export function CopyBlock({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="copy-block">
      <pre>
        <code>{text}</code>
      </pre>
      <button
        type="button"
        class="copy"
        onClick={() => {
          void navigator.clipboard?.writeText(text).then(() => setCopied(true), () => setCopied(false));
        }}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

export function Select<T extends string>({ label, value, options, onChange, name }: { label: string; value: T; options: readonly T[] | readonly { value: T; label: string }[]; onChange: (v: T) => void; name: string }) {
  return (
    <label class="field">
      <span>{label}</span>
      <select name={name} value={value} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value as T)}>
        {options.map((o) => {
          const v = typeof o === 'string' ? o : o.value;
          return (
            <option key={v} value={v}>
              {typeof o === 'string' ? o : o.label}
            </option>
          );
        })}
      </select>
    </label>
  );
}

export const TIME_RANGES = ['all', '1h', '24h', '3d', '7d', '30d', '90d'] as const;
export const ENVIRONMENTS = ['all', 'development', 'staging', 'production'] as const;
export const DAYS_BACK = ['1', '7', '14', '30', '90'] as const;
