import { DATA_API_BASE, errorBody, type EndpointSpec, type JsonSchema } from '../schemas/api/common.js';
import { FIX_API_BASE, FIX_BODY_MAX_BYTES, type FixRouteSpec } from '../schemas/api/fixes.js';
import { errorCode } from '../core/errors.js';
// declares the fix pipeline's error codes in the registry the fix responses are described from
import '../fixes/errors.js';


const TAG_DESCRIPTIONS: Record<string, string> = {
  fixes: `Fix pipeline (spec/fix-pipeline.md): draft, advance, verify, deliver and dismiss fixes. Under \`${FIX_API_BASE}\`, not the data API's base.`,
  prompts: `Prompt registry of the fix pipeline. Under \`${FIX_API_BASE}\`.`,
  webhooks: `Notifications from the code-hosting integration, signed instead of keyed. Under \`${FIX_API_BASE}\`.`,
};

/**
 * The OpenAPI 3.1 document of the service: the data API (EndpointSpec list, paths relative to the
 * default server `/api/v1/data`) and the fix routes (FIX_ROUTES, paths relative to `/api`, given as
 * a path-level `servers` entry), generated from the schemas that also drive validation (schemas/api/).
 */
export function buildOpenApi(endpoints: readonly EndpointSpec[], fixRoutes: readonly FixRouteSpec[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const e of endpoints) {
    (paths[e.path] ??= {})[e.method] = operation(e);
  }
  for (const r of fixRoutes) {
    if (paths[r.path] && !paths[r.path]!.servers) throw new Error(`fix route ${r.path} collides with a data-API path`);
    (paths[r.path] ??= { servers: [{ url: FIX_API_BASE, description: 'Fix pipeline' }] })[r.method] = fixOperation(r);
  }
  const tags = [...new Set([...endpoints.map((e) => e.tag), ...fixRoutes.map((r) => r.tag)])];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tracehouse API',
      version,
      description: [
        'HTTP interface of the Tracehouse query service. Every request needs an API key in `x-api-key`, except the signed merge notification.',
        'The data API (spec/data-api.md) reads recorded agent conversations under `/api/v1/data`, the default server. Numeric query parameters outside their range are clamped (their range is in `minimum`/`maximum`; `x-clamp` says which sign is validated); non-integers, a wrong sign or values outside an enum give 400.',
        `The fix pipeline (spec/fix-pipeline.md) lives under \`${FIX_API_BASE}\`: its paths carry their own \`servers\` entry. Reads need a key of the workspace in the path; every POST needs an admin key. Error responses name the error codes (\`x-error-codes\`) that can cause them.`,
      ].join('\n\n'),
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: DATA_API_BASE, description: 'Data API' }],
    security: [{ apiKey: [] }],
    tags: tags.map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name })),
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: { Error: errorBody },
      responses: {
        BadRequest: errorResponse('A parameter or the body violates its rules; `message` lists each problem.'),
        Unauthorized: errorResponse('Missing, invalid or revoked API key.'),
        Forbidden: errorResponse('The key lacks the `read` scope.'),
        FixUnauthorized: errorResponse('Missing, invalid or revoked API key.'),
        FixForbiddenRead: errorResponse('The API key is not a member of the workspace in the path, or lacks the read scope.'),
        FixForbiddenWrite: errorResponse('The API key is not a member of the workspace in the path, lacks the read scope, or is not an admin key.'),
      },
    },
  };
}

function errorResponse(description: string) {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
}

