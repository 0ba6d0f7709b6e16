/**
 * Generates the TypeScript types of the project's own resources (operator/src/generated/crds.ts) from
 * crds/*.yaml, the single source: each CRD's served, stored version's schema, its spec and status, typed with
 * openapi-typescript (properties with a default are not optional: the API server fills them in).
 *
 *   node hack/generate-crd-types.ts           writes the file
 *   node hack/generate-crd-types.ts --check   fails when the file is not what the CRDs make (make lint)
 */
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { parse } from 'yaml';

const root = path.resolve(import.meta.dirname, '..');
const output = path.join(root, 'operator/src/generated/crds.ts');

interface Crd {
  spec: {
    names: { kind: string };
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: { properties: { spec: object; status?: object } } };
    }[];
  };
}

const schemas: Record<string, object> = {};
const sources: string[] = [];
for (const file of (await readdir(path.join(root, 'crds'))).filter((f) => f.endsWith('.yaml')).sort()) {
  const crd = parse(await readFile(path.join(root, 'crds', file), 'utf8')) as Crd;
  const version = crd.spec.versions.find((v) => v.served && v.storage);
  if (!version) throw new Error(`crds/${file}: no served and stored version`);
  const { kind } = crd.spec.names;
  const { spec, status } = version.schema.openAPIV3Schema.properties;
  schemas[`${kind}Spec`] = withDefaultsRequired(spec);
  if (status) schemas[`${kind}Status`] = withDefaultsRequired(status);
  sources.push(`crds/${file} (${kind} ${version.name})`);
}

/**
 * A property with a default is always there in what the API server answers (it fills the default in): required
 * in the type, as a reader sees the resource. (openapi-typescript leaves such properties optional.)
 */
function withDefaultsRequired(schema: object): object {
  const s = schema as {
    properties?: Record<string, { default?: unknown }>;
    required?: string[];
    items?: object;
    additionalProperties?: object | boolean;
  };
  const copy: Record<string, unknown> = { ...s };
  if (s.properties) {
    copy.properties = Object.fromEntries(
      Object.entries(s.properties).map(([name, property]) => [name, withDefaultsRequired(property)]),
    );
    const defaulted = Object.entries(s.properties)
      .filter(([, property]) => property.default !== undefined)
      .map(([name]) => name);
    const required = [...new Set([...(s.required ?? []), ...defaulted])].sort();
    if (required.length) copy.required = required;
  }
  if (s.items) copy.items = withDefaultsRequired(s.items);
  if (s.additionalProperties && typeof s.additionalProperties === 'object')
    copy.additionalProperties = withDefaultsRequired(s.additionalProperties);
  return copy;
}

const ast = await openapiTS(
  {
    openapi: '3.0.3',
    info: { title: 'Exploit Grid resources', version: '1' },
    paths: {},
    components: { schemas },
  },
  { exportType: true, alphabetize: true, defaultNonNullable: true },
);
const text = `/**
 * GENERATED FILE: do not edit. Made by hack/generate-crd-types.ts from ${sources.join(', ')}.
 * Change the CRD and run \`make generate-crd-types\`; \`make lint\` fails while this file is behind.
 */
${astToString(ast)}`;

if (process.argv.includes('--check')) {
  const current = await readFile(output, 'utf8').catch(() => '');
  if (current !== text) {
    console.error(
      `generate-crd-types: ${path.relative(root, output)} is not what crds/*.yaml make: run make generate-crd-types`,
    );
    process.exit(1);
  }
  console.log('generate-crd-types: the resources’ types are what crds/*.yaml make');
} else {
  await writeFile(output, text);
  console.log(`Wrote ${path.relative(process.cwd(), output)}`);
}
