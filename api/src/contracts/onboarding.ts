/** The first-hour checklist of the dashboard (ours; docs/onboarding.md). */
import { z } from 'zod';

/**
 * The steps, in the order a new player takes them: deploy a box, download a VPN config, bring the tunnel up,
 * log in to the box over ssh, fight a first match.
 */
export const ONBOARDING_STEPS = [
  'BOX_DEPLOYED',
  'VPN_CONFIG_DOWNLOADED',
  'TUNNEL_UP',
  'FIRST_SSH',
  'FIRST_MATCH',
] as const;
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number];

export const onboardingStepSchema = z
  .object({
    step: z.enum(ONBOARDING_STEPS),
    done: z.boolean(),
    /** When the platform saw it happen (the box's creation, the config's issue, ...), null while not done. */
    doneAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'OnboardingStep' });
export type OnboardingStepStatus = z.infer<typeof onboardingStepSchema>;

/** `GET /users/me/onboarding`: every step read from what the platform saw, never from what a client says. */
export const onboardingSchema = z
  .object({
    /**
     * The steps this platform can see, in order. FIRST_SSH is left out where nothing sees who connects to a
     * box (no box runtime), so that the checklist can still be completed.
     */
    steps: z.array(onboardingStepSchema),
    /** Every step was done once: the checklist is over for good (it does not come back). */
    complete: z.boolean(),
    completedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'Onboarding' });
export type Onboarding = z.infer<typeof onboardingSchema>;
