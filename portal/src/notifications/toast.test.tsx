import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AppProviders } from '../AppProviders.tsx';
import { RootStore } from '../stores/RootStore.ts';
import { toast } from './toast.ts';

describe('toasts', () => {
  it('shows the toasts asked for before the toaster loaded, then the later ones, each as an alert', async () => {
    render(
      <AppProviders store={new RootStore()}>
        <p>page</p>
      </AppProviders>,
    );
    // The toaster's code is not part of the page: nothing is mounted for it before a first toast.
    expect(screen.queryAllByRole('alert')).toHaveLength(0);
    toast.info('first');
    toast.error('second');
    expect(await screen.findByText('second')).toBeTruthy();
    toast.success('third');
    expect(await screen.findByText('third')).toBeTruthy();
    // Announced to screen readers: each toast is an alert.
    const shown = screen.getAllByRole('alert').map((alert) => alert.textContent);
    expect(shown.toSorted()).toEqual(['first', 'second', 'third']);
  });
});
