import type { ApplicationRequest, ApplicationSource, Job } from '@exploit-grid/api/contracts';
import {
  APPLICATION_LIMITS,
  CAREERS_MESSAGES as M,
  RESUME_MAX_BYTES,
  isWebUrl,
} from '@exploit-grid/api/contracts/careers-constants';
import {
  LEVEL_LABELS,
  OFFICE,
  REMOTE,
  TYPE_LABELS,
  categoryLabel,
  salaryFrom,
  salaryRange,
  salaryUpTo,
  thousands,
} from '../../strings/careers.ts';

/** '$120k - $160k', 'From $120k', 'Up to $160k', or null without a salary (from cents). */
export function salaryText(job: Pick<Job, 'salaryMin' | 'salaryMax'>): string | null {
  const { salaryMin: min, salaryMax: max } = job;
  if (min !== null && max !== null) return salaryRange(thousands(min), thousands(max));
  if (min !== null) return salaryFrom(thousands(min));
  if (max !== null) return salaryUpTo(thousands(max));
  return null;
}

/** 'Remote' if remote, else the location, else 'Office' (spec section 2). */
export const locationText = (job: Pick<Job, 'remote' | 'location'>) =>
  job.remote ? REMOTE : job.location || OFFICE;

/** 'SECURITY · Full Time · Senior': the line under a job's title. */
export const jobLine = (job: Pick<Job, 'category' | 'type' | 'level'>) =>
  [categoryLabel(job.category), TYPE_LABELS[job.type], LEVEL_LABELS[job.level]].join(' · ');

/** The job's external application form, only when it is an http(s) address (anything else opens the modal). */
export const externalApplication = (job: Pick<Job, 'applicationUrl'>): string | null =>
  job.applicationUrl && isWebUrl(job.applicationUrl) ? job.applicationUrl : null;

const RESUME_EXTENSIONS = ['.pdf', '.doc', '.docx'];
const RESUME_TYPES = [
  'application/pdf',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
];

/**
 * Why a chosen file cannot be a resume, before it is sent: its size, then its name or declared type (the
 * server decides by content). Null when it may be sent.
 */
export function resumeFileProblem(file: { name: string; size: number; type: string }): string | null {
  if (file.size > RESUME_MAX_BYTES) return M.resumeTooLarge;
  const name = file.name.toLowerCase();
  const named = RESUME_EXTENSIONS.some((ext) => name.endsWith(ext));
  if (!named && !RESUME_TYPES.includes(file.type)) return M.resumeWrongType;
  return null;
}

export type ApplicationForm = {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  location: string;
  coverLetter: string;
  portfolioUrl: string;
  linkedinUrl: string;
  githubUrl: string;
  source: ApplicationSource | '';
};
export type ApplicationField = keyof ApplicationForm | 'resume';
export type ApplicationErrors = Partial<Record<ApplicationField, string>>;

export const EMPTY_APPLICATION: ApplicationForm = {
  firstName: '',
  lastName: '',
  email: '',
  phone: '',
  location: '',
  coverLetter: '',
  portfolioUrl: '',
  linkedinUrl: '',
  githubUrl: '',
  source: '',
};

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The spec's rules of the form (section 5), as the API checks them too: each field's first problem. */
export function applicationErrors(form: ApplicationForm, resumeId: string | null): ApplicationErrors {
  const errors: ApplicationErrors = {};
  if (!form.firstName.trim()) errors.firstName = M.firstNameRequired;
  if (!form.lastName.trim()) errors.lastName = M.lastNameRequired;
  const email = form.email.trim();
  if (!email) errors.email = M.emailRequired;
  else if (email.length > APPLICATION_LIMITS.email || !EMAIL_SHAPE.test(email)) errors.email = M.emailInvalid;
  if (!resumeId) errors.resume = M.resumeRequired;
  const url = (value: string) => value.trim() === '' || isWebUrl(value.trim());
  if (!url(form.portfolioUrl)) errors.portfolioUrl = M.portfolioInvalid;
  if (!url(form.linkedinUrl)) errors.linkedinUrl = M.linkedinInvalid;
  if (!url(form.githubUrl)) errors.githubUrl = M.githubInvalid;
  return errors;
}

/** The request the form makes: text trimmed, empty optional fields left out (spec section 5). */
export function applicationRequestOf(form: ApplicationForm, resumeId: string): ApplicationRequest {
  const optional = (value: string) => (value.trim() ? value.trim() : undefined);
  return {
    firstName: form.firstName.trim(),
    lastName: form.lastName.trim(),
    email: form.email.trim(),
    phone: optional(form.phone),
    location: optional(form.location),
    coverLetter: optional(form.coverLetter),
    resumeId,
    portfolioUrl: optional(form.portfolioUrl),
    linkedinUrl: optional(form.linkedinUrl),
    githubUrl: optional(form.githubUrl),
    source: form.source || undefined,
  };
}
