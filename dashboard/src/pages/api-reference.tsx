// API reference: the OpenAPI document (GET /openapi.json, no key needed) as a page: the data API
// and the fix routes, each with a curl example against this origin and its own base URL (a path's
// `servers` entry when it has one, else the document's).
import { useEffect, useState } from 'preact/hooks';
import { CopyBlock, ErrorBox, Loading } from '../ui';

interface Param {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: { type?: string | string[]; enum?: unknown[]; default?: unknown; minimum?: number; maximum?: number; maxLength?: number; format?: string };
}
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
}
interface Server {
  url: string;
  description?: string;
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  servers?: Server[];
  /** An empty list: the operation takes no API key (the signed merge notification). */
  security?: unknown[];
  parameters?: Param[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, unknown>;
}
type PathItem = { servers?: Server[] } & Record<string, Operation | Server[] | undefined>;
export interface OpenApi {
  info: { title: string; version: string; description?: string };
  servers?: Server[];
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, PathItem>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function exampleValue(p: Param): string {
  const s = p.schema ?? {};
  if (s.default !== undefined) return String(s.default);
  if (s.enum?.length) return String(s.enum[0]);
  if (s.type === 'integer' || (Array.isArray(s.type) && s.type.includes('integer'))) return String(s.minimum ?? 1);
  if (p.in === 'path') return `<${p.name}>`;
  return 'refund';
}

const firstType = (s: Schema) => (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type);

/** A minimal body that satisfies the schema's required fields. */
function exampleBody(s: Schema, depth = 0): unknown {
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  if (s.default !== undefined) return s.default;
  switch (firstType(s)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      if (depth < 4) for (const name of s.required ?? []) out[name] = exampleBody(s.properties?.[name] ?? {}, depth + 1);
      return out;
    }
    case 'array':
      return depth < 4 && s.items ? [exampleBody(s.items, depth + 1)] : [];
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return false;
    default:
      return s.minLength && s.minLength > 5 ? 'x'.repeat(s.minLength) : 'value';
  }
}

export function curlOf(base: string, path: string, method: string, op: Operation): string {
  const pathParams = (op.parameters ?? []).filter((p) => p.in === 'path');
  let url = path;
  for (const p of pathParams) url = url.replace(`{${p.name}}`, exampleValue(p));
  const required = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required);
  if (required.length) url += `?${required.map((p) => `${p.name}=${encodeURIComponent(exampleValue(p))}`).join('&')}`;
  const lines = [`curl -s${method !== 'get' ? ` -X ${method.toUpperCase()}` : ''} "${base}${url}"`];
  if (op.security?.length === 0) lines.push(`  -H "x-hub-signature-256: sha256=<HMAC-SHA256 of the body>"`);
  else lines.push(`  -H "x-api-key: $TRACEHOUSE_KEY"`);
  const schema = op.requestBody?.content?.['application/json']?.schema;
  if (schema && (op.requestBody?.required || schema.required?.length)) {
    lines.push(`  -H 'content-type: application/json' -d '${JSON.stringify(exampleBody(schema))}'`);
  }
  return lines.join(' \\\n');
}

/** The server an operation is relative to: its own, its path's, else the document's. */
const serverOf = (doc: OpenApi, item: PathItem, op: Operation) => op.servers?.[0] ?? item.servers?.[0] ?? doc.servers?.[0] ?? { url: '' };

/** Every operation of the document, in its order, with the server it is relative to. */
export function operationsOf(doc: OpenApi): Array<{ path: string; method: string; op: Operation; server: Server }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => {
      const op = item[method] as Operation;
      return { path, method, op, server: serverOf(doc, item, op) };
    }),
  );
}

function typeOf(p: { schema?: Schema }): string {
  const s = p.schema ?? {};
  const t = Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? '');
  if (s.enum) return s.enum.map(String).join(' | ');
  const range = s.minimum !== undefined || s.maximum !== undefined ? ` ${s.minimum ?? ''}–${s.maximum ?? ''}` : '';
  const len = s.minLength || s.maxLength ? ` ${s.minLength ?? 0}–${s.maxLength ?? ''} chars` : '';
  return `${t}${range}${len}`;
}

