import { anonymous } from './api';

export interface Operation {
  method: string;
  path: string;
  operation: any;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any> };
}

export async function fetchOpenApi(): Promise<OpenApiDocument> {
  const res = await anonymous().get('/openapi.json');
  if (res.status !== 200) throw new Error(`/openapi.json answered ${res.status}`);
  return res.body;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function operations(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
}

/** Follows a local $ref (#/components/schemas/X). */
export function resolve(doc: OpenApiDocument, schema: any): any {
  let s = schema;
  for (let i = 0; s?.$ref && i < 20; i++) s = doc.components.schemas[String(s.$ref).split('/').pop()!];
  return s;
}

/** A body built from the document's own example for the operation, or from its schema's examples. */
export function exampleBody(doc: OpenApiDocument, op: Operation): unknown {
  const content = op.operation.requestBody?.content?.['application/json'];
  if (!content) return undefined;
  if (content.examples) return (Object.values(content.examples)[0] as { value: unknown }).value;
  if (content.example !== undefined) return content.example;
  return exampleOf(doc, content.schema, 0);
}

function exampleOf(doc: OpenApiDocument, raw: any, depth: number): unknown {
  const schema = resolve(doc, raw);
  if (!schema || depth > 6) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (schema.enum) return schema.enum[0];
  if (schema.allOf) return exampleOf(doc, schema.allOf[0], depth + 1);
  if (schema.oneOf || schema.anyOf) return exampleOf(doc, (schema.oneOf ?? schema.anyOf)[0], depth + 1);
  if (schema.type === 'object' || schema.properties) {
    const out: Record<string, unknown> = {};
    for (const name of schema.required ?? []) out[name] = exampleOf(doc, schema.properties?.[name], depth + 1);
    return out;
  }
  if (schema.type === 'array') return [exampleOf(doc, schema.items, depth + 1)];
  if (schema.type === 'string') return 'x';
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1;
  if (schema.type === 'boolean') return true;
  return undefined;
}
