// API reference: the OpenAPI document (GET /openapi.json, no key needed) as a page, with a curl
// example of every endpoint against this origin.
import { useEffect, useState } from 'preact/hooks';
import { CopyBlock, ErrorBox, Loading } from '../ui';

interface Param {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: { type?: string | string[]; enum?: unknown[]; default?: unknown; minimum?: number; maximum?: number; maxLength?: number };
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Param[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, { type?: unknown; enum?: unknown[]; description?: string }>; required?: string[] } }> };
  responses?: Record<string, unknown>;
}
interface OpenApi {
  info: { title: string; version: string; description?: string };
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
}

function exampleValue(p: Param): string {
  const s = p.schema ?? {};
  if (s.default !== undefined) return String(s.default);
  if (s.enum?.length) return String(s.enum[0]);
  if (s.type === 'integer' || (Array.isArray(s.type) && s.type.includes('integer'))) return String(s.minimum ?? 1);
  if (p.in === 'path') return `<${p.name}>`;
  return 'refund';
}

function curlOf(base: string, path: string, method: string, op: Operation): string {
  const pathParams = (op.parameters ?? []).filter((p) => p.in === 'path');
  let url = path;
  for (const p of pathParams) url = url.replace(`{${p.name}}`, exampleValue(p));
  const required = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required);
  if (required.length) url += `?${required.map((p) => `${p.name}=${encodeURIComponent(exampleValue(p))}`).join('&')}`;
  const lines = [`curl -s${method !== 'get' ? ` -X ${method.toUpperCase()}` : ''} "${base}${url}"`, `  -H "x-api-key: $TRACEHOUSE_KEY"`];
  const schema = op.requestBody?.content?.['application/json']?.schema;
  if (schema) {
    const body: Record<string, unknown> = {};
    for (const name of schema.required ?? []) {
      const prop = schema.properties?.[name];
      body[name] = prop?.enum?.[0] ?? 'value';
    }
    lines.push(`  -H 'content-type: application/json' -d '${JSON.stringify(body)}'`);
  }
  return lines.join(' \\\n');
}

function typeOf(p: Param): string {
  const s = p.schema ?? {};
  const t = Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? '');
  if (s.enum) return s.enum.map(String).join(' | ');
  const range = s.minimum !== undefined || s.maximum !== undefined ? ` ${s.minimum ?? ''}–${s.maximum ?? ''}` : '';
  return `${t}${range}${s.maxLength ? ` ≤ ${s.maxLength} chars` : ''}`;
}

export function ApiReferencePage() {
  const [doc, setDoc] = useState<OpenApi | null>(null);
  const [error, setError] = useState<Error | null>(null);
  useEffect(() => {
    fetch('/openapi.json', { headers: { accept: 'application/json' } })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${r.status} ${r.statusText}`))))
      .then(setDoc, setError);
  }, []);
  if (error) return <main class="page"><ErrorBox error={error} /></main>;
  if (!doc) return <main class="page"><Loading what="the API reference" /></main>;
  const base = `${location.origin}${doc.servers?.[0]?.url ?? ''}`;
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
  const tags = [...new Set(ops.map((o) => o.op.tags?.[0] ?? 'other'))];
  return (
    <main class="page api-ref">
      <div class="page-head">
        <h1>
          {doc.info.title} <span class="muted small">v{doc.info.version}</span>
        </h1>
      </div>
      <p>{doc.info.description}</p>
      <p class="muted">
        Base URL <code>{base}</code>. The machine-readable document is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).
      </p>
      <nav class="toc" aria-label="Endpoints">
        {tags.map((t) => (
          <a key={t} href={`#tag-${t}`}>
            {t}
          </a>
        ))}
      </nav>
      {tags.map((t) => (
        <section key={t} id={`tag-${t}`}>
          <h2>{t}</h2>
          {ops
            .filter((o) => (o.op.tags?.[0] ?? 'other') === t)
            .map(({ path, method, op }) => (
              <article class="card endpoint" key={`${method} ${path}`} id={op.operationId} data-endpoint={`${method.toUpperCase()} ${path}`}>
                <h3>
                  <span class={`method method-${method}`}>{method.toUpperCase()}</span> <code>{path}</code>
                </h3>
                {op.summary && <p>{op.summary}</p>}
                {op.description && op.description !== op.summary && <p class="muted small">{op.description}</p>}
                {(op.parameters ?? []).length > 0 && (
                  <div class="table-wrap">
                    <table class="table small">
                      <thead>
                        <tr>
                          <th>Parameter</th>
                          <th>In</th>
                          <th>Type</th>
                          <th>Default</th>
                          <th>Description</th>
                        </tr>
                      </thead>
                      <tbody>
                        {op.parameters!.map((p) => (
                          <tr key={`${p.in}-${p.name}`}>
                            <td>
                              <code>{p.name}</code>
                              {p.required ? ' *' : ''}
                            </td>
                            <td>{p.in}</td>
                            <td>{typeOf(p)}</td>
                            <td>{p.schema?.default === undefined ? '' : String(p.schema.default)}</td>
                            <td>{p.description ?? ''}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                )}
                <p class="small muted">Responses: {Object.keys(op.responses ?? {}).join(', ')}</p>
                <CopyBlock text={curlOf(base, path, method, op)} />
              </article>
            ))}
        </section>
      ))}
    </main>
  );
}
