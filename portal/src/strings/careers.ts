/**
 * Careers: /careers, /careers/jobs/{slug} and the 'Apply for Position' modal (commerce-and-content sections 2,
 * 4, 5, 8). The rules' and the upload's texts come from the API's contracts (CAREERS_MESSAGES).
 */
import {
  CAREERS_MESSAGES,
  type ApplicationSource,
  type JobLevel,
  type JobType,
} from '@exploit-grid/api/contracts/careers-constants';

export const CAREERS_TITLE = 'Careers';
export const CAREERS_HEADLINE = 'Join the Grid';
export const CAREERS_LEAD =
  'We build the arena where attackers and defenders sharpen their craft on real machines. Our team is small, remote-friendly and made of the same people we build for: red teamers, blue teamers and the engineers who keep a few thousand boxes booting. Come build it with us.';
export const CAREERS_DESCRIPTION =
  'Open positions at Exploit Grid: security, engineering and more. Build the live-fire hacking arena with a small, remote-friendly team.';

// The filter sidebar.
export const FILTERS_TITLE = 'Filters';
export const SEARCH_PLACEHOLDER = 'Search jobs...';
export const SEARCH_LABEL = 'Search jobs';
export const CATEGORY_LABEL = 'Category';
export const ALL_CATEGORIES = 'All Categories';
export const TYPE_LABEL = 'Job Type';
export const ALL_TYPES = 'All Types';
export const LEVEL_LABEL = 'Experience Level';
export const ALL_LEVELS = 'All Levels';
export const REMOTE_ONLY = 'Remote Only';
export const CLEAR_ALL_FILTERS = 'Clear All Filters';

// The list.
export const OPEN_POSITIONS = 'Open Positions';
export const positionsFound = (count: number) => `${count} position${count === 1 ? '' : 's'} found`;
export const LOADING_POSITIONS = 'Loading open positions';
export const NO_POSITIONS_TITLE = 'No Open Positions Right Now';
export const NO_POSITIONS_BODY = 'No position matches these filters at the moment. Try others, or ';
export const NO_POSITIONS_CONTACT = 'contact us';
export const NO_POSITIONS_AFTER = ' and tell us what you would bring.';
export const CLEAR_FILTERS = 'Clear Filters';
export const PERFECT_ROLE_TITLE = "Don't See Your Perfect Role?";
export const PERFECT_ROLE_BODY =
  "We're always glad to hear from people who know how systems break and how to keep them standing. Send us your resume and a few lines about what you'd like to work on at ";
export const moreSkills = (count: number) => `+${count} more`;
export const VIEW_DETAILS = 'View Details';

// A job.
export const BACK = 'Back';
export const BACK_TO_CAREERS = 'Back to Careers';
export const ABOUT_THE_ROLE = 'About the role';
export const REQUIREMENTS = 'Requirements';
export const PREFERRED = 'Preferred';
export const LOCATION = 'Location';
export const REMOTE = 'Remote';
export const OFFICE = 'Office';
export const LEVEL = 'Level';
export const SALARY_RANGE = 'Salary Range';
export const TIMEZONE = 'Timezone';
export const KEY_SKILLS = 'Key Skills';
export const BENEFITS = 'Benefits';
export const APPLY_NOW = 'Apply Now';
export const APPLY_BY_EMAIL = 'Or email';
export const JOB_LOADING = 'Loading the position';

/** Salaries in whole thousands of dollars from cents (spec sections 3, 9): '$120k'. */
export const thousands = (cents: number) => `$${Math.round(cents / 100_000)}k`;
export const salaryFrom = (amount: string) => `From ${amount}`;
export const salaryUpTo = (amount: string) => `Up to ${amount}`;
export const salaryRange = (min: string, max: string) => `${min} - ${max}`;

export const TYPE_LABELS: Record<JobType, string> = {
  FULL_TIME: 'Full Time',
  PART_TIME: 'Part Time',
  CONTRACT: 'Contract',
  INTERNSHIP: 'Internship',
};
export const LEVEL_LABELS: Record<JobLevel, string> = {
  ENTRY: 'Entry',
  JUNIOR: 'Junior',
  SENIOR: 'Senior',
  LEAD: 'Lead',
  PRINCIPAL: 'Principal',
  DIRECTOR: 'Director',
  EXECUTIVE: 'Executive',
};
/** A category as shown: underscores become spaces (spec section 2). */
export const categoryLabel = (category: string) => category.replace(/_/g, ' ');
export const categoryOption = (category: string, count: number) => `${categoryLabel(category)} (${count})`;

// The 'Apply for Position' modal.
export const APPLY_TITLE = 'Apply for Position';
export const FIRST_NAME = 'First Name';
export const LAST_NAME = 'Last Name';
export const EMAIL = 'Email';
export const PHONE = 'Phone';
export const APPLICANT_LOCATION = 'Location';
export const COVER_LETTER = 'Cover Letter';
export const PORTFOLIO_URL = 'Portfolio URL';
export const LINKEDIN_URL = 'LinkedIn URL';
export const GITHUB_URL = 'GitHub URL';
export const RESUME = 'Resume';
export const RESUME_HINT = CAREERS_MESSAGES.resumeHint;
export const CHOOSE_FILE = 'Choose a file';
export const UPLOADING = 'Uploading...';
export const REMOVE_RESUME = 'Remove resume';
export const SOURCE_QUESTION = 'How did you hear about this position?';
export const SOURCE_NONE = 'Select an option';
export const SOURCE_LABELS: Record<ApplicationSource, string> = {
  website: 'Website',
  linkedin: 'LinkedIn',
  twitter: 'Twitter',
  github: 'GitHub',
  referral: 'Employee Referral',
  recruiter: 'Recruiter',
  job_board: 'Job Board',
  other: 'Other',
};
export const CANCEL = 'Cancel';
export const CLOSE = 'Close';
export const SUBMIT_APPLICATION = 'Submit Application';
export const SUBMITTING = 'Submitting...';
export const APPLY_SUCCEEDED = CAREERS_MESSAGES.applySucceeded;
export const APPLY_FAILED = CAREERS_MESSAGES.applyFailed;
