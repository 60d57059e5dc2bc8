import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type AnySchema, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Validates the fake's answers against Lidarr's own OpenAPI document (GPL-3.0, vendored as test
 * data under test/specs/lidarr with its license; never part of the product).
 */
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const lidarrSpecPath = resolve(repoRoot, 'test/specs/lidarr/openapi.json');

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
  components: { schemas: Record<string, Record<string, unknown>> };
}

export interface LidarrSpecValidator {
  /** Errors of `body` against the 200 answer of `method path` (a spec path such as `/api/v1/artist/{id}`). */
  errors(method: string, path: string, body: unknown): string[];
}

export function loadLidarrSpec(): LidarrSpecValidator {
  const spec = JSON.parse(readFileSync(lidarrSpecPath, 'utf8')) as OpenApiDocument;
  const schemas = openApiNullable(structuredClone(spec.components.schemas)) as OpenApiDocument['components']['schemas'];
  // A command's body is the concrete command (AlbumSearch has albumIds, ...); the spec only lists the base class.
  if (schemas.Command) schemas.Command.additionalProperties = true;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // .NET TimeSpan, e.g. "00:00:00.0500000" or "1.02:03:04".
  ajv.addFormat('date-span', /^-?(\d+\.)?\d{2}:\d{2}:\d{2}(\.\d{1,7})?$/);
  ajv.addSchema({ $id: 'lidarr', components: { schemas } });
  const compiled = new Map<string, ValidateFunction>();

  return {
    errors(method, path, body) {
      const key = `${method.toLowerCase()} ${path}`;
      let validate = compiled.get(key);
      if (!validate) {
        const content = spec.paths[path]?.[method.toLowerCase()]?.responses?.['200']?.content;
        const schema = content?.['application/json']?.schema;
        if (!schema) throw new Error(`Lidarr's spec has no JSON 200 answer for ${key}`);
        validate = ajv.compile(rebase(openApiNullable(schema)));
        compiled.set(key, validate);
      }
      if (validate(body)) return [];
      return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    },
  };
}

/** OpenAPI 3.0's `nullable: true` in JSON Schema terms: `null` becomes one more accepted value. */
function openApiNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openApiNullable);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = openApiNullable(v);
  if (out.nullable !== true) return out;
  delete out.nullable;
  if (typeof out.type === 'string' && !out.enum) return { ...out, type: [out.type, 'null'] };
  return { anyOf: [out, { type: 'null' }] };
}

/** Points `#/components/...` references at the components schema registered under `$id: lidarr`. */
function rebase(schema: unknown): AnySchema {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"lidarr#/components/')) as AnySchema;
}
