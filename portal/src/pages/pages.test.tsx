import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { CREATE_IDENTITY, HOW_TO_PLAY, JACK_IN, featureBlurbs } from '../strings/home.ts';
import { FEATURES_PRICING, FEATURES_TITLE, featureSections, teamCards } from '../strings/features.ts';
import { HOW_TO_PLAY_HEADLINE, howToPlaySteps } from '../strings/howToPlay.ts';
import { HELP_MENU_LABEL, NOT_FOUND_TEXT, helpMenuGroups } from '../strings/site.ts';
import { renderRoute } from '../test-utils.tsx';

afterEach(cleanup);

describe('home page', () => {
  it('links Jack In to /login, Create Identity to /signup and How to Play to /how-to-play', () => {
    renderRoute('/');
    expect(screen.getByRole('link', { name: JACK_IN }).getAttribute('href')).toBe('/login');
    expect(screen.getByRole('link', { name: CREATE_IDENTITY }).getAttribute('href')).toBe('/signup');
    expect(screen.getByRole('link', { name: HOW_TO_PLAY }).getAttribute('href')).toBe('/how-to-play');
  });

  it('shows three feature blurbs', () => {
    renderRoute('/');
    const features = screen.getByRole('region', { name: 'Features' });
    expect(within(features).getAllByRole('heading')).toHaveLength(3);
    for (const feature of featureBlurbs) expect(within(features).getByText(feature.title)).toBeTruthy();
  });

  it("sets the document title to 'Title | Exploit Grid' and a description of at most 160 characters", async () => {
    renderRoute('/');
    await waitFor(() => expect(document.title).toBe('Live-Fire Hacking Arena | Exploit Grid'));
    const description =
      document.head.querySelector<HTMLMetaElement>('meta[name="description"]')?.content ?? '';
    expect(description.length).toBeGreaterThan(0);
    expect(description.length).toBeLessThanOrEqual(160);
  });
});

describe('how to play', () => {
  it('shows the headline and the five steps in order, ending with a link to signup', async () => {
    renderRoute('/how-to-play');
    expect(await screen.findByRole('heading', { level: 1, name: HOW_TO_PLAY_HEADLINE })).toBeTruthy();
    const steps = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(steps).toEqual(howToPlaySteps.map((s) => s.title));
    expect(screen.getByRole('link', { name: CREATE_IDENTITY }).getAttribute('href')).toBe('/signup');
  });
});

describe('the Grid (/features)', () => {
  it('shows the three team cards, the six sections in order, and links to signup, pricing and login', async () => {
    renderRoute('/features');
    expect(await screen.findByRole('heading', { level: 1, name: FEATURES_TITLE })).toBeTruthy();
    const teams = screen.getByRole('region', { name: 'Teams' });
    expect(
      within(teams)
        .getAllByRole('heading')
        .map((h) => h.textContent),
    ).toEqual(teamCards.map((card) => card.team));
    const sections = featureSections.map((section) => screen.getByRole('region', { name: section.title }));
    expect(sections).toHaveLength(6);
    expect(screen.getByRole('link', { name: CREATE_IDENTITY }).getAttribute('href')).toBe('/signup');
    expect(screen.getByRole('link', { name: FEATURES_PRICING }).getAttribute('href')).toBe('/pricing');
    expect(screen.getByRole('link', { name: JACK_IN }).getAttribute('href')).toBe('/login');
    await waitFor(() => expect(document.title).toBe('The Grid | Exploit Grid'));
  });
});

describe('not found', () => {
  it('shows the dead-end text and a link home for an unknown path', () => {
    renderRoute('/no/such/page');
    expect(screen.getByText(NOT_FOUND_TEXT)).toBeTruthy();
    expect(screen.getByRole('link', { name: /back to base/i }).getAttribute('href')).toBe('/');
  });

  it('marks the page noindex', async () => {
    renderRoute('/missing');
    await waitFor(() =>
      expect(document.head.querySelector<HTMLMetaElement>('meta[name="robots"]')?.content).toBe(
        'noindex, nofollow',
      ),
    );
  });
});

describe('help menu', () => {
  it('opens from the floating button with three collapsible groups and their links', async () => {
    renderRoute('/');
    fireEvent.click(await screen.findByRole('button', { name: HELP_MENU_LABEL }));
    const menu = await screen.findByRole('navigation', { name: HELP_MENU_LABEL });
    for (const group of helpMenuGroups) {
      const toggle = within(menu).getByRole('button', { name: group.title });
      expect(toggle.getAttribute('aria-expanded')).toBe('false');
      fireEvent.click(toggle);
      expect(toggle.getAttribute('aria-expanded')).toBe('true');
      for (const link of group.links) {
        expect((await within(menu).findByRole('link', { name: link.label })).getAttribute('href')).toBe(
          link.to,
        );
      }
    }
  });
});
