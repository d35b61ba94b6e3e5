// Formatting shared by the problem list and the problem page: labels, status badges, message anchors
// and the explained-coverage meter.
import { enc, qs } from '../api';
import { fmtInt, fmtPct } from '../ui';
import type { Remainder } from './problem-types';

export const label = (s: string) => s.replace(/_/g, ' ');
export const statusBadge = (s: string) => <span class={`badge ${s === 'current' ? 'ok' : s === 'failed' ? 'bad' : 'warn'}`}>{label(s)}</span>;
export const anchorHref = (conversation: string, msg: number) => `/conversations/${enc(conversation)}${qs({ msg })}`;

export function RemainderMeter({ r }: { r: Remainder }) {
  return (
    <p class="small" data-remainder>
      <strong>{fmtPct(r.coverage_pct)}</strong> of negative signals explained ({fmtInt(r.attributed_signals)} attributed, <span data-unexplained>{fmtInt(r.unexplained_signals)}</span> unexplained); historically {fmtPct(r.historical_coverage_pct)}.
    </p>
  );
}
