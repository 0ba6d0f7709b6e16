import type {
  ApplicationAccepted,
  ApplicationRequest,
  Job,
  JobCategories,
  ResumeUpload,
} from '@exploit-grid/api/contracts';
import {
  JOB_LEVELS,
  JOB_TYPES,
  RESUME_FIELD,
  RESUME_KINDS,
} from '@exploit-grid/api/contracts/careers-constants';
import { API_BASE } from '@exploit-grid/api/contracts/constants';
import { ApiError, parseRetryAfter } from '../../api/ApiError.ts';
import type { Parser } from '../../api/http.ts';
import { publicApi } from '../../api/publicClient.ts';
import { log } from '../../logging.ts';

/**
 * The careers calls of the public pages. Their answers are read by the small functions below, not by the
 * contracts' zod schemas (which the public pages do not download); a test holds them to those schemas.
 */

export type CareersFilters = {
  search: string;
  category: string;
  type: string;
  level: string;
  remoteOnly: boolean;
};
export const NO_FILTERS: CareersFilters = {
  search: '',
  category: '',
  type: '',
  level: '',
  remoteOnly: false,
};

/** The query of GET /careers: only the filters that are set (spec section 7). */
export function careersQuery(filters: CareersFilters): string {
  const query = new URLSearchParams();
  const search = filters.search.trim();
  if (search) query.set('search', search);
  if (filters.category) query.set('category', filters.category);
  if (filters.type) query.set('type', filters.type);
  if (filters.level) query.set('level', filters.level);
  if (filters.remoteOnly) query.set('remote', 'true');
  const text = query.toString();
  return text ? `?${text}` : '';
}

type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null;
const isText = (value: unknown): value is string => typeof value === 'string';
const isTextOrNull = (value: unknown) => value === null || isText(value);
const isCents = (value: unknown) =>
  value === null || (typeof value === 'number' && Number.isSafeInteger(value));
const isTexts = (value: unknown): value is string[] => Array.isArray(value) && value.every(isText);
const types: readonly unknown[] = JOB_TYPES;
const levels: readonly unknown[] = JOB_LEVELS;

/** A Job of the contracts (`jobSchema`), or null when the value is not one. */
export function readJob(value: unknown): Job | null {
  if (!isObject(value)) return null;
  const v = value;
  const ok =
    ['id', 'slug', 'title', 'shortDescription', 'description', 'requirements', 'category'].every((key) =>
      isText(v[key]),
    ) &&
    (v.preferred === undefined || isText(v.preferred)) &&
    types.includes(v.type) &&
    levels.includes(v.level) &&
    typeof v.remote === 'boolean' &&
    ['location', 'timezone', 'applicationUrl', 'applicationEmail'].every((key) => isTextOrNull(v[key])) &&
    isCents(v.salaryMin) &&
    isCents(v.salaryMax) &&
    isTexts(v.skills) &&
    isTexts(v.benefits) &&
    isText(v.publishedAt) &&
    isText(v.createdAt);
  return ok ? (v as unknown as Job) : null;
}

/**
 * The jobs of GET /careers: an object with jobs, or an array (spec section 7). Another shape is logged and
 * read as no job; a job that is not one is left out.
 */
export function readJobs(data: unknown): Job[] {
  const list = Array.isArray(data) ? data : isObject(data) && Array.isArray(data.jobs) ? data.jobs : null;
  if (!list) {
    log.warn('GET /careers answered an unexpected shape: no jobs shown');
    return [];
  }
  const jobs = list.map(readJob);
  if (jobs.includes(null)) log.warn('GET /careers answered jobs of an unexpected shape: left out');
  return jobs.filter((job): job is Job => job !== null);
}

export type JobCategory = JobCategories['categories'][number];

/** The categories of GET /careers/categories: an object with categories, or an array (spec section 7). */
export function readCategories(data: unknown): JobCategory[] {
  const list = Array.isArray(data)
    ? data
    : isObject(data) && Array.isArray(data.categories)
      ? data.categories
      : null;
  if (!list) {
    log.warn('GET /careers/categories answered an unexpected shape: no categories shown');
    return [];
  }
  return list.filter(
    (c): c is JobCategory =>
      isObject(c) && isText(c.category) && typeof c.count === 'number' && Number.isSafeInteger(c.count),
  );
}

const raw: Parser<unknown> = { parse: (data) => data };
const jobParser: Parser<Job> = {
  parse(data) {
    const job = readJob(data);
    if (!job) throw new Error('GET /careers/{slug}: not a job');
    return job;
  },
};

export async function fetchJobs(filters: CareersFilters): Promise<Job[]> {
  return readJobs(await publicApi.get(`/careers${careersQuery(filters)}`, raw));
}

export async function fetchCategories(): Promise<JobCategory[]> {
  return readCategories(await publicApi.get('/careers/categories', raw));
}

export function fetchJob(slug: string): Promise<Job> {
  return publicApi.get(`/careers/${encodeURIComponent(slug)}`, jobParser);
}

const kinds: readonly unknown[] = RESUME_KINDS;

/**
 * POST /careers/resumes: the file as one multipart field. An error answer rejects with an ApiError (with the
 * server's message, when it has one); no answer at all rejects with fetch's own error.
 */
export async function uploadResume(file: Blob, name: string): Promise<ResumeUpload> {
  const form = new FormData();
  form.append(RESUME_FIELD, file, name);
  const response = await globalThis.fetch(`${API_BASE}/careers/resumes`, {
    method: 'POST',
    headers: { Accept: 'application/json' },
    body: form,
    credentials: 'same-origin',
  });
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON: no message to show.
  }
  if (!response.ok) {
    const message = isObject(body) && isText(body.message) && body.message ? body.message : undefined;
    throw new ApiError(response.status, message, parseRetryAfter(response.headers.get('Retry-After')));
  }
  if (
    !isObject(body) ||
    !isText(body.resumeId) ||
    !kinds.includes(body.type) ||
    typeof body.size !== 'number'
  )
    throw new Error('POST /careers/resumes: not an upload');
  return body as unknown as ResumeUpload;
}

const accepted: Parser<ApplicationAccepted> = {
  parse(data) {
    if (!isObject(data) || !isText(data.applicationId)) throw new Error('POST /careers/{jobId}/apply');
    return { applicationId: data.applicationId };
  },
};

export function submitApplication(
  jobId: string,
  application: ApplicationRequest,
): Promise<ApplicationAccepted> {
  return publicApi.post(`/careers/${encodeURIComponent(jobId)}/apply`, accepted, { body: application });
}
