import type { Job } from '@exploit-grid/api/contracts';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { Suspense, useEffect, useState, type ReactNode } from 'react';
import { Link as RouterLink, useLocation, useNavigate, useParams } from 'react-router';
import { fetchJob } from '../components/careers/careersApi.ts';
import { MailLink, Placeholder } from '../components/careers/controls.tsx';
import { externalApplication, jobLine, locationText, salaryText } from '../components/careers/format.ts';
import { lazyOr } from '../components/lazyOr.ts';
import { PublicPage } from '../components/PublicPage.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { Stack } from '../components/Stack.tsx';
import { Tag } from '../components/Tag.tsx';
import { log } from '../logging.ts';
import { paths } from '../routes/paths.ts';
import {
  ABOUT_THE_ROLE,
  APPLY_BY_EMAIL,
  APPLY_NOW,
  BACK,
  BACK_TO_CAREERS,
  BENEFITS,
  CAREERS_TITLE,
  JOB_LOADING,
  KEY_SKILLS,
  LEVEL,
  LEVEL_LABELS,
  LOCATION,
  PREFERRED,
  REQUIREMENTS,
  SALARY_RANGE,
  TIMEZONE,
} from '../strings/careers.ts';

export type CareerJobPageProps = Record<string, never>;

/** The application modal: its own chunk, loaded when Apply Now is first pressed. */
const ApplyDialog = lazyOr(
  async () => (await import('../components/careers/ApplyDialog.tsx')).ApplyDialog,
  () => null,
);

function Section({ title, children }: { title: string; children: string }) {
  return (
    <Box component="section" aria-label={title} sx={{ mb: 4 }}>
      <Typography variant="h5" component="h2" gutterBottom>
        {title}
      </Typography>
      <Typography color="text.secondary" sx={{ whiteSpace: 'pre-line' }}>
        {children}
      </Typography>
    </Box>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box>
      <Typography variant="overline" color="text.secondary" component="dt" sx={{ lineHeight: 1.8 }}>
        {label}
      </Typography>
      <Typography component="dd" sx={{ m: 0 }}>
        {children}
      </Typography>
    </Box>
  );
}

function Chips({ title, items }: { title: string; items: readonly string[] }) {
  if (items.length === 0) return null;
  return (
    <Box component="section" aria-label={title}>
      <Typography variant="overline" color="text.secondary" component="h2" sx={{ lineHeight: 1.8 }}>
        {title}
      </Typography>
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', mt: 0.5 }}>
        {items.map((item) => (
          <Tag key={item} label={item} variant="outlined" />
        ))}
      </Stack>
    </Box>
  );
}

/**
 * /careers/jobs/{slug} (spec sections 2, 8): the job, and Apply Now (the job's own application form in a new
 * tab when it has one, else the 'Apply for Position' modal). A job that cannot be loaded sends to /careers.
 */
export function CareerJobPage(_props: CareerJobPageProps) {
  const { slug = '' } = useParams();
  const navigate = useNavigate();
  const location = useLocation();
  const [job, setJob] = useState<Job | null>(null);
  const [applying, setApplying] = useState(false);
  /** The modal's code is loaded (and the modal kept, for its closing transition) once it was first opened. */
  const [dialogWanted, setDialogWanted] = useState(false);
  usePageMeta({
    title: job ? `${job.title} | ${CAREERS_TITLE}` : CAREERS_TITLE,
    description: job?.shortDescription,
  });

  useEffect(() => {
    let current = true;
    setJob(null);
    fetchJob(slug).then(
      (found) => current && setJob(found),
      (error: unknown) => {
        log.warn('Could not load the position', error);
        if (current) void navigate(paths.careers, { replace: true });
      },
    );
    return () => {
      current = false;
    };
  }, [slug, navigate]);

  // A visitor who came from another page of this site goes back to it; one who came straight here, to /careers.
  const cameFromSite = location.key !== 'default';
  const back = cameFromSite ? (
    <Button startIcon={<ArrowBackIcon />} onClick={() => void navigate(-1)}>
      {BACK}
    </Button>
  ) : (
    <Button startIcon={<ArrowBackIcon />} component={RouterLink} to={paths.careers}>
      {BACK_TO_CAREERS}
    </Button>
  );

  if (!job)
    return (
      <PublicPage>
        <Box sx={{ mb: 3 }}>{back}</Box>
        <Box aria-busy="true" aria-label={JOB_LOADING}>
          <Placeholder width="60%" height={44} />
          <Placeholder width="35%" sx={{ mt: 2 }} />
          <Placeholder width="100%" height={240} sx={{ mt: 5 }} />
        </Box>
      </PublicPage>
    );

  const salary = salaryText(job);
  const external = externalApplication(job);
  return (
    <PublicPage>
      <Box sx={{ mb: 3, ml: -1 }}>{back}</Box>
      <Typography variant="h3" component="h1" sx={{ fontSize: { xs: '1.9rem', md: '2.6rem' } }} gutterBottom>
        {job.title}
      </Typography>
      <Typography color="primary" sx={{ mb: { xs: 3, md: 5 } }}>
        {jobLine(job)}
      </Typography>
      <Box
        sx={{
          display: 'grid',
          gap: { xs: 3, md: 5 },
          gridTemplateColumns: { xs: '1fr', md: '1fr 320px' },
          alignItems: 'start',
        }}
      >
        <Box sx={{ minWidth: 0 }}>
          <Typography variant="h6" component="p" sx={{ mb: 4, fontWeight: 400 }}>
            {job.shortDescription}
          </Typography>
          <Section title={ABOUT_THE_ROLE}>{job.description}</Section>
          <Section title={REQUIREMENTS}>{job.requirements}</Section>
          {job.preferred && <Section title={PREFERRED}>{job.preferred}</Section>}
        </Box>
        <Paper
          component="aside"
          variant="outlined"
          aria-label="Position details"
          sx={{ p: 3, position: { md: 'sticky' }, top: { md: 24 } }}
        >
          <Stack spacing={2.5}>
            <Stack component="dl" spacing={1.5} sx={{ m: 0 }}>
              <Fact label={LOCATION}>{locationText(job)}</Fact>
              <Fact label={LEVEL}>{LEVEL_LABELS[job.level]}</Fact>
              {salary && <Fact label={SALARY_RANGE}>{salary}</Fact>}
              {job.timezone && <Fact label={TIMEZONE}>{job.timezone}</Fact>}
            </Stack>
            <Chips title={KEY_SKILLS} items={job.skills} />
            <Chips title={BENEFITS} items={job.benefits} />
            <Box sx={{ borderTop: 1, borderColor: 'divider' }} />
            {external ? (
              <Button
                variant="contained"
                size="large"
                fullWidth
                href={external}
                target="_blank"
                rel="noopener noreferrer"
                endIcon={<OpenInNewIcon />}
              >
                {APPLY_NOW}
              </Button>
            ) : (
              <Button
                variant="contained"
                size="large"
                fullWidth
                onClick={() => {
                  setDialogWanted(true);
                  setApplying(true);
                }}
              >
                {APPLY_NOW}
              </Button>
            )}
            {job.applicationEmail && (
              <Typography variant="body2" color="text.secondary" sx={{ textAlign: 'center' }}>
                {APPLY_BY_EMAIL} <MailLink to={job.applicationEmail}>{job.applicationEmail}</MailLink>
              </Typography>
            )}
          </Stack>
        </Paper>
      </Box>
      {dialogWanted && (
        <Suspense fallback={null}>
          <ApplyDialog job={job} open={applying} onClose={() => setApplying(false)} />
        </Suspense>
      )}
    </PublicPage>
  );
}
