import { z } from 'zod';
import type { RouteDefinition } from './route.js';

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string' }, message: { type: 'string' }, code: { type: 'string' }, details: {} },
};

const toJson = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'openapi-3.0' }) as Record<string, unknown>;

/** Express `/a/:id` to OpenAPI `/a/{id}`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const json = toJson(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: s,
  }));
}

function security(def: RouteDefinition) {
  if (def.access === 'public' || def.access === 'onboarding') return [];
  const base = [{ bearer: [] }, { apiKeyHeader: [] }, { apiKeyQuery: [] }];
  return def.access === 'media' ? [...base, { streamToken: [] }, { sessionQuery: [] }] : base;
}

/** The OpenAPI 3 document of every route defined with defineRoute. */
export function buildOpenApi(routes: RouteDefinition[], appVersion: string, basePath = '') {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const def of routes) {
    const p = (paths[openApiPath(def.path)] ??= {});
    const ok =
      def.response === 'binary'
        ? { description: 'Media bytes', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }
        : def.response === 'empty'
          ? { description: 'No content' }
          : { description: 'Success', content: { 'application/json': { schema: toJson(def.response, 'output') } } };
    p[def.method] = {
      summary: def.summary,
      tags: [def.tag],
      'x-access': typeof def.access === 'string' ? def.access : def.access,
      security: security(def),
      parameters: [...parameters(def.params, 'path'), ...parameters(def.query, 'query')],
      ...(def.body && { requestBody: { required: true, content: { 'application/json': { schema: toJson(def.body, 'input') } } } }),
      responses: {
        [String(def.status ?? (def.response === 'empty' ? 204 : 200))]: ok,
        default: { description: 'Error', content: { 'application/json': { schema: errorSchema } } },
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Tonearm API', version: appVersion, description: 'JSON API of Tonearm. See also /rest (Subsonic) and /ws.' },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
        streamToken: { type: 'apiKey', in: 'query', name: 'st' },
        sessionQuery: { type: 'apiKey', in: 'query', name: 'token' },
      },
    },
    // Paths below are relative to this: the base path (TONEARM_BASE_PATH) when one is set.
    servers: [{ url: basePath || '/' }],
    paths,
  };
}
