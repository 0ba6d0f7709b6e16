import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { Notice } from './Notice.tsx';

// MUI's Alert as the browser may fail to download it (offline, a chunk gone after a new deployment).
vi.mock('@mui/material/Alert', () => {
  throw new Error('Failed to fetch dynamically imported module');
});

describe('Notice', () => {
  it('shows its words, announced, when the Alert cannot be downloaded, instead of breaking the page', async () => {
    render(<Notice severity="error">Could not reach the grid.</Notice>);
    expect((await screen.findByRole('alert')).textContent).toBe('Could not reach the grid.');
    expect(screen.getAllByText('Could not reach the grid.')).toHaveLength(1);
  });
});
