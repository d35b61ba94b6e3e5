import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { projectRoot } from '../core/paths.js';

/** JSON Schemas of schemas/ingest/*.json, compiled once per process. */
const SCHEMA_DIR = join(projectRoot, 'schemas', 'ingest');
const NAMES = ['envelope', 'content-block', 'standard-event', 'channel-event', 'tool-call-event', 'hook'] as const;
export type SchemaName = (typeof NAMES)[number];

let compiled: Map<SchemaName, ValidateFunction> | undefined;

function validators(): Map<SchemaName, ValidateFunction> {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: false, strict: false });
    for (const n of NAMES) ajv.addSchema(JSON.parse(readFileSync(join(SCHEMA_DIR, `${n}.json`), 'utf8')), `${n}.json`);
    compiled = new Map(NAMES.map((n) => [n, ajv.getSchema(`${n}.json`)!]));
  }
  return compiled;
}

/** One readable reason for the first error: `content[1].text must be string`. */
function reason(err: ErrorObject): string {
  const path = err.instancePath.replace(/^\//, '').replace(/\/(\d+)(?=\/|$)/g, '[$1]').replace(/\//g, '.');
  if (err.keyword === 'required') return `${path ? `${path}.` : ''}${(err.params as { missingProperty: string }).missingProperty} is required`;
  if (err.keyword === 'enum') return `${path || 'value'} must be one of ${(err.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  if (err.keyword === 'anyOf' && !path) return 'either message or content is required';
  return `${path || 'event'} ${err.message ?? 'is invalid'}`;
}

/** Validates `value`; returns undefined when valid, else one reason. */
export function check(name: SchemaName, value: unknown): string | undefined {
  const v = validators().get(name)!;
  if (v(value)) return undefined;
  const errors = v.errors ?? [];
  // prefer the most specific error (deepest path), ajv reports anyOf after its branches
  const rank = (e: ErrorObject) => e.instancePath.split('/').length * 2 + (e.keyword === 'anyOf' ? 1 : 0);
  const best = [...errors].sort((a, b) => rank(b) - rank(a))[0];
  return best ? reason(best) : 'invalid';
}
