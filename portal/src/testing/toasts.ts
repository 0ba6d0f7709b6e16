import { vi } from 'vitest';

type Toast = (message: string, options?: { durationMs?: number }) => void;

/**
 * Stands in for `notifications/toast.ts` in a store test, which reads what was toasted:
 * `vi.mock('../notifications/toast.ts', () => import('../testing/toasts.ts'))`.
 */
export const toast = {
  show: vi.fn<Toast>(),
  info: vi.fn<Toast>(),
  success: vi.fn<Toast>(),
  error: vi.fn<Toast>(),
};
