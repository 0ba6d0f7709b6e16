import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Router } from 'express';
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { errorSchema } from '../contracts/index.ts';
import { HttpError, badRequest } from './errors.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type AnyObject = z.ZodType<Record<string, unknown>, Record<string, unknown>>;

/** One endpoint: its validation schemas, its documentation and its handler, side by side. */
export interface RouteDef<
  P extends AnyObject,
  Q extends AnyObject,
  B extends z.ZodType,
  R extends z.ZodType,
> {
  method: Method;
  /** Express path syntax (`/boxes/:id`); documented as `/boxes/{id}`. */
  path: string;
  summary: string;
  tags?: string[];
  params?: P;
  query?: Q;
  body?: B;
  /**
   * A body the handler reads as it came (`req.body` a Buffer from express.raw in `before`): documented, not
   * parsed (payment webhooks, whose signatures cover the exact bytes).
   */
  rawBody?: { contentType: string; description: string };
  /** Schema of the success answer; none for answers without a body (204, redirects). */
  response?: R;
  status?: number;
  /** Extra documented answers, besides the success one and the standard 400/500. */
  errors?: Record<number, string>;
  /** Middleware that runs before validation (authentication, rate limits). */
  before?: RequestHandler[];
  handler: (input: {
    params: z.output<P>;
    query: z.output<Q>;
    body: z.output<B>;
    req: Request;
    res: Response;
  }) => Promise<z.input<R>> | z.input<R>;
}

/** Turns the first zod issue into a sentence a person can act on. */
export function describeIssue(where: string, error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return `Invalid ${where}.`;
  if (issue.code === 'unrecognized_keys') {
    return `Unknown field${issue.keys.length > 1 ? 's' : ''} in ${where}: ${issue.keys.join(', ')}.`;
  }
  const field = issue.path.map(String).join('.');
  const message = issue.message.replace(/\.$/, '');
  return field ? `${field}: ${message}.` : `Invalid ${where}: ${message}.`;
}

function parse<T extends z.ZodType>(schema: T | undefined, value: unknown, where: string): z.output<T> {
  if (!schema) return undefined as z.output<T>;
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(describeIssue(where, result.error));
  return result.data;
}

/**
 * A router whose routes validate their input with zod and describe themselves for
 * the OpenAPI document (STYLE 9: one schema per endpoint, enforced in one place).
 */
export class ApiRouter {
  readonly router = Router();
  readonly #paths: ZodOpenApiPathsObject = {};
  readonly #routes: KnownRoute[] = [];

  route<
    P extends AnyObject = z.ZodObject<Record<string, never>>,
    Q extends AnyObject = z.ZodObject<Record<string, never>>,
    B extends z.ZodType = z.ZodUndefined,
    R extends z.ZodType = z.ZodType,
  >(def: RouteDef<P, Q, B, R>): this {
    const status = def.status ?? 200;
    const handler = async (req: Request, res: Response, next: NextFunction) => {
      try {
        const params = parse(def.params, req.params, 'path');
        // Without a query schema any query string is refused; skip parsing when there is none.
        const query = (
          def.query || req.url.includes('?') ? parse(def.query ?? strictEmpty, req.query, 'query string') : {}
        ) as z.output<Q>;
        const body = def.body ? parse(def.body, req.body, 'request body') : undefined;
        const result = await def.handler({ params, query, body: body as z.output<B>, req, res });
        if (res.headersSent) return;
        if (result === undefined) res.status(status === 200 ? 204 : status).end();
        else res.status(status).json(result);
      } catch (err) {
        next(err);
      }
    };
    this.router[def.method](def.path, ...(def.before ?? []), handler);
    this.#routes.push({ method: def.method, path: def.path });
    this.#document(def, status);
    return this;
  }

  #document(def: RouteDef<AnyObject, AnyObject, z.ZodType, z.ZodType>, status: number) {
    const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
    const responses: ZodOpenApiOperationObject['responses'] = {
      [status]: def.response
        ? { description: 'Success', ...json(def.response) }
        : { description: status >= 300 && status < 400 ? 'Redirect' : 'No content' },
      400: { description: 'Invalid input', ...json(errorSchema) },
    };
    for (const [code, description] of Object.entries(def.errors ?? {})) {
      responses[code as `${1 | 2 | 3 | 4 | 5}${string}`] = { description, ...json(errorSchema) };
    }
    const operation: ZodOpenApiOperationObject = {
      summary: def.summary,
      tags: def.tags,
      requestParams: {
        ...(def.params ? { path: def.params } : {}),
        ...(def.query ? { query: def.query } : {}),
      },
      ...(def.body ? { requestBody: { required: true, ...json(def.body) } } : {}),
      ...(def.rawBody
        ? {
            requestBody: {
              required: true,
              description: def.rawBody.description,
              content: { [def.rawBody.contentType]: { schema: z.string() } },
            },
          }
        : {}),
      responses,
    };
    const openApiPath = def.path.replace(/:(\w+)/g, '{$1}');
    this.#paths[openApiPath] = { ...this.#paths[openApiPath], [def.method]: operation };
  }

  /** Its routes (Express path syntax), prefixed with where the router is mounted. */
  routes(prefix = ''): KnownRoute[] {
    return this.#routes.map((r) => ({ method: r.method, path: `${prefix}${r.path}` }));
  }

  /** The documented paths, relative to where the router is mounted. */
  paths(prefix = ''): ZodOpenApiPathsObject {
    return Object.fromEntries(Object.entries(this.#paths).map(([p, item]) => [`${prefix}${p}`, item]));
  }
}

const strictEmpty = z.strictObject({});

/** A route the application serves: its method and its path in Express syntax (`/boxes/:id`). */
export interface KnownRoute {
  method: string;
  path: string;
}

/**
 * Answers for the methods of a known path (RFC 9110): OPTIONS gets 204 and `Allow`; a method the path does
 * not serve gets 405 and `Allow`, instead of a 404 that says the path does not exist. Mounted before the
 * routes. Where several routes match (`/boxes/my` and `/boxes/:id`), the most specific ones (fewest
 * parameters) decide, as the OpenAPI document describes them.
 */
export function allowedMethods(routes: KnownRoute[]): RequestHandler {
  const byPattern = new Map<string, { params: number; methods: Set<string> }>();
  for (const { method, path } of routes) {
    const parts = path.split('/');
    const pattern = parts
      .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const entry = byPattern.get(pattern) ?? {
      params: parts.filter((p) => p.startsWith(':')).length,
      methods: new Set<string>(['OPTIONS']),
    };
    entry.methods.add(method.toUpperCase());
    // Express answers HEAD with a GET route.
    if (method === 'get') entry.methods.add('HEAD');
    byPattern.set(pattern, entry);
  }
  const known = [...byPattern].map(([pattern, entry]) => ({
    regex: new RegExp(`^${pattern}/?$`, 'i'),
    ...entry,
  }));
  return (req, res, next) => {
    let fewest = Infinity;
    const allowed = new Set<string>();
    for (const { regex, params, methods } of known) {
      if (params > fewest || !regex.test(req.path)) continue;
      if (params < fewest) allowed.clear();
      fewest = params;
      for (const m of methods) allowed.add(m);
    }
    if (allowed.size === 0 || (allowed.has(req.method) && req.method !== 'OPTIONS')) {
      next();
      return;
    }
    const allow = [...allowed].join(', ');
    if (req.method === 'OPTIONS') {
      res.set('Allow', allow).status(204).end();
      return;
    }
    next(
      new HttpError(405, `${req.method} is not supported here; use ${allow}.`, { headers: { Allow: allow } }),
    );
  };
}
