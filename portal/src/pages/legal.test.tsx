import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { ThemeProvider } from '@mui/material/styles';
import { renderToString } from 'react-dom/server';
import { createMemoryRouter, MemoryRouter, RouterProvider } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AppProviders } from '../AppProviders.tsx';
import { LegalPage } from '../components/legal/LegalPage.tsx';
import { RootStore } from '../stores/RootStore.ts';
import { theme } from '../theme/theme.ts';
import {
  CONTENTS,
  DOWNLOAD_PDF,
  PDF_FAILED,
  PDF_NO_CONTENT,
  lastUpdated,
  type LegalDocument,
} from '../strings/legal/document.ts';
import { privacyPolicy } from '../strings/legal/privacy.ts';
import { securityPolicy } from '../strings/legal/securityPolicy.ts';
import { termsOfService } from '../strings/legal/terms.ts';
import { LEGAL_EMAIL, PRIVACY_EMAIL, SECURITY_EMAIL } from '../strings/site.ts';
import { locationOf, renderRoute } from '../test-utils.tsx';

/** The PDF module as the page sees it: whether it was imported yet, and what it was asked to do. */
const pdfModule = vi.hoisted(() => ({
  imports: 0,
  download: (() => undefined) as (document: unknown, origin: string) => void,
}));
vi.mock('../legal/pdf.ts', () => {
  pdfModule.imports++;
  return { downloadLegalPdf: (document: unknown, origin: string) => pdfModule.download(document, origin) };
});

const pages = [
  { path: '/privacy-policy', document: privacyPolicy, mailbox: PRIVACY_EMAIL },
  { path: '/terms-of-service', document: termsOfService, mailbox: LEGAL_EMAIL },
  { path: '/security-policy', document: securityPolicy, mailbox: SECURITY_EMAIL },
] as const;

beforeEach(() => {
  pdfModule.download = () => undefined;
});

/** The Download PDF button once the page is live (it is disabled until then: see the prerendering test). */
const downloadButton = () =>
  waitFor(() => {
    const button = screen.getByRole('button', { name: DOWNLOAD_PDF });
    expect(button.hasAttribute('disabled')).toBe(false);
    return button;
  });

