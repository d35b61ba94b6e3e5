import { errorBody, type EndpointSpec, type JsonSchema } from '../schemas/api/common.js';

/**
 * The OpenAPI 3.1 document of the data API, generated from the endpoint schemas that also drive
 * validation (schemas/api/). Paths are relative to the server URL `/api/v1/data`.
 */
export function buildOpenApi(endpoints: readonly EndpointSpec[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const e of endpoints) {
    (paths[e.path] ??= {})[e.method] = operation(e);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tracehouse Data API',
      version,
      description:
        'Read interface over recorded agent conversations (spec/data-api.md). Every request needs an API key in `x-api-key`. Numeric query parameters outside their range are clamped (their range is in `minimum`/`maximum`; `x-clamp` says which sign is validated); non-integers, a wrong sign or values outside an enum give 400.',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: '/api/v1/data' }],
    security: [{ apiKey: [] }],
    tags: [...new Set(endpoints.map((e) => e.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: { Error: errorBody },
      responses: {
        BadRequest: errorResponse('A parameter or the body violates its rules; `message` lists each problem.'),
        Unauthorized: errorResponse('Missing, invalid or revoked API key.'),
        Forbidden: errorResponse('The key lacks the `read` scope, or (problem feedback) is not an admin key.'),
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
