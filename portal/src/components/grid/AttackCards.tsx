import type { Attack } from '@exploit-grid/api/contracts';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import { observer } from 'mobx-react-lite';
import type { GridStore } from '../../stores/GridStore.ts';
import {
  ACTIVE_ATTACK,
  ATTACK_HINT,
  SERVICES_ATTACKER_HINT,
  SERVICES_CHECKED,
  SERVICES_DEFENDER_HINT,
  TARGET_ACQUIRED,
  TARGET_LABELS,
  TOO_HARD,
  UNDER_ATTACK,
  UNRATED_FIGHT,
  serviceChip,
  timeLeft,
  underAttackBy,
} from '../../strings/grid.ts';
import { Stack } from '../Stack.tsx';
import { GridCard } from './GridCard.tsx';
import { useNow } from './useNow.ts';

export type AttackCardsProps = { grid: GridStore };

/**
 * The attack this operator is in: as the attacker the Target Acquired card (where to aim) and the Active
 * Attack card (time left, 'Too Hard For Me'); as the defender the Under Attack card.
 */
export const AttackCards = observer(function AttackCards({ grid }: AttackCardsProps) {
  const attack = grid.activeAttack;
  const incoming = grid.incomingAttack;
  if (incoming) return <UnderAttackCard attack={incoming} />;
  if (!attack || attack.attacker.id !== grid.me) return null;
  return (
    <Stack spacing={2}>
      <TargetAcquiredCard attack={attack} />
      <ActiveAttackCard attack={attack} onCancel={() => void grid.cancelAttack()} />
    </Stack>
  );
});

function TargetAcquiredCard({ attack }: { attack: Attack }) {
  const box = attack.box;
  const ports = box ? Object.entries(box.openPorts) : [];
  return (
    <GridCard title={TARGET_ACQUIRED} tone="error">
      <dl style={{ margin: 0, display: 'grid', gridTemplateColumns: 'auto 1fr', gap: '4px 12px' }}>
        <Term>{TARGET_LABELS.target}</Term>
        <Value>{attack.target.handle}</Value>
        <Term>{TARGET_LABELS.hostname}</Term>
        <Value>{box?.hostname ?? '—'}</Value>
        <Term>{TARGET_LABELS.ip}</Term>
        <Value testId="target-ip">{box?.ip ?? TARGET_LABELS.noIp}</Value>
        <Term>{TARGET_LABELS.status}</Term>
        <Value>{box?.status ?? '—'}</Value>
        <Term>{TARGET_LABELS.ports}</Term>
        <dd style={{ margin: 0 }}>
          {ports.length === 0 ? (
            <Typography variant="body2" color="text.secondary">
              {TARGET_LABELS.noPorts}
            </Typography>
          ) : (
            <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
              {ports.map(([port, service]) => (
                <Chip key={port} size="small" label={`${port}/${service}`} />
              ))}
            </Stack>
          )}
        </dd>
      </dl>
    </GridCard>
  );
}

function ActiveAttackCard({ attack, onCancel }: { attack: Attack; onCancel: () => void }) {
  const now = useNow();
  return (
    <GridCard title={ACTIVE_ATTACK} tone="warning">
      <Typography variant="body2" data-testid="attack-time-left">
        {timeLeft((Date.parse(attack.endsAt) - now) / 1000)}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ my: 1 }}>
        {ATTACK_HINT}
      </Typography>
      <Unrated attack={attack} />
      {/* The way out above the services: a tall list must not push it out of the column's view. */}
      <Button variant="outlined" color="error" onClick={onCancel}>
        {TOO_HARD}
      </Button>
      <CheckedServices attack={attack} hint={SERVICES_ATTACKER_HINT} />
    </GridCard>
  );
}

function UnderAttackCard({ attack }: { attack: Attack }) {
  const now = useNow();
  return (
    <GridCard title={UNDER_ATTACK} tone="error">
      <Typography variant="body2" sx={{ mb: 1 }}>
        {underAttackBy(attack.attacker.handle)}
      </Typography>
      <Typography variant="body2" data-testid="defense-time-left">
        {timeLeft((Date.parse(attack.endsAt) - now) / 1000)}
      </Typography>
      <Unrated attack={attack} />
      <CheckedServices attack={attack} hint={SERVICES_DEFENDER_HINT} />
    </GridCard>
  );
}

/**
 * The target's published services as the platform's checks see them during the attack (both players):
 * each one up, down or not checked yet, with what the last check saw.
 */
function CheckedServices({ attack, hint }: { attack: Attack; hint: string }) {
  if (attack.services.length === 0) return null;
  return (
    <Stack spacing={0.75} sx={{ my: 1 }} data-testid="attack-services">
      <Typography variant="overline" color="text.secondary" sx={{ lineHeight: 1.4 }}>
        {SERVICES_CHECKED}
      </Typography>
      <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
        {attack.services.map((s) => (
          <Chip
            key={s.port}
            size="small"
            variant={s.up === null ? 'outlined' : 'filled'}
            color={s.up === null ? 'default' : s.up ? 'success' : 'error'}
            label={serviceChip(s)}
            title={s.detail ?? undefined}
          />
        ))}
      </Stack>
      <Typography variant="caption" color="text.secondary">
        {hint}
      </Typography>
    </Stack>
  );
}

/** Says so when the fight moves no MMR (the pair's rated fights of the day are used up). */
function Unrated({ attack }: { attack: Attack }) {
  if (attack.rated) return null;
  return (
    <Typography variant="body2" color="warning.main" data-testid="attack-unrated" sx={{ my: 1 }}>
      {UNRATED_FIGHT}
    </Typography>
  );
}

function Term({ children }: { children: string }) {
  return (
    <Typography component="dt" variant="body2" color="text.secondary">
      {children}
    </Typography>
  );
}

function Value({ children, testId }: { children: string; testId?: string }) {
  return (
    <Typography component="dd" variant="body2" data-testid={testId} sx={{ m: 0, fontFamily: 'monospace' }}>
      {children}
    </Typography>
  );
}
