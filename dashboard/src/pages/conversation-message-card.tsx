// One message of the timeline: its body, tool calls and results, and the emotion detections and
// hallucination findings on it.
import { useState } from 'preact/hooks';
import { setQuery } from '../router';
import { fmtInt, fmtScore, fmtTime, truncate } from '../ui';
import type { Detection, Finding, Message } from './conversation-types';

function ToolCall({ call, result }: { call: Message['tool_calls'][number]; result?: Message['tool_results'][number] }) {
  return (
    <details class={`tool ${result?.is_error ? 'tool-error' : ''}`} data-tool-call={call.name}>
      <summary>
        <span class="tool-name">{call.name}</span> <span class="muted small">{truncate(call.input.replace(/\s+/g, ' '), 80)}</span>
      </summary>
      <pre class="tool-body">{call.input}</pre>
    </details>
  );
}

function ToolResult({ result }: { result: Message['tool_results'][number] }) {
  return (
    <details class={`tool result ${result.is_error ? 'tool-error' : ''}`} open={result.is_error} data-tool-result={result.is_error ? 'error' : 'ok'}>
      <summary>
        {result.is_error ? <span class="badge bad">error</span> : <span class="badge">result</span>} <span class="muted small">{truncate(result.content.replace(/\s+/g, ' '), 100)}</span>
      </summary>
      <pre class="tool-body">{result.content}</pre>
    </details>
  );
}

export function MessageCard({ m, detections, findings, selected }: { m: Message; detections: Detection[]; findings: Finding[]; selected: boolean }) {
  const [expanded, setExpanded] = useState(false);
  const long = m.content.length > 1200;
  const hasError = m.tool_results.some((r) => r.is_error);
  return (
    <li id={`m-${m.index}`} class={`msg role-${m.role} ${hasError ? 'has-error' : ''} ${selected ? 'selected' : ''}`} data-msg-index={m.index} tabIndex={-1}>
      <div class="msg-head">
        <a href={`?msg=${m.index}`} class="msg-index" onClick={(e) => (e.preventDefault(), setQuery({ msg: m.index }, { replace: true }))}>
          #{m.index}
        </a>{' '}
        <span class="msg-role">{m.role}</span> <span class="muted small">{fmtTime(m.timestamp)}</span>
      </div>
      {m.content && m.role === 'system' && (
        <details class="tool">
          <summary>System prompt ({fmtInt(m.content.length)} characters)</summary>
          <div class="msg-body">{m.content}</div>
        </details>
      )}
      {m.content && m.role !== 'system' && (
        <div class="msg-body">
          {long && !expanded ? truncate(m.content, 1200) : m.content}
          {long && (
            <button type="button" class="link" onClick={() => setExpanded(!expanded)}>
              {expanded ? 'Show less' : 'Show all'}
            </button>
          )}
        </div>
      )}
      {m.tool_calls.map((c) => (
        <ToolCall key={c.id} call={c} />
      ))}
      {m.tool_results.map((r) => (
        <ToolResult key={r.tool_use_id} result={r} />
      ))}
      {detections.map((d, i) => (
        <div class="annotation emotion" key={`e${i}`} data-emotion={`${d.family}/${d.signal}`}>
          <span class={`badge ${d.score >= 0.5 ? 'bad' : 'warn'}`}>
            {d.family} · {d.signal} {fmtScore(d.score)}
          </span>{' '}
          <span class="small">
            risk {fmtScore(d.risk_score)}, {d.trajectory}, elicited by {d.elicitor}
            {d.cause && (
              <>
                {' '}
                · cause: {d.cause.kind.replace(/_/g, ' ')} at <a href={`?msg=${d.cause.message_index}`} onClick={(e) => (e.preventDefault(), setQuery({ msg: d.cause!.message_index }, { replace: true }))}>#{d.cause.message_index}</a>
              </>
            )}
          </span>
          {d.quotes.length > 0 && <q class="small">{d.quotes.join(' … ')}</q>}
        </div>
      ))}
      {findings.map((f, i) => (
        <div class={`annotation claim claim-${f.verdict}`} key={`h${i}`} data-claim={f.verdict}>
          <span class={`badge ${f.verdict === 'contradicted' ? 'bad' : 'ok'}`}>{f.verdict === 'contradicted' ? 'contradicted claim' : 'verified claim'}</span> <q>{f.claim}</q>{' '}
          <span class="small muted">({f.claim_type.replace(/_/g, ' ')})</span>
          <div class="small">
            evidence{f.evidence.message_index !== null && (
              <>
                {' '}
                at <a href={`?msg=${f.evidence.message_index}`} onClick={(e) => (e.preventDefault(), setQuery({ msg: f.evidence.message_index }, { replace: true }))}>#{f.evidence.message_index}</a>
              </>
            )}
            : <q>{truncate(f.evidence.quote, 200)}</q>
          </div>
        </div>
      ))}
    </li>
  );
}
