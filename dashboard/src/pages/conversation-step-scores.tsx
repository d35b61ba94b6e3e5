// The step scores panel (GET /conversations/:id/step-scores): per segment, each step's progress and
// the step most likely to be where it went wrong.
import { enc, useApi } from '../api';
import { setQuery } from '../router';
import { Async, Empty, fmtScore } from '../ui';
import type { Step, StepScores, StepSegment } from './conversation-types';

/** The step most likely to be where a segment went wrong, when the evidence says so. */
export function firstBadStep(seg: StepSegment): Step | null {
  let best: Step | null = null;
  for (const s of seg.steps) if (!best || s.first_bad_step_probability > best.first_bad_step_probability) best = s;
  if (!best) return null;
  return seg.failure_type || best.first_bad_step_probability >= 0.25 ? best : null;
}

export function StepScoresPanel({ id }: { id: string }) {
  const state = useApi<StepScores>(`/conversations/${enc(id)}/step-scores`);
  return (
    <section class="card" aria-labelledby="steps" data-panel="step-scores">
      <h2 id="steps">Step scores</h2>
      <Async state={state} what="step scores">
        {(s) =>
          s.segments.length === 0 ? (
            <Empty title="Not scored yet.">
              <p class="muted small">Steps are scored once the conversation has an agent step, seconds after its last event.</p>
            </Empty>
          ) : (
            <>
              {s.rollup && (
                <p data-blended={s.rollup.blended_score}>
                  Blended score <strong>{fmtScore(s.rollup.blended_score)}</strong>{' '}
                  <span class="muted small">
                    over {s.rollup.segment_count} segment{s.rollup.segment_count === 1 ? '' : 's'}
                  </span>
                </p>
              )}
              {s.segments.map((seg, si) => {
                const bad = firstBadStep(seg);
                return (
                  <div class="segment" key={seg.segment_id} data-segment={seg.segment_id}>
                    <div class="small">
                      Segment {si + 1} · {seg.segment_unit_count} steps · {seg.segment_status_at_scoring}
                      {seg.failure_type && (
                        <span class="badge bad" data-failure-type={seg.failure_type.failure_type}>
                          {seg.failure_type.failure_type.replace(/_/g, ' ')}
                        </span>
                      )}
                    </div>
                    <div class="steps">
                      {seg.steps.map((st) => (
                        <a
                          key={st.unit_id}
                          href={`?msg=${st.message_index}`}
                          onClick={(e) => (e.preventDefault(), setQuery({ msg: st.message_index }, { replace: true }))}
                          class={`step ${bad === st ? 'first-bad' : ''}`}
                          data-step={st.unit_index}
                          data-progress={st.progress_score}
                          title={`step ${st.unit_index} (${st.node_type}) at #${st.message_index}: progress ${fmtScore(st.progress_score)}, first-bad probability ${fmtScore(st.first_bad_step_probability)}${st.first_bad_step_reason ? ` — ${st.first_bad_step_reason}` : ''}`}
                        >
                          <span class="step-fill" style={{ height: `${Math.max(4, Math.round(st.progress_score * 100))}%` }} />
                        </a>
                      ))}
                    </div>
                    {bad && (
                      <p class="small" data-first-bad={bad.message_index}>
                        First bad step: <a href={`?msg=${bad.message_index}`} onClick={(e) => (e.preventDefault(), setQuery({ msg: bad.message_index }, { replace: true }))}>#{bad.message_index}</a> ({bad.node_type.replace(/_/g, ' ')}, p = {fmtScore(bad.first_bad_step_probability)})
                        {bad.first_bad_step_reason && <> — {bad.first_bad_step_reason}</>}
                      </p>
                    )}
                  </div>
                );
              })}
            </>
          )
        }
      </Async>
    </section>
  );
}
