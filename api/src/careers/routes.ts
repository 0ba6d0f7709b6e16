import type { RequestHandler } from 'express';
import {
  APPLICATION_FIELD_MESSAGES,
  RESUME_FIELD,
  RESUME_MAX_BYTES,
  applicationAcceptedSchema,
  applicationRequest,
  careersQuery,
  jobCategoriesSchema,
  jobIdParams,
  jobListSchema,
  jobSchema,
  jobSlugParams,
  resumeUploadSchema,
} from '../contracts/index.ts';
import { badRequest } from '../http/errors.ts';
import { ApiRouter } from '../http/route.ts';
import type { CareersService } from './service.ts';

/**
 * The spec's texts of the application form come back as they are (`{message: 'First name is required'}`),
 * which the modal shows; other problems (unknown fields, lengths) keep the router's 'field: message'.
 */
const applicationMessages: RequestHandler = (req, _res, next) => {
  const parsed = applicationRequest.safeParse(req.body);
  const issue = parsed.success ? undefined : parsed.error.issues[0];
  next(issue && APPLICATION_FIELD_MESSAGES.has(issue.message) ? badRequest(issue.message) : undefined);
};

/** Careers, public (no sign-in): open jobs, categories, resume upload and applications (docs/careers.md). */
export function careersRoutes(deps: { careers: CareersService }): ApiRouter {
  const { careers } = deps;
  return (
    new ApiRouter()
      .route({
        method: 'get',
        path: '/careers',
        summary: 'The open jobs, newest first, filtered by every filter given',
        tags: ['careers'],
        query: careersQuery,
        response: jobListSchema,
        handler: ({ query }) => careers.list(query),
      })
      .route({
        method: 'get',
        path: '/careers/categories',
        summary: 'The categories of the open jobs, with how many each has',
        tags: ['careers'],
        response: jobCategoriesSchema,
        handler: () => careers.categories(),
      })
      // Before /careers/:slug's siblings: 'categories' and 'resumes' are not slugs (the CLI refuses them).
      .route({
        method: 'post',
        path: '/careers/resumes',
        summary: 'Upload a resume (PDF, DOC or DOCX, checked by content) for an application within the hour',
        tags: ['careers'],
        rawBody: {
          contentType: 'multipart/form-data',
          description: `One file in the field "${RESUME_FIELD}", at most ${RESUME_MAX_BYTES} bytes. Its content decides: a PDF, a Word 97-2003 document or a Word document; its name and declared type are not trusted.`,
        },
        status: 201,
        response: resumeUploadSchema,
        errors: {
          413: 'The file is larger than 5 MB',
          415: 'The content is not a PDF, DOC or DOCX file',
          429: 'Too many uploads (Retry-After says when to try again)',
        },
        handler: ({ req }) => careers.uploadResume(req),
      })
      .route({
        method: 'get',
        path: '/careers/:slug',
        summary: 'An open job',
        tags: ['careers'],
        params: jobSlugParams,
        response: jobSchema,
        errors: { 404: 'No open job has this slug' },
        handler: ({ params }) => careers.bySlug(params.slug),
      })
      .route({
        method: 'post',
        path: '/careers/:jobId/apply',
        summary:
          'Apply for an open job with an uploaded resume (staff are mailed, the applicant acknowledged)',
        tags: ['careers'],
        params: jobIdParams,
        body: applicationRequest,
        before: [applicationMessages],
        status: 201,
        response: applicationAcceptedSchema,
        errors: {
          404: 'No such job',
          409: 'The job is closed, or the resume expired or is part of another application',
          429: 'Too many applications (Retry-After says when to try again)',
        },
        handler: ({ params, body, req }) => careers.apply(params.jobId, body, req.ip ?? 'unknown'),
      })
  );
}
