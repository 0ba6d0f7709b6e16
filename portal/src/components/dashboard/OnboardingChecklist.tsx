import type { OnboardingStep } from '@exploit-grid/api/contracts';
import CheckCircle from '@mui/icons-material/CheckCircle';
import RadioButtonUnchecked from '@mui/icons-material/RadioButtonUnchecked';
import Box from '@mui/material/Box';
import LinearProgress from '@mui/material/LinearProgress';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../routes/paths.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import {
  CHECKLIST_INTRO,
  CHECKLIST_TITLE,
  STEP_DONE,
  STEP_OPEN,
  checklistProgress,
  checklistSteps,
} from '../../strings/onboarding.ts';
import { Stack } from '../Stack.tsx';

/** Where each step is done. */
const stepPaths: Record<OnboardingStep, string> = {
  BOX_DEPLOYED: paths.box,
  VPN_CONFIG_DOWNLOADED: paths.box,
  TUNNEL_UP: paths.box,
  FIRST_SSH: paths.box,
  FIRST_MATCH: paths.attack,
};

export type OnboardingChecklistProps = Record<string, never>;

/**
 * 'Your first hour': the steps the server reports (GET /users/me/onboarding), each ticked by what the grid saw
 * the player do, with how to do it and a link to where. Shown only while the checklist is known and not
 * complete: once every step is done it is gone for good.
 */
export const OnboardingChecklist = observer(function OnboardingChecklist(_props: OnboardingChecklistProps) {
  const { onboarding } = useStores();
  const status = onboarding.status;
  if (!onboarding.showChecklist || !status) return null;
  const done = status.steps.filter((s) => s.done).length;
  const total = status.steps.length;
  // The first open step is the one to do now.
  const next = status.steps.find((s) => !s.done)?.step ?? null;
  return (
    <Paper
      component="section"
      variant="outlined"
      aria-label={CHECKLIST_TITLE}
      data-testid="onboarding-checklist"
      sx={{ p: 3, mb: 3, bgcolor: 'rgba(11, 17, 32, 0.8)', borderColor: 'primary.dark' }}
    >
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={1}
        sx={{ justifyContent: 'space-between', alignItems: { sm: 'baseline' }, mb: 1 }}
      >
        <Typography variant="h6" component="h2">
          {CHECKLIST_TITLE}
        </Typography>
        <Typography variant="body2" color="text.secondary" data-testid="onboarding-progress">
          {checklistProgress(done, total)}
        </Typography>
      </Stack>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {CHECKLIST_INTRO}
      </Typography>
      <LinearProgress
        variant="determinate"
        value={total === 0 ? 0 : (done / total) * 100}
        aria-label={checklistProgress(done, total)}
        sx={{ mb: 2, height: 6, borderRadius: 3 }}
      />
      <Stack component="ol" spacing={1.5} sx={{ listStyle: 'none', m: 0, p: 0 }}>
        {status.steps.map(({ step, done: ticked }) => {
          const entry = checklistSteps[step];
          return (
            <Stack
              component="li"
              key={step}
              direction="row"
              spacing={1.5}
              data-step={step}
              data-done={ticked}
              aria-current={step === next ? 'step' : undefined}
              sx={{ alignItems: 'flex-start' }}
            >
              {ticked ? (
                <CheckCircle titleAccess={STEP_DONE} sx={{ color: 'success.main', mt: 0.25 }} />
              ) : (
                <RadioButtonUnchecked
                  titleAccess={STEP_OPEN}
                  sx={{ color: step === next ? 'primary.main' : 'text.disabled', mt: 0.25 }}
                />
              )}
              <Box sx={{ minWidth: 0 }}>
                <Typography
                  sx={{
                    fontWeight: 600,
                    color: ticked ? 'text.secondary' : 'text.primary',
                    textDecoration: ticked ? 'line-through' : 'none',
                  }}
                >
                  {entry.title}
                </Typography>
                {!ticked && (
                  <Typography variant="body2" color="text.secondary">
                    {entry.how}{' '}
                    <Link component={RouterLink} to={stepPaths[step]} underline="always">
                      {entry.action}
                    </Link>
                  </Typography>
                )}
              </Box>
            </Stack>
          );
        })}
      </Stack>
    </Paper>
  );
});