describe('legal pages', () => {
  it.each(pages)(
    '$path shows its title, last-updated date, contents and every section from the texts',
    async ({ path, document }) => {
      renderRoute(path);
      expect(await screen.findByRole('heading', { level: 1, name: document.title })).toBeTruthy();
      expect(screen.getByText(lastUpdated(document.revised)).getAttribute('datetime')).toBe(document.revised);
      const headings = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
      expect(headings).toEqual([
        CONTENTS,
        ...document.sections.map((s) => s.heading),
        document.contact.heading,
      ]);
      const contents = screen.getByRole('navigation', { name: CONTENTS });
      expect(
        within(contents)
          .getAllByRole('link')
          .map((link) => link.getAttribute('href')),
      ).toEqual(document.sections.map((s) => `#${s.id}`));
      for (const s of document.sections) expect(screen.getByRole('region', { name: s.heading })).toBeTruthy();
      await waitFor(() => expect(window.document.title).toBe(`${document.title} | Exploit Grid`));
    },
  );

  it.each(pages)(
    '$path ends with a contact block linking to /contact and $mailbox',
    async ({ path, mailbox }) => {
      renderRoute(path);
      const contact = await screen.findByRole('region', { name: 'Contact' });
      expect(within(contact).getByRole('link', { name: 'contact form' }).getAttribute('href')).toBe(
        '/contact',
      );
      expect(within(contact).getByRole('link', { name: mailbox }).getAttribute('href')).toBe(
        `mailto:${mailbox}`,
      );
    },
  );

  it('follows a link to another page of the portal through the router', async () => {
    const { router } = renderRoute('/terms-of-service');
    const conduct = await screen.findByRole('region', { name: '5. Rules of conduct' });
    fireEvent.click(within(conduct).getByRole('link', { name: 'security policy' }));
    await waitFor(() => expect(locationOf(router)).toBe('/security-policy'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Security Policy' })).toBeTruthy();
  });

  it('links the OpenPGP key and security.txt as files the server serves, not as pages', async () => {
    renderRoute('/security-policy');
    const report = await screen.findByRole('region', { name: '3. How to report' });
    expect(within(report).getByRole('link', { name: '/pgp-key.asc' }).getAttribute('href')).toBe(
      '/pgp-key.asc',
    );
    expect(within(report).getByRole('link', { name: '/.well-known/security.txt' }).getAttribute('href')).toBe(
      '/.well-known/security.txt',
    );
  });

  it('states the response targets of the security programme', async () => {
    renderRoute('/security-policy');
    const targets = await screen.findByRole('region', { name: '4. What we answer and when' });
    for (const line of [
      'Critical: response within 4-8 hours, fix within 24-72 hours.',
      'High: response within 24 hours, fix within 3-7 days.',
      'Medium: response within 48 hours, fix within 1-2 weeks.',
      'Low: response within 72 hours, fix within 2-4 weeks.',
    ])
      expect(within(targets).getByText(line)).toBeTruthy();
    expect(within(targets).getByText(/within 24-48 hours/)).toBeTruthy();
  });
});

describe('Download PDF', () => {
  // In this order: the first test sees the module before anything imported it.
  it('loads the PDF code only when pressed, and hands it the page’s document and origin', async () => {
    const downloads: [unknown, string][] = [];
    pdfModule.download = (document, origin) => downloads.push([document, origin]);
    renderRoute('/privacy-policy');
    const button = await downloadButton();
    expect(pdfModule.imports).toBe(0);
    fireEvent.click(button);
    await waitFor(() => expect(downloads).toHaveLength(1));
    expect(pdfModule.imports).toBe(1);
    expect(downloads[0]).toEqual([privacyPolicy, window.location.origin]);
  });

  it.each(pages)('$path hands its own document over', async ({ path, document }) => {
    const downloads: unknown[] = [];
    pdfModule.download = (doc) => downloads.push(doc);
    renderRoute(path);
    fireEvent.click(await downloadButton());
    await waitFor(() => expect(downloads).toEqual([document]));
  });

  it("shows 'Failed to generate PDF. Please try again.' when making the PDF fails, and can try again", async () => {
    pdfModule.download = () => {
      throw new Error('out of memory');
    };
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    renderRoute('/terms-of-service');
    const button = await downloadButton();
    fireEvent.click(button);
    expect(await screen.findByText(PDF_FAILED)).toBeTruthy();
    expect(warn).toHaveBeenCalled();
    await waitFor(() => expect(button.hasAttribute('disabled')).toBe(false));
  });

  it('is disabled in the prerendered page, before the app can make a PDF', () => {
    const html = renderToString(
      <ThemeProvider theme={theme}>
        <MemoryRouter>
          <LegalPage document={termsOfService} />
        </MemoryRouter>
      </ThemeProvider>,
    );
    const button = /<button[^>]*>(?:(?!<\/button>).)*Download PDF/s.exec(html)?.[0] ?? '';
    expect(button).toMatch(/\sdisabled=""/);
    expect(html).toContain(termsOfService.sections[0]!.heading);
  });

  it("shows 'Could not find content to generate PDF' for a text without sections, and makes no PDF", async () => {
    const calls: unknown[] = [];
    pdfModule.download = (doc) => calls.push(doc);
    const empty: LegalDocument = { ...privacyPolicy, sections: [] };
    const router = createMemoryRouter([{ path: '/', element: <LegalPage document={empty} /> }]);
    render(
      <AppProviders store={new RootStore()}>
        <RouterProvider router={router} />
      </AppProviders>,
    );
    fireEvent.click(await downloadButton());
    expect(await screen.findByText(PDF_NO_CONTENT)).toBeTruthy();
    expect(calls).toEqual([]);
  });
});
