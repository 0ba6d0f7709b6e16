import type { Job, ResumeKind } from '@exploit-grid/api/contracts';
import {
  APPLICATION_LIMITS,
  APPLICATION_SOURCES,
  CAREERS_MESSAGES as M,
  RESUME_ACCEPT,
  type ApplicationSource,
} from '@exploit-grid/api/contracts/careers-constants';
import CloseIcon from '@mui/icons-material/Close';
import DescriptionIcon from '@mui/icons-material/DescriptionOutlined';
import UploadFileIcon from '@mui/icons-material/UploadFileOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import FormControl from '@mui/material/FormControl';
import FormHelperText from '@mui/material/FormHelperText';
import IconButton from '@mui/material/IconButton';
import InputLabel from '@mui/material/InputLabel';
import NativeSelect from '@mui/material/NativeSelect';
import OutlinedInput from '@mui/material/OutlinedInput';
import Typography from '@mui/material/Typography';
import { useId, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { ApiError, serverMessageOf } from '../../api/ApiError.ts';
import { log } from '../../logging.ts';
import { toast } from '../../notifications/toast.ts';
import {
  APPLICANT_LOCATION,
  APPLY_FAILED,
  APPLY_SUCCEEDED,
  APPLY_TITLE,
  CANCEL,
  CHOOSE_FILE,
  CLOSE,
  COVER_LETTER,
  EMAIL,
  FIRST_NAME,
  GITHUB_URL,
  LAST_NAME,
  LINKEDIN_URL,
  PHONE,
  PORTFOLIO_URL,
  REMOVE_RESUME,
  RESUME,
  RESUME_HINT,
  SOURCE_LABELS,
  SOURCE_NONE,
  SOURCE_QUESTION,
  SUBMIT_APPLICATION,
  SUBMITTING,
  UPLOADING,
} from '../../strings/careers.ts';
import { Field } from '../Field.tsx';
import { FormDialog } from '../FormDialog.tsx';
import { Stack } from '../Stack.tsx';
import { submitApplication, uploadResume } from './careersApi.ts';
import {
  EMPTY_APPLICATION,
  applicationErrors,
  applicationRequestOf,
  resumeFileProblem,
  type ApplicationErrors,
  type ApplicationForm,
} from './format.ts';

export type ApplyDialogProps = {
  job: Pick<Job, 'id' | 'title'>;
  open: boolean;
  onClose: () => void;
};

type Resume = { id: string; name: string; size: number; kind: ResumeKind };

const sizeText = (bytes: number) =>
  bytes < 1024 * 1024
    ? `${Math.max(1, Math.round(bytes / 1024))} KB`
    : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Why an upload failed, in the spec's words: the server's, else 'Upload failed', else the fallback. */
function uploadFailure(error: unknown): string {
  const message = serverMessageOf(error);
  if (message) return message;
  return error instanceof ApiError ? M.uploadFailed : M.uploadFallback;
}

/**
 * 'Apply for Position' (spec sections 2, 4, 5, 8): the applicant's fields, the resume (checked here by size and
 * name, uploaded at once, checked by content by the server), the source, Cancel and Submit Application. While
 * a file uploads or the application is sent, the buttons are disabled; on success the modal closes.
 */
export function ApplyDialog({ job, open, onClose }: ApplyDialogProps) {
  const sourceId = useId();
  const fileId = useId();
  const resumeMessageId = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [form, setForm] = useState<ApplicationForm>(EMPTY_APPLICATION);
  const [errors, setErrors] = useState<ApplicationErrors>({});
  const [resume, setResume] = useState<Resume | null>(null);
  const [uploading, setUploading] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const busy = uploading || submitting;

  const set = (field: keyof ApplicationForm) => (value: string) => {
    setForm((current) => ({ ...current, [field]: value }));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };

  function close() {
    if (busy) return;
    onClose();
  }

  async function chooseFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    // The same file may be chosen again after a failure or a removal.
    event.target.value = '';
    if (!file) return;
    const problem = resumeFileProblem(file);
    if (problem) {
      setErrors((current) => ({ ...current, resume: problem }));
      toast.error(problem);
      return;
    }
    setUploading(true);
    setErrors((current) => ({ ...current, resume: undefined }));
    try {
      const uploaded = await uploadResume(file, file.name);
      setResume({ id: uploaded.resumeId, name: file.name, size: uploaded.size, kind: uploaded.type });
      toast.success(M.uploadSucceeded);
    } catch (error) {
      if (!(error instanceof ApiError)) log.warn('The resume upload failed', error);
      const message = uploadFailure(error);
      setErrors((current) => ({ ...current, resume: message }));
      toast.error(message);
    } finally {
      setUploading(false);
    }
  }

  function removeResume() {
    setResume(null);
    setErrors((current) => ({ ...current, resume: undefined }));
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const found = applicationErrors(form, resume?.id ?? null);
    setErrors(found);
    if (Object.values(found).some(Boolean) || !resume) return;
    setSubmitting(true);
    try {
      await submitApplication(job.id, applicationRequestOf(form, resume.id));
      toast.success(APPLY_SUCCEEDED);
      setForm(EMPTY_APPLICATION);
      setResume(null);
      setErrors({});
      onClose();
    } catch (error) {
      toast.error(serverMessageOf(error) ?? APPLY_FAILED);
    } finally {
      setSubmitting(false);
    }
  }

  const field = (
    name: keyof ApplicationForm,
    label: string,
    options: { type?: 'email' | 'text'; autoComplete?: string; max: number; required?: boolean },
  ) => (
    <Field
      label={options.required ? `${label} *` : label}
      value={form[name]}
      onChange={set(name)}
      error={errors[name]}
      type={options.type}
      autoComplete={options.autoComplete}
      disabled={submitting}
      inputProps={{ maxLength: options.max, 'aria-required': options.required }}
      fullWidth
    />
  );

  return (
    <FormDialog
      open={open}
      title={APPLY_TITLE}
      subtitle={
        <Typography color="primary" sx={{ mt: 0.5 }}>
          {job.title}
        </Typography>
      }
      maxWidth="sm"
      busy={busy}
      onClose={close}
      onSubmit={submit}
      submitLabel={submitting ? SUBMITTING : SUBMIT_APPLICATION}
      cancelLabel={CANCEL}
      closeLabel={CLOSE}
    >
      <Stack spacing={2.5}>
        <Box sx={{ display: 'grid', gap: 2.5, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
          {field('firstName', FIRST_NAME, {
            autoComplete: 'given-name',
            max: APPLICATION_LIMITS.name,
            required: true,
          })}
          {field('lastName', LAST_NAME, {
            autoComplete: 'family-name',
            max: APPLICATION_LIMITS.name,
            required: true,
          })}
        </Box>
        {field('email', EMAIL, {
          type: 'email',
          autoComplete: 'email',
          max: APPLICATION_LIMITS.email,
          required: true,
        })}
        <Box sx={{ display: 'grid', gap: 2.5, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
          {field('phone', PHONE, { autoComplete: 'tel', max: APPLICATION_LIMITS.phone })}
          {field('location', APPLICANT_LOCATION, {
            autoComplete: 'address-level2',
            max: APPLICATION_LIMITS.location,
          })}
        </Box>
        <Box>
          <Typography variant="subtitle2" component="label" htmlFor={fileId} sx={{ display: 'block', mb: 1 }}>
            {RESUME} *
          </Typography>
          <Box
            sx={{
              border: 1,
              borderStyle: 'dashed',
              borderColor: errors.resume ? 'error.main' : resume ? 'success.main' : 'divider',
              borderRadius: 1,
              p: 2,
              display: 'flex',
              alignItems: 'center',
              gap: 2,
              flexWrap: 'wrap',
            }}
          >
            <input
              ref={fileInput}
              id={fileId}
              type="file"
              accept={RESUME_ACCEPT}
              onChange={chooseFile}
              disabled={busy}
              aria-describedby={resumeMessageId}
              style={{ display: 'none' }}
            />
            {resume ? (
              <>
                <DescriptionIcon color="success" />
                <Box sx={{ flex: 1, minWidth: 0 }}>
                  <Typography noWrap title={resume.name}>
                    {resume.name}
                  </Typography>
                  <Typography variant="body2" color="text.secondary">
                    {resume.kind.toUpperCase()} · {sizeText(resume.size)}
                  </Typography>
                </Box>
                <IconButton aria-label={REMOVE_RESUME} onClick={removeResume} disabled={busy}>
                  <CloseIcon />
                </IconButton>
              </>
            ) : (
              <>
                <Button
                  variant="outlined"
                  startIcon={uploading ? <CircularProgress size={16} color="inherit" /> : <UploadFileIcon />}
                  onClick={() => fileInput.current?.click()}
                  disabled={busy}
                >
                  {uploading ? UPLOADING : CHOOSE_FILE}
                </Button>
                <Typography variant="body2" color="text.secondary">
                  {RESUME_HINT}
                </Typography>
              </>
            )}
          </Box>
          <FormHelperText id={resumeMessageId} error={Boolean(errors.resume)}>
            {errors.resume ?? ''}
          </FormHelperText>
        </Box>
        {field('portfolioUrl', PORTFOLIO_URL, { autoComplete: 'url', max: APPLICATION_LIMITS.url })}
        <Box sx={{ display: 'grid', gap: 2.5, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
          {field('linkedinUrl', LINKEDIN_URL, { max: APPLICATION_LIMITS.url })}
          {field('githubUrl', GITHUB_URL, { max: APPLICATION_LIMITS.url })}
        </Box>
        <Field
          label={COVER_LETTER}
          value={form.coverLetter}
          onChange={set('coverLetter')}
          multiline
          minRows={4}
          disabled={submitting}
          inputProps={{ maxLength: APPLICATION_LIMITS.coverLetter }}
          fullWidth
        />
        <FormControl fullWidth>
          <InputLabel htmlFor={sourceId} shrink>
            {SOURCE_QUESTION}
          </InputLabel>
          <NativeSelect
            id={sourceId}
            value={form.source}
            onChange={(event) => set('source')(event.target.value as ApplicationSource | '')}
            disabled={submitting}
            input={<OutlinedInput label={SOURCE_QUESTION} notched />}
          >
            <option value="">{SOURCE_NONE}</option>
            {APPLICATION_SOURCES.map((source) => (
              <option key={source} value={source}>
                {SOURCE_LABELS[source]}
              </option>
            ))}
          </NativeSelect>
        </FormControl>
      </Stack>
    </FormDialog>
  );
}
