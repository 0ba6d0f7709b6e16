/**
 * Careers (commerce-and-content sections 2-5, 8, 9; docs/careers.md): the plain values, with no zod, so that
 * /careers and the application modal read them without downloading the schemas (re-exported by
 * `constants.ts`).
 */

export const JOB_TYPES = ['FULL_TIME', 'PART_TIME', 'CONTRACT', 'INTERNSHIP'] as const;
export type JobType = (typeof JOB_TYPES)[number];

export const JOB_LEVELS = [
  'ENTRY',
  'JUNIOR',
  'SENIOR',
  'LEAD',
  'PRINCIPAL',
  'DIRECTOR',
  'EXECUTIVE',
] as const;
export type JobLevel = (typeof JOB_LEVELS)[number];

/** 'How did you hear about this position?' (spec section 2, the modal). */
export const APPLICATION_SOURCES = [
  'website',
  'linkedin',
  'twitter',
  'github',
  'referral',
  'recruiter',
  'job_board',
  'other',
] as const;
export type ApplicationSource = (typeof APPLICATION_SOURCES)[number];

/** A category: capitals, digits and underscores ('SECURITY', 'RED_TEAM'); shown with spaces for underscores. */
export const JOB_CATEGORY_PATTERN = /^[A-Z][A-Z0-9_]{0,39}$/;
/** A job's address in /careers/jobs/{slug}: lowercase words joined by hyphens. */
export const JOB_SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const JOB_SLUG_MAX = 80;
/** The text search of the filter sidebar: at most this many characters. */
export const CAREERS_SEARCH_MAX = 100;
/** The list answers at most this many open jobs (newest first). */
export const CAREERS_LIST_MAX = 200;

/** Resume files (spec section 9): at most 5 MB, PDF, DOC or DOCX, told apart by their content. */
export const RESUME_MAX_BYTES = 5 * 1024 * 1024;
export const RESUME_KINDS = ['pdf', 'doc', 'docx'] as const;
export type ResumeKind = (typeof RESUME_KINDS)[number];
/** The multipart field of `POST /careers/resumes` that carries the file. */
export const RESUME_FIELD = 'resume';
/** What the file picker offers: the extensions and media types of the three kinds. */
export const RESUME_ACCEPT =
  '.pdf,.doc,.docx,application/pdf,application/msword,application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** Limits of the application's fields (characters). */
export const APPLICATION_LIMITS = {
  name: 100,
  email: 254,
  phone: 40,
  location: 120,
  coverLetter: 10_000,
  url: 500,
} as const;

/** An http or https address with a host (what a person can open). */
export function isWebUrl(value: string): boolean {
  if (value.length > APPLICATION_LIMITS.url) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * Texts of the spec (sections 5 and 8), and this platform's own where the spec has none (the upload is real
 * here: what the server says of a file it refuses, a resume used twice, a closed job).
 */
export const CAREERS_MESSAGES = {
  firstNameRequired: 'First name is required',
  lastNameRequired: 'Last name is required',
  emailRequired: 'Email is required',
  emailInvalid: 'Please enter a valid email address',
  resumeRequired: 'Resume is required',
  portfolioInvalid: 'Please enter a valid portfolio URL',
  linkedinInvalid: 'Please enter a valid LinkedIn URL',
  githubInvalid: 'Please enter a valid GitHub URL',
  resumeHint: 'PDF, DOC, DOCX up to 5MB',
  resumeTooLarge: 'File size must be less than 5MB',
  resumeWrongType: 'Only PDF, DOC, and DOCX files are allowed',
  uploadSucceeded: 'Resume uploaded successfully',
  uploadFailed: 'Upload failed',
  uploadFallback: 'Failed to upload resume',
  applySucceeded: "Application submitted successfully! We'll be in touch soon.",
  applyFailed: 'Failed to submit application. Please try again.',
  /** A resume id that is unknown, expired (an hour after its upload) or already part of an application. */
  resumeUnusable: 'That resume upload has expired or was already used. Upload your resume again.',
  jobClosed: 'This position is no longer open.',
  jobNotFound: 'Job not found.',
  /** A multipart body with other parts than the one file. */
  uploadMalformed: `Send one file in the form field "${RESUME_FIELD}".`,
} as const;
