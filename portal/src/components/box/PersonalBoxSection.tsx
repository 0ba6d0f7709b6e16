import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import { observer } from 'mobx-react-lite';
import type { BoxError } from '../../stores/BoxStore.ts';
import { useStores } from '../../stores/StoresContext.tsx';
import { BOX_UNAVAILABLE, FETCH_BOX_FAILED, LOADING_BOX, MY_PERSONAL_BOX, RETRY } from '../../strings/box.ts';
import { DashboardCard } from '../dashboard/DashboardCard.tsx';
import { Stack } from '../Stack.tsx';
import { BoxDetails } from './BoxDetails.tsx';
import { CreateBoxForm } from './CreateBoxForm.tsx';

export type PersonalBoxSectionProps = Record<string, never>;

/**
 * 'My Personal Box': errors of the box calls inline, why boxes cannot run here (if so), then the create
 * form without a box, or the box with its actions. A box already known (saved with the session) shows at
 * once while it reloads.
 */
export const PersonalBoxSection = observer(function PersonalBoxSection(_props: PersonalBoxSectionProps) {
  const { box: boxes } = useStores();
  const box = boxes.box;
  const unavailableReason = boxes.unavailableReason;
  const known = box !== null || boxes.loadStatus === 'ready';

  return (
    <DashboardCard title={MY_PERSONAL_BOX}>
      <Stack spacing={2.5}>
        {boxes.boxError && (
          <ErrorAlert
            error={boxes.boxError}
            onClose={() => boxes.clearBoxError()}
            onRetry={boxes.boxError.message === FETCH_BOX_FAILED ? () => void boxes.load() : undefined}
          />
        )}
        {unavailableReason !== null && (
          <Alert severity="warning" variant="outlined" data-testid="box-unavailable">
            <AlertTitle>{BOX_UNAVAILABLE}</AlertTitle>
            {unavailableReason !== BOX_UNAVAILABLE && unavailableReason}
          </Alert>
        )}
        {box !== null ? (
          <BoxDetails box={box} unavailable={unavailableReason !== null} />
        ) : known ? (
          <CreateBoxForm disabled={unavailableReason !== null} />
        ) : boxes.loadStatus === 'failed' ? null : (
          <Stack spacing={1.5} role="status" aria-label={LOADING_BOX}>
            <Skeleton variant="text" width="40%" height={36} />
            <Skeleton variant="rounded" height={72} />
            <Skeleton variant="rounded" height={48} />
          </Stack>
        )}
      </Stack>
    </DashboardCard>
  );
});

type ErrorAlertProps = { error: BoxError; onClose: () => void; onRetry?: () => void };

/** The spec's text, with the server's message under it when it says more. */
function ErrorAlert({ error, onClose, onRetry }: ErrorAlertProps) {
  return (
    <Alert
      severity="error"
      data-testid="box-error"
      onClose={onRetry ? undefined : onClose}
      action={
        onRetry && (
          <Button color="inherit" size="small" onClick={onRetry}>
            {RETRY}
          </Button>
        )
      }
    >
      {error.detail ? (
        <>
          <AlertTitle>{error.message}</AlertTitle>
          {error.detail}
        </>
      ) : (
        error.message
      )}
    </Alert>
  );
}