/** Top-level fields of an operation's JSON body. */
function bodyFields(op: Operation): Array<{ name: string; required: boolean; schema: Schema }> {
  const schema = op.requestBody?.content?.['application/json']?.schema;
  const required = new Set(schema?.required ?? []);
  return Object.entries(schema?.properties ?? {}).map(([name, s]) => ({ name, required: required.has(name), schema: s }));
}

interface Field {
  key: string;
  name: string;
  required: boolean;
  /** Where a parameter goes (path, query); absent for body fields. */
  in?: string;
  schema: Schema;
  description?: string;
}

/** The parameters or body fields of an operation (nothing when it has none). */
function FieldTable({ title, fields, body }: { title: string; fields: Field[]; body?: boolean }) {
  if (fields.length === 0) return null;
  const showIn = fields.some((f) => f.in !== undefined);
  return (
    <div class="table-wrap">
      <table class="table small" data-body={body ? '' : undefined}>
        <thead>
          <tr>
            <th>{title}</th>
            {showIn && <th>In</th>}
            <th>Type</th>
            <th>Default</th>
            <th>Description</th>
          </tr>
        </thead>
        <tbody>
          {fields.map((f) => (
            <tr key={f.key}>
              <td>
                <code>{f.name}</code>
                {f.required ? ' *' : ''}
              </td>
              {showIn && <td>{f.in}</td>}
              <td>{typeOf(f)}</td>
              <td>{f.schema.default === undefined ? '' : String(f.schema.default)}</td>
              <td>{f.description ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
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
  const ops = operationsOf(doc);
  const servers = [...new Map(ops.map((o) => [o.server.url, o.server])).values()];
  const tags = [...new Set(ops.map((o) => o.op.tags?.[0] ?? 'other'))];
  const tagInfo = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
  return (
    <main class="page api-ref">
      <div class="page-head">
        <h1>
          {doc.info.title} <span class="muted small">v{doc.info.version}</span>
        </h1>
      </div>
      {(doc.info.description ?? '').split('\n\n').map((para) => (
        <p key={para}>{para}</p>
      ))}
      <p class="muted" data-servers>
        Base URLs:{' '}
        {servers.map((sv, i) => (
          <span key={sv.url}>
            {i > 0 && '; '}
            {sv.description ? `${sv.description} ` : ''}
            <code data-server={sv.url}>{`${location.origin}${sv.url}`}</code>
          </span>
        ))}
        . Each endpoint below says which one it is relative to. The machine-readable document is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).
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
          {tagInfo.get(t) && <p class="muted">{tagInfo.get(t)}</p>}
          {ops
            .filter((o) => (o.op.tags?.[0] ?? 'other') === t)
            .map(({ path, method, op, server }) => (
              <article class="card endpoint" key={`${method} ${path}`} id={op.operationId} data-endpoint={`${method.toUpperCase()} ${path}`} data-base={server.url}>
                <h3>
                  <span class={`method method-${method}`}>{method.toUpperCase()}</span>{' '}
                  <code>
                    <span class="muted">{server.url}</span>
                    {path}
                  </code>
                </h3>
                {op.summary && <p>{op.summary}</p>}
                {op.description && op.description !== op.summary && <p class="muted small">{op.description}</p>}
                <FieldTable
                  title="Parameter"
                  fields={(op.parameters ?? []).map((p) => ({ key: `${p.in}-${p.name}`, name: p.name, required: !!p.required, in: p.in, schema: p.schema ?? {}, description: p.description }))}
                />
                <FieldTable title="Body field" body fields={bodyFields(op).map((f) => ({ key: f.name, name: f.name, required: f.required, schema: f.schema, description: f.schema.description }))} />
                <p class="small muted">Responses: {Object.keys(op.responses ?? {}).join(', ')}</p>
                <CopyBlock text={curlOf(`${location.origin}${server.url}`, path, method, op)} />
              </article>
            ))}
        </section>
      ))}
    </main>
  );
}
