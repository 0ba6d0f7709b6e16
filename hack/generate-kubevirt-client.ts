/**
 * Generates the operator's typed KubeVirt API (operator/src/generated/kubevirt.ts) from the
 * KubeVirt OpenAPI description: Swagger 2.0, converted to OpenAPI 3 with swagger2openapi, then
 * typed with openapi-typescript.
 *
 *   node hack/generate-kubevirt-client.ts [spec path or URL]
 *
 * Default: the description published with the pinned KubeVirt release. The output is committed
 * and marked generated; regenerate after changing the release.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import swagger2openapi from 'swagger2openapi';

const KUBEVIRT_VERSION = 'v1.9.0';
const UPSTREAM = `https://raw.githubusercontent.com/kubevirt/kubevirt/${KUBEVIRT_VERSION}/api/openapi-spec/swagger.json`;

const root = path.resolve(import.meta.dirname, '..');
const source = process.argv[2] ?? UPSTREAM;
const output = path.join(root, 'operator/src/generated/kubevirt.ts');

async function load(from: string): Promise<unknown> {
  if (/^https?:\/\//.test(from)) {
    const response = await fetch(from);
    if (!response.ok) throw new Error(`${from}: HTTP ${response.status}`);
    return response.json();
  }
  return JSON.parse(await readFile(from, 'utf8'));
}

const swagger = (await load(source)) as { swagger?: string };
if (swagger.swagger !== '2.0') throw new Error(`${source} is not a Swagger 2.0 description`);
const { openapi } = (await swagger2openapi.convertObj(swagger, { patch: true, warnOnly: true })) as {
  openapi: object;
};
const ast = await openapiTS(openapi as Parameters<typeof openapiTS>[0], {
  // KubeVirt's paths are served through the cluster's API server: the schemas are what the operator uses.
  exportType: true,
  alphabetize: true,
});
const header = `/**
 * GENERATED FILE: do not edit. Made by hack/generate-kubevirt-client.ts from the KubeVirt
 * ${KUBEVIRT_VERSION} API description (Swagger 2.0 → OpenAPI 3 → openapi-typescript).
 * Source: ${/^https?:/.test(source) ? source : path.basename(source)}.
 */
`;
await writeFile(output, header + astToString(ast));
console.log(`Wrote ${path.relative(process.cwd(), output)}`);
