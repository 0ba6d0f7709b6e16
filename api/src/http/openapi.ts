import { createDocument, type ZodOpenApiPathsObject } from 'zod-openapi';

export type OpenApiDocument = ReturnType<typeof createDocument>;

/** Builds the OpenAPI 3.1 document from the routers' zod schemas. */
export function buildOpenApiDocument(options: {
  version: string;
  serverUrl: string;
  paths: ZodOpenApiPathsObject;
}): OpenApiDocument {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Exploit Grid API',
      version: options.version,
      description: 'REST API of Exploit Grid. Errors are `{statusCode, message, error}`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: options.serverUrl }],
    paths: options.paths,
  });
}