function operation(e: EndpointSpec): Record<string, unknown> {
  const parameters: unknown[] = [];
  for (const [name, p] of Object.entries(e.pathParams ?? {})) {
    parameters.push({ name, in: 'path', required: true, description: p.description, schema: p.schema });
  }
  const props = (e.query?.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((e.query?.required as string[] | undefined) ?? []);
  for (const [name, schema] of Object.entries(props)) {
    const { description, ...rest } = schema;
    parameters.push({ name, in: 'query', required: required.has(name), description, schema: rest });
  }
  const responses: Record<string, unknown> = {
    [String(e.status)]: { description: e.status === 202 ? 'Accepted and stored.' : 'OK', content: { 'application/json': { schema: e.response } } },
    '400': { $ref: '#/components/responses/BadRequest' },
    '401': { $ref: '#/components/responses/Unauthorized' },
    '403': { $ref: '#/components/responses/Forbidden' },
  };
  if (e.notFound) responses['404'] = errorResponse(e.notFound);
  if (e.body) {
    responses['413'] = errorResponse('Body larger than 64 KB.');
    responses['415'] = errorResponse('Body is not JSON.');
  }
  return {
    operationId: e.operationId,
    summary: e.summary,
    description: e.description,
    tags: [e.tag],
    parameters,
    ...(e.body ? { requestBody: { required: true, content: { 'application/json': { schema: e.body } } } } : {}),
    responses,
  };
}

const BAD_REQUEST = 'A parameter or the body violates its rules; `message` lists each problem.';

/** One error response of a fix route, described from the error-code registry (core/errors.ts). */
function codedResponse(status: number, codes: readonly string[]) {
  const infos = codes.map((code) => {
    const info = errorCode(code);
    if (!info) throw new Error(`fix route error code "${code}" is not in the error registry`);
    if (info.status !== status) throw new Error(`error code "${code}" answers ${info.status}, not ${status}`);
    return info;
  });
  const causes = infos.map((i) => `\`${i.code}\`: ${i.description}`).join('; ');
  return {
    ...errorResponse(status === 400 ? `${BAD_REQUEST} Also ${causes}.` : `${causes.charAt(0).toUpperCase()}${causes.slice(1)}.`),
    'x-error-codes': infos.map((i) => i.code),
  };
}

function fixOperation(r: FixRouteSpec): Record<string, unknown> {
  const parameters: unknown[] = [];
  for (const [name, p] of Object.entries(r.pathParams)) parameters.push({ name, in: 'path', required: true, description: p.description, schema: p.schema });
  const props = (r.query?.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((r.query?.required as string[] | undefined) ?? []);
  for (const [name, schema] of Object.entries(props)) {
    const { description, ...rest } = schema;
    parameters.push({ name, in: 'query', required: required.has(name), description, schema: rest });
  }
  const byStatus = new Map<number, string[]>();
  for (const code of r.errors) {
    const status = errorCode(code)?.status;
    if (status === undefined) throw new Error(`fix route error code "${code}" is not in the error registry`);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {
    [String(r.status)]: { description: r.status === 202 ? 'Accepted.' : 'OK', content: { 'application/json': { schema: r.response } } },
    '400': byStatus.has(400) ? codedResponse(400, byStatus.get(400)!) : { $ref: '#/components/responses/BadRequest' },
  };
  if (r.access === 'signature') {
    responses['401'] = codedResponse(401, byStatus.get(401) ?? []);
  } else {
    responses['401'] = { $ref: '#/components/responses/FixUnauthorized' };
    responses['403'] = { $ref: r.access === 'admin' ? '#/components/responses/FixForbiddenWrite' : '#/components/responses/FixForbiddenRead' };
  }
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    if (status === 400 || status === 401) continue;
    responses[String(status)] = codedResponse(status, codes);
  }
  if (r.body) responses['413'] = errorResponse(`Body larger than ${Math.round((r.maxBodyBytes ?? FIX_BODY_MAX_BYTES) / 1024 / 1024)} MB.`);
  const access = r.access === 'admin' ? 'Admin key of the workspace.' : r.access === 'member' ? 'Any key of the workspace.' : 'No API key: HMAC signature of the body.';
  return {
    operationId: r.operationId,
    summary: r.summary,
    description: `${r.description}\n\n${access}`,
    tags: [r.tag],
    ...(r.access === 'signature' ? { security: [] } : {}),
    parameters,
    ...(r.body ? { requestBody: { required: !!r.bodyRequired, content: { 'application/json': { schema: r.body } } } } : {}),
    responses,
    'x-access': r.access,
  };
}
