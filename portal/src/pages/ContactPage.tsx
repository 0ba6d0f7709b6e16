import { EMAIL_MAX } from '@exploit-grid/api/contracts/constants';
import {
  CONTACT_MESSAGE_MAX,
  CONTACT_MESSAGE_REQUIRED,
  CONTACT_NAME_MAX,
  CONTACT_NAME_REQUIRED,
  CONTACT_SENT,
  CONTACT_SUBJECT_MAX,
  CONTACT_SUBJECT_REQUIRED,
  INQUIRY_TYPES,
  type InquiryType,
} from '@exploit-grid/api/contracts/contact-constants';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import FormControl from '@mui/material/FormControl';
import InputLabel from '@mui/material/InputLabel';
import Link from '@mui/material/Link';
import NativeSelect from '@mui/material/NativeSelect';
import OutlinedInput from '@mui/material/OutlinedInput';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { useId, useState, type FormEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import { serverMessageOf } from '../api/ApiError.ts';
import { publicApi } from '../api/publicClient.ts';
import { Field } from '../components/Field.tsx';
import { PublicPage } from '../components/PublicPage.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { Stack } from '../components/Stack.tsx';
import { toast } from '../notifications/toast.ts';
import { paths } from '../routes/paths.ts';
import {
  CONTACT_DESCRIPTION,
  CONTACT_EMAIL,
  CONTACT_EMAIL_INVALID,
  CONTACT_EMAIL_REQUIRED,
  CONTACT_FAILED,
  CONTACT_INQUIRY_TYPE,
  CONTACT_LEAD,
  CONTACT_MESSAGE,
  CONTACT_NAME,
  CONTACT_PRIVACY_LINK,
  CONTACT_PRIVACY_NOTE,
  CONTACT_SECURITY_BODY,
  CONTACT_SECURITY_LINK,
  CONTACT_SECURITY_TITLE,
  CONTACT_SEND,
  CONTACT_SENDING,
  CONTACT_SUBJECT,
  CONTACT_TITLE,
  INQUIRY_LABELS,
} from '../strings/contact.ts';

export type ContactPageProps = Record<string, never>;

type Form = { name: string; email: string; subject: string; message: string; inquiryType: InquiryType };
type Errors = Partial<Record<keyof Form, string>>;

const EMPTY: Form = { name: '', email: '', subject: '', message: '', inquiryType: 'general' };
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The checks the API makes too (contracts/contact.ts), so a visitor learns what is missing before sending. */
export function contactErrors(form: Form): Errors {
  const errors: Errors = {};
  if (!form.name.trim()) errors.name = CONTACT_NAME_REQUIRED;
  if (!form.email.trim()) errors.email = CONTACT_EMAIL_REQUIRED;
  else if (!EMAIL_SHAPE.test(form.email.trim())) errors.email = CONTACT_EMAIL_INVALID;
  if (!form.subject.trim()) errors.subject = CONTACT_SUBJECT_REQUIRED;
  if (!form.message.trim()) errors.message = CONTACT_MESSAGE_REQUIRED;
  return errors;
}

/** /contact: the contact form (name, email, subject, inquiry type, message), mailed to the team. */
export function ContactPage(_props: ContactPageProps) {
  usePageMeta({ title: CONTACT_TITLE, description: CONTACT_DESCRIPTION });
  const [form, setForm] = useState<Form>(EMPTY);
  const [errors, setErrors] = useState<Errors>({});
  const [sending, setSending] = useState(false);
  const typeId = useId();

  const set = (field: keyof Form) => (value: string) => {
    setForm((current) => ({ ...current, [field]: value }));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (sending) return;
    const found = contactErrors(form);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setSending(true);
    try {
      await publicApi.post(
        '/contact',
        { parse: () => undefined },
        {
          body: {
            name: form.name.trim(),
            email: form.email.trim(),
            subject: form.subject.trim(),
            message: form.message.trim(),
            inquiryType: form.inquiryType,
          },
        },
      );
      toast.success(CONTACT_SENT);
      setForm(EMPTY);
    } catch (error) {
      toast.error(serverMessageOf(error) ?? CONTACT_FAILED);
    } finally {
      setSending(false);
    }
  }

  return (
    <PublicPage title={CONTACT_TITLE} lead={CONTACT_LEAD}>
      <Box
        sx={{
          display: 'grid',
          gap: 4,
          gridTemplateColumns: { xs: '1fr', md: '2fr 1fr' },
          alignItems: 'start',
        }}
      >
        <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
          <Stack component="form" noValidate onSubmit={submit} spacing={2.5} aria-label={CONTACT_TITLE}>
            <Box sx={{ display: 'grid', gap: 2.5, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
              <Field
                label={CONTACT_NAME}
                value={form.name}
                onChange={set('name')}
                error={errors.name}
                autoComplete="name"
                inputProps={{ maxLength: CONTACT_NAME_MAX, required: true }}
                fullWidth
              />
              <Field
                label={CONTACT_EMAIL}
                type="email"
                value={form.email}
                onChange={set('email')}
                error={errors.email}
                autoComplete="email"
                inputProps={{ maxLength: EMAIL_MAX, required: true }}
                fullWidth
              />
            </Box>
            <FormControl fullWidth>
              <InputLabel htmlFor={typeId} shrink>
                {CONTACT_INQUIRY_TYPE}
              </InputLabel>
              <NativeSelect
                id={typeId}
                value={form.inquiryType}
                onChange={(event) => set('inquiryType')(event.target.value)}
                input={<OutlinedInput label={CONTACT_INQUIRY_TYPE} notched />}
              >
                {INQUIRY_TYPES.map((type) => (
                  <option key={type} value={type}>
                    {INQUIRY_LABELS[type]}
                  </option>
                ))}
              </NativeSelect>
            </FormControl>
            <Field
              label={CONTACT_SUBJECT}
              value={form.subject}
              onChange={set('subject')}
              error={errors.subject}
              inputProps={{ maxLength: CONTACT_SUBJECT_MAX, required: true }}
              fullWidth
            />
            <Field
              label={CONTACT_MESSAGE}
              value={form.message}
              onChange={set('message')}
              error={errors.message}
              helperText={`${form.message.length} / ${CONTACT_MESSAGE_MAX}`}
              multiline
              minRows={6}
              inputProps={{ maxLength: CONTACT_MESSAGE_MAX, required: true }}
              fullWidth
            />
            <Box>
              <Button type="submit" variant="contained" size="large" disabled={sending}>
                {sending ? CONTACT_SENDING : CONTACT_SEND}
              </Button>
            </Box>
          </Stack>
        </Paper>
        <Stack spacing={3} component="aside">
          <Paper variant="outlined" sx={{ p: 3 }}>
            <Typography variant="h6" component="h2" gutterBottom>
              {CONTACT_SECURITY_TITLE}
            </Typography>
            <Typography color="text.secondary" sx={{ mb: 2 }}>
              {CONTACT_SECURITY_BODY}
            </Typography>
            <Button variant="outlined" component={RouterLink} to={paths.security}>
              {CONTACT_SECURITY_LINK}
            </Button>
          </Paper>
          <Typography variant="body2" color="text.secondary">
            {CONTACT_PRIVACY_NOTE}{' '}
            <Link component={RouterLink} to={paths.privacyPolicy}>
              {CONTACT_PRIVACY_LINK}
            </Link>
          </Typography>
        </Stack>
      </Box>
    </PublicPage>
  );
}
