import { fromSchema } from '@openapi-contrib/openapi-schema-to-json-schema';
import Ajv2019, { ErrorObject } from 'ajv/dist/2019';
import addFormats from 'ajv-formats';

/** An example found in an OpenAPI 3.0 document, with the schema it must match. */
export interface DocumentExample {
  /** JSON pointer of the example in the document. */
  pointer: string;
  value: unknown;
  schema: unknown;
}

const COMPONENTS_ID = 'openapi-components';
const SCHEMA_KEYWORDS = ['properties', 'patternProperties'] as const;
const SCHEMA_LISTS = ['allOf', 'oneOf', 'anyOf'] as const;
const SCHEMA_SINGLES = ['items', 'additionalProperties', 'not'] as const;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every example of the document: schema examples (at any depth), parameters' and media types' example(s). */
export function collectExamples(doc: any): DocumentExample[] {
  const found: DocumentExample[] = [];
  const fromSchemaTree = (schema: any, pointer: string) => {
    if (!schema || typeof schema !== 'object' || schema.$ref) return;
    if ('example' in schema) {
      const { example, ...rest } = schema;
      found.push({ pointer: `${pointer}/example`, value: example, schema: rest });
    }
    for (const key of SCHEMA_KEYWORDS)
      for (const [name, child] of Object.entries(schema[key] ?? {})) fromSchemaTree(child, `${pointer}/${key}/${escape(name)}`);
    for (const key of SCHEMA_LISTS) (schema[key] ?? []).forEach((child: unknown, i: number) => fromSchemaTree(child, `${pointer}/${key}/${i}`));
    for (const key of SCHEMA_SINGLES) if (typeof schema[key] === 'object') fromSchemaTree(schema[key], `${pointer}/${key}`);
  };
  const fromHolder = (holder: any, pointer: string) => {
    if (!holder?.schema) return;
    fromSchemaTree(holder.schema, `${pointer}/schema`);
    if ('example' in holder) found.push({ pointer: `${pointer}/example`, value: holder.example, schema: holder.schema });
    for (const [name, example] of Object.entries<any>(holder.examples ?? {})) {
      if ('value' in example) found.push({ pointer: `${pointer}/examples/${escape(name)}/value`, value: example.value, schema: holder.schema });
    }
  };

  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) fromSchemaTree(schema, `#/components/schemas/${escape(name)}`);
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const at = `#/paths/${escape(path)}/${method}`;
      (op.parameters ?? []).forEach((p: any, i: number) => fromHolder(p, `${at}/parameters/${i}`));
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) fromHolder(media, `${at}/requestBody/content/${escape(type)}`);
      for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
        for (const [type, media] of Object.entries(response.content ?? {})) fromHolder(media, `${at}/responses/${status}/content/${escape(type)}`);
      }
    }
  }
  return found;
}

/** An OpenAPI 3.0 schema as JSON Schema (nullable as type arrays), its `$ref`s pointing into the components schema. */
function toJsonSchema(schema: unknown): any {
  const converted = fromSchema(structuredClone(schema) as any, { cloneSchema: false });
  delete converted.$schema;
  const relink = (node: any) => {
    if (!node || typeof node !== 'object') return;
    if (typeof node.$ref === 'string') node.$ref = node.$ref.replace('#/components/schemas/', `${COMPONENTS_ID}#/$defs/`);
    for (const value of Object.values(node)) relink(value);
  };
  relink(converted);
  return converted;
}

/**
 * Closes every object schema that lists its properties (`unevaluatedProperties: false`, which sees
 * through allOf), so an example carrying a field the schema does not declare fails too.
 */
function closeObjects(node: any): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach(closeObjects);
  if (node.properties && node.additionalProperties === undefined && node.unevaluatedProperties === undefined) node.unevaluatedProperties = false;
  // An allOf member is open by itself: the combined schema is closed where the allOf sits.
  if (Array.isArray(node.allOf)) {
    for (const member of node.allOf) {
      closeObjects(member);
      if (!member || typeof member !== 'object') continue;
      delete member.unevaluatedProperties;
      // A referenced member: its open variant (the same schema, closed below its root).
      if (typeof member.$ref === 'string') member.$ref = member.$ref.replace('#/$defs/', '#/$open/');
    }
    node.unevaluatedProperties ??= false;
  }
  for (const [key, value] of Object.entries(node)) if (key !== 'allOf' && key !== 'enum' && key !== 'const' && key !== 'default') closeObjects(value);
}

export interface ExampleProblem {
  pointer: string;
  errors: string[];
}

/** Validates every example of the document against its own schema; returns the ones that do not match. */
export function invalidExamples(doc: any, examples = collectExamples(doc)): ExampleProblem[] {
  const ajv = new Ajv2019({ strict: false, allErrors: true, discriminator: true });
  addFormats(ajv);
  // Formats OpenAPI names that JSON Schema has not: any string passes.
  for (const format of ['binary', 'byte', 'int32', 'int64', 'float', 'double', 'password']) ajv.addFormat(format, true);
  const components: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) components[name] = toJsonSchema(schema);
  const closed = structuredClone(components);
  closeObjects(closed);
  const open = structuredClone(closed);
  for (const schema of Object.values<any>(open)) delete schema.unevaluatedProperties;
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: closed, $open: open });
  const problems: ExampleProblem[] = [];
  for (const example of examples) {
    const schema = toJsonSchema(example.schema);
    closeObjects(schema);
    const validate = ajv.compile(schema);
    if (!validate(example.value)) {
      problems.push({ pointer: example.pointer, errors: (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message}`) });
    }
  }
  return problems;
}
