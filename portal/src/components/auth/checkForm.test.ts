import { describe, expect, it, vi } from 'vitest';
import type * as ContractsLoader from '../../api/contracts.ts';
import { FORM_CHECK_UNAVAILABLE } from '../../strings/auth.ts';
import { checkForm } from './fieldErrors.ts';

const download = vi.hoisted(() => ({ fails: false }));

// The contracts' chunk, as the browser downloads it: here it can fail (offline, a new deployment).
vi.mock('../../api/contracts.ts', async (importOriginal) => {
  const original = await importOriginal<typeof ContractsLoader>();
  return {
    ...original,
    loadContracts: () =>
      download.fails
        ? Promise.reject(new Error('Failed to fetch dynamically imported module'))
        : original.loadContracts(),
  };
});

describe('checkForm: a form checked with the API schemas loaded on first use', () => {
  it('gives the data, or the first error of each field in the API’s words', async () => {
    download.fails = false;
    expect(await checkForm((c) => c.loginRequest, { email: 'neo@example.org', password: 'x' })).toEqual({
      ok: true,
      data: { email: 'neo@example.org', password: 'x' },
    });
    const refused = await checkForm((c) => c.loginRequest, { email: 'neo', password: '' });
    expect(refused.ok).toBe(false);
    expect(Object.keys(refused.ok ? {} : refused.errors).sort()).toEqual(['email', 'password']);
  });

  it('says the grid cannot be reached when the checks cannot be downloaded, and sends nothing', async () => {
    download.fails = true;
    expect(await checkForm((c) => c.loginRequest, { email: 'neo@example.org', password: 'x' })).toEqual({
      ok: false,
      errors: {},
      failure: FORM_CHECK_UNAVAILABLE,
    });
  });
});
