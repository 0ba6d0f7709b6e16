import type { Job } from '@exploit-grid/api/contracts';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../routes/paths.ts';
import { VIEW_DETAILS, moreSkills } from '../../strings/careers.ts';
import { Stack } from '../Stack.tsx';
import { Tag } from '../Tag.tsx';
import { Placeholder } from './controls.tsx';
import { jobLine, locationText, salaryText } from './format.ts';

/** A job card shows this many skills, then '+N more' (spec section 9). */
export const CARD_SKILLS = 4;

/** One open position in the list: title, line, summary, where, pay, and four skills. */
export function JobCard({ job }: { job: Job }) {
  const salary = salaryText(job);
  const more = job.skills.length - CARD_SKILLS;
  const to = paths.careerJob(job.slug);
  return (
    <Paper
      component="article"
      variant="outlined"
      aria-labelledby={`job-${job.id}`}
      sx={{
        p: { xs: 2, sm: 3 },
        transition: 'border-color 120ms',
        '&:hover': { borderColor: 'primary.main' },
      }}
    >
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ justifyContent: 'space-between' }}>
        <Box sx={{ minWidth: 0 }}>
          <Typography variant="h6" component="h3" id={`job-${job.id}`} sx={{ lineHeight: 1.3 }}>
            <Box
              component={RouterLink}
              to={to}
              sx={{ color: 'inherit', textDecoration: 'none', '&:hover': { textDecoration: 'underline' } }}
            >
              {job.title}
            </Box>
          </Typography>
          <Typography variant="body2" color="primary" sx={{ mt: 0.5 }}>
            {jobLine(job)}
          </Typography>
        </Box>
        <Box sx={{ textAlign: { sm: 'right' }, flexShrink: 0 }}>
          <Typography variant="body2" color="text.secondary">
            {locationText(job)}
          </Typography>
          {salary && (
            <Typography variant="body2" sx={{ fontWeight: 600 }}>
              {salary}
            </Typography>
          )}
        </Box>
      </Stack>
      <Typography color="text.secondary" sx={{ my: 2 }}>
        {job.shortDescription}
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ justifyContent: 'space-between' }}>
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }} aria-label="Skills">
          {job.skills.slice(0, CARD_SKILLS).map((skill) => (
            <Tag key={skill} label={skill} variant="outlined" />
          ))}
          {more > 0 && <Tag label={moreSkills(more)} />}
        </Stack>
        <Button
          component={RouterLink}
          to={to}
          size="small"
          sx={{ alignSelf: { xs: 'flex-start', sm: 'center' }, flexShrink: 0 }}
          aria-label={`${VIEW_DETAILS}: ${job.title}`}
        >
          {VIEW_DETAILS}
        </Button>
      </Stack>
    </Paper>
  );
}

/** A card's shape while the list loads. */
export function JobCardSkeleton() {
  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }} data-testid="job-skeleton">
      <Placeholder width="45%" height={24} />
      <Placeholder width="30%" sx={{ mt: 1 }} />
      <Placeholder width="90%" sx={{ mt: 3 }} />
      <Placeholder width="70%" sx={{ mt: 1 }} />
      <Stack direction="row" spacing={1} sx={{ mt: 2.5 }}>
        {[64, 80, 56, 72].map((width) => (
          <Placeholder key={width} width={width} height={24} sx={{ borderRadius: 3 }} />
        ))}
      </Stack>
    </Paper>
  );
}
