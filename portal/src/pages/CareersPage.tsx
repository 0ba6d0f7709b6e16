import type { Job } from '@exploit-grid/api/contracts';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { useEffect, useState } from 'react';
import { CareersFiltersPanel } from '../components/careers/CareersFiltersPanel.tsx';
import {
  NO_FILTERS,
  fetchCategories,
  fetchJobs,
  type CareersFilters,
  type JobCategory,
} from '../components/careers/careersApi.ts';
import { JobCard, JobCardSkeleton } from '../components/careers/JobCard.tsx';
import { MailLink } from '../components/careers/controls.tsx';
import { PublicPage } from '../components/PublicPage.tsx';
import { usePageMeta } from '../components/pageMeta.ts';
import { Stack } from '../components/Stack.tsx';
import { visuallyHidden } from '../components/styles.ts';
import { log } from '../logging.ts';
import {
  CAREERS_DESCRIPTION,
  CAREERS_HEADLINE,
  CAREERS_LEAD,
  CAREERS_TITLE,
  CLEAR_FILTERS,
  LOADING_POSITIONS,
  NO_POSITIONS_AFTER,
  NO_POSITIONS_BODY,
  NO_POSITIONS_CONTACT,
  NO_POSITIONS_TITLE,
  OPEN_POSITIONS,
  PERFECT_ROLE_BODY,
  PERFECT_ROLE_TITLE,
  positionsFound,
} from '../strings/careers.ts';
import { CAREERS_EMAIL, CONTACT_EMAIL } from '../strings/site.ts';

export type CareersPageProps = Record<string, never>;

/** How long the search waits for the visitor to stop typing before it asks (ms). */
export const SEARCH_DEBOUNCE_MS = 300;

/** `value`, once it has not changed for `ms`. */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * /careers (spec sections 2, 4, 8): the filter sidebar and the open positions. Any filter change asks again
 * (the search once typing pauses); while a list loads, three skeleton cards; a failure is logged and shows as
 * no position.
 */
export function CareersPage(_props: CareersPageProps) {
  usePageMeta({ title: CAREERS_TITLE, description: CAREERS_DESCRIPTION });
  const [filters, setFilters] = useState<CareersFilters>(NO_FILTERS);
  const [categories, setCategories] = useState<JobCategory[]>([]);
  /** Null while loading. */
  const [jobs, setJobs] = useState<Job[] | null>(null);
  const search = useDebounced(filters.search.trim(), SEARCH_DEBOUNCE_MS);
  const { category, type, level, remoteOnly } = filters;

  useEffect(() => {
    let current = true;
    fetchCategories().then(
      (found) => current && setCategories(found),
      (error: unknown) => log.warn('Could not load the job categories', error),
    );
    return () => {
      current = false;
    };
  }, []);

  useEffect(() => {
    let current = true;
    setJobs(null);
    fetchJobs({ search, category, type, level, remoteOnly }).then(
      (found) => current && setJobs(found),
      (error: unknown) => {
        log.warn('Could not load the open positions', error);
        if (current) setJobs([]);
      },
    );
    return () => {
      current = false;
    };
  }, [search, category, type, level, remoteOnly]);

  const change = (part: Partial<CareersFilters>) => setFilters((now) => ({ ...now, ...part }));
  const clear = () => setFilters(NO_FILTERS);

  return (
    <PublicPage title={CAREERS_HEADLINE} lead={CAREERS_LEAD}>
      <Box
        sx={{
          display: 'grid',
          gap: { xs: 3, md: 4 },
          gridTemplateColumns: { xs: '1fr', md: '280px 1fr' },
          alignItems: 'start',
        }}
      >
        <Box sx={{ position: { md: 'sticky' }, top: { md: 24 } }}>
          <CareersFiltersPanel filters={filters} categories={categories} onChange={change} onClear={clear} />
        </Box>
        <Box component="section" aria-labelledby="open-positions">
          <Stack
            direction="row"
            spacing={2}
            sx={{ alignItems: 'baseline', justifyContent: 'space-between', flexWrap: 'wrap', mb: 2 }}
          >
            <Typography variant="h5" component="h2" id="open-positions">
              {OPEN_POSITIONS}
            </Typography>
            {jobs !== null && (
              <Typography color="text.secondary" role="status">
                {positionsFound(jobs.length)}
              </Typography>
            )}
          </Stack>
          {jobs === null ? (
            <Stack spacing={2} aria-busy="true">
              <Box component="span" sx={visuallyHidden} role="status">
                {LOADING_POSITIONS}
              </Box>
              {[0, 1, 2].map((n) => (
                <JobCardSkeleton key={n} />
              ))}
            </Stack>
          ) : jobs.length === 0 ? (
            <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, textAlign: 'center' }}>
              <Typography variant="h6" component="h3" gutterBottom>
                {NO_POSITIONS_TITLE}
              </Typography>
              <Typography color="text.secondary" sx={{ mb: 3 }}>
                {NO_POSITIONS_BODY}
                <MailLink to={CONTACT_EMAIL}>{NO_POSITIONS_CONTACT}</MailLink>
                {NO_POSITIONS_AFTER}
              </Typography>
              <Button variant="outlined" onClick={clear}>
                {CLEAR_FILTERS}
              </Button>
            </Paper>
          ) : (
            <Stack spacing={2}>
              {jobs.map((job) => (
                <JobCard key={job.id} job={job} />
              ))}
            </Stack>
          )}
          <Paper
            component="aside"
            variant="outlined"
            aria-labelledby="perfect-role"
            sx={{ p: { xs: 3, sm: 4 }, mt: 4, borderColor: 'primary.dark' }}
          >
            <Typography variant="h6" component="h2" id="perfect-role" gutterBottom>
              {PERFECT_ROLE_TITLE}
            </Typography>
            <Typography color="text.secondary">
              {PERFECT_ROLE_BODY}
              <MailLink to={CAREERS_EMAIL}>{CAREERS_EMAIL}</MailLink>.
            </Typography>
          </Paper>
        </Box>
      </Box>
    </PublicPage>
  );
}
