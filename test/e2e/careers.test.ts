import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { CAREERS_MESSAGES } from '../../api/src/contracts/careers-constants.ts';
import { minimalPdf } from '../../api/src/testing/documents.ts';
import { Mailbox } from '../../api/src/testing/mailbox.ts';
import { launchBrowser, type Browser } from '../support/browser.ts';
import { logPlatformOnFailure, repoRoot, startPlatform, type RunningPlatform } from '../support/platform.ts';
import { runStaffCli } from '../support/staff.ts';

const CAREERS_EMAIL = 'careers@grid.test';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };

/**
 * Careers in Chromium (issue 22): staff publish jobs with the CLI, a visitor filters /careers, opens a job,
 * applies through the modal with a real PDF chosen in the file picker, and staff find the application with the
 * CLI and download the resume byte for byte. SCREENSHOTS=dir keeps the list, the job and the modal at phone and
 * desktop sizes.
 */
describe('careers in Chromium: publish, filter, apply with a real resume, read it back', function () {
  this.timeout(180_000);
  let mailbox: Mailbox;
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let files: string;
  const problems: string[] = [];

  before(async () => {
    files = await mkdtemp(path.join(os.tmpdir(), 'eg-e2e-careers-'));
    mailbox = new Mailbox();
    const smtpUrl = await mailbox.start();
    platform = await startPlatform({ env: { SMTP_URL: smtpUrl, CAREERS_EMAIL } });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.setViewportSize(DESKTOP);
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
  });
  afterEach(function () {
    logPlatformOnFailure(this.currentTest, platform);
  });
  after(async () => {
    await browser?.close();
    await platform?.stop();
    await mailbox?.stop();
    if (files) await rm(files, { recursive: true, force: true });
  });

  const staff = async (...args: string[]) => (await runStaffCli(platform, ...args)).stdout;

  /** The whole page, or (`fullPage` false) what the screen shows: a modal is fixed to the screen. */
  async function snap(target: Page, name: string, fullPage = true) {
    const dir = process.env.SCREENSHOTS;
    if (!dir) return;
    await mkdir(dir, { recursive: true });
    // After the dialog's transition and the fonts.
    await target.waitForTimeout(500);
    await target.screenshot({ path: path.join(dir, `${name}.png`), fullPage });
  }

  it('publishes two jobs with the staff CLI', async () => {
    const example = await staff('jobs', 'publish', '--file', path.join(repoRoot, 'docs/examples/job.json'));
    expect(example).to.match(/^Published senior-red-team-operator /);
    const file = path.join(files, 'platform.json');
    await writeFile(
      file,
      JSON.stringify({
        title: 'Platform Engineer',
        shortDescription: 'Keep thousands of boxes booting, on one host or a whole cluster.',
        description:
          'You run the runtimes that give every player a box: systemd-nspawn here, KubeVirt there.',
        requirements: '- Linux in production\n- Kubernetes operators',
        category: 'PLATFORM_ENGINEERING',
        type: 'CONTRACT',
        level: 'LEAD',
        remote: false,
        location: 'Lisbon, Portugal',
        salaryMin: 9000000,
        skills: ['Kubernetes', 'KubeVirt', 'Go', 'TypeScript', 'systemd', 'nftables'],
        benefits: ['Hardware of your choice'],
      }),
    );
    expect(await staff('jobs', 'publish', '--file', file)).to.match(/^Published platform-engineer /);
  });

  it('lists the open positions and filters them', async () => {
    await page.goto(`${platform.url}/careers`);
    await page.getByText('2 positions found').waitFor();
    await snap(page, 'careers-list-desktop');
    const category = page.getByRole('combobox', { name: 'Category' });
    expect(await category.locator('option').allTextContents()).to.deep.equal([
      'All Categories',
      'PLATFORM ENGINEERING (1)',
      'SECURITY (1)',
    ]);
    await category.selectOption('SECURITY');
    await page.getByText('1 position found').waitFor();
    expect(await page.getByRole('article').count()).to.equal(1);
    await page.getByRole('checkbox', { name: 'Remote Only' }).check();
    await page.getByText('1 position found').waitFor();
    await page.getByRole('button', { name: 'Clear All Filters' }).click();
    await page.getByText('2 positions found').waitFor();
    await page.getByRole('searchbox', { name: 'Search jobs' }).fill('kubevirt');
    await page.getByText('1 position found').waitFor();
    await page.getByRole('article').getByRole('link', { name: 'Platform Engineer', exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Job Type' }).selectOption('INTERNSHIP');
    await page.getByRole('heading', { name: 'No Open Positions Right Now' }).waitFor();
    await page.getByRole('button', { name: 'Clear Filters', exact: true }).click();
    await page.getByText('2 positions found').waitFor();
  });

  let applicationId: string;
  const pdf = minimalPdf('Jane Doe - Offensive Security Resume');

  it('opens a job, applies through the modal with a real PDF, and sees the toast', async () => {
    await page.getByRole('link', { name: 'Senior Red Team Operator', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Senior Red Team Operator' }).waitFor();
    expect(page.url()).to.equal(`${platform.url}/careers/jobs/senior-red-team-operator`);
    await page.getByText('SECURITY · Full Time · Senior').waitFor();
    await page.getByRole('button', { name: 'Back', exact: true }).waitFor();
    await snap(page, 'careers-job-desktop');

    await page.getByRole('button', { name: 'Apply Now' }).click();
    const dialog = page.getByRole('dialog', { name: /Apply for Position/ });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Submit Application' }).click();
    await dialog.getByText(CAREERS_MESSAGES.firstNameRequired).waitFor();
    await dialog.getByText(CAREERS_MESSAGES.resumeRequired).waitFor();

    await dialog.getByLabel(/^First Name/).fill('Jane');
    await dialog.getByLabel(/^Last Name/).fill('Doe');
    await dialog.getByLabel(/^Email/).fill('jane.doe@example.test');
    await dialog.getByLabel(/^Phone/).fill('+351 555 0100');
    await dialog.getByLabel(/^GitHub URL/).fill('https://github.com/jane-doe');
    await dialog.getByLabel(/^Cover Letter/).fill('I break things for a living.\nHere is how.');
    await dialog
      .getByRole('combobox', { name: 'How did you hear about this position?' })
      .selectOption('job_board');
    const resume = path.join(files, 'Jane Doe CV.pdf');
    await writeFile(resume, pdf);
    await dialog.locator('input[type="file"]').setInputFiles(resume);
    await page.getByText(CAREERS_MESSAGES.uploadSucceeded).waitFor();
    await dialog.getByText('Jane Doe CV.pdf').waitFor();
    await snap(page, 'careers-apply-desktop', false);

    const answer = page.waitForResponse((res) => res.url().endsWith('/apply'));
    await dialog.getByRole('button', { name: 'Submit Application' }).click();
    const response = await answer;
    expect(response.status()).to.equal(201);
    applicationId = ((await response.json()) as { applicationId: string }).applicationId;
    await page.getByText(CAREERS_MESSAGES.applySucceeded).waitFor();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('mails the careers mailbox and the applicant', async () => {
    const staffMail = await mailbox.waitFor(
      CAREERS_EMAIL,
      /^\[Careers\] Senior Red Team Operator: Jane Doe$/,
    );
    expect(staffMail.text).to.include(`applications resume ${applicationId}`);
    expect(staffMail.text).to.include('Heard of it through: Job Board');
    await mailbox.waitFor('jane.doe@example.test', /^Your application for Senior Red Team Operator$/);
  });

  it('lists the application with the CLI and downloads the resume byte for byte', async () => {
    const list = await staff('applications', 'list', '--job', 'senior-red-team-operator');
    expect(list).to.match(
      new RegExp(
        `^${applicationId} {2}\\S+Z {2}senior-red-team-operator {2}Jane Doe <jane\\.doe@example\\.test> {2}pdf 1 kB {2}mailed$`,
        'm',
      ),
    );
    const out = (
      await staff('applications', 'resume', applicationId, '--out', path.join(files, 'downloaded'))
    ).trim();
    expect(out).to.equal(path.join(files, 'downloaded.pdf'));
    expect((await readFile(out)).equals(pdf)).to.equal(true);
  });

  it('fits a phone: the list, the job and the modal', async () => {
    const phone = await browser.context.newPage();
    await phone.setViewportSize(PHONE);
    phone.on('pageerror', (err) => problems.push(err.message));
    await phone.goto(`${platform.url}/careers`);
    await phone.getByText('2 positions found').waitFor();
    const overflow = () =>
      phone
        .locator('html')
        .evaluate((html) => html.scrollWidth - (html.ownerDocument.defaultView?.innerWidth ?? 0));
    expect(await overflow(), 'no sideways scrolling on /careers').to.be.at.most(0);
    await snap(phone, 'careers-list-phone');
    // Opened directly: the way back is to /careers.
    await phone.goto(`${platform.url}/careers/jobs/platform-engineer`);
    await phone.getByRole('heading', { level: 1, name: 'Platform Engineer' }).waitFor();
    await phone.getByRole('link', { name: 'Back to Careers' }).waitFor();
    await phone.getByText('From $90k').waitFor();
    expect(await overflow(), 'no sideways scrolling on a job').to.be.at.most(0);
    await snap(phone, 'careers-job-phone');
    await phone.getByRole('button', { name: 'Apply Now' }).click();
    await phone.getByRole('dialog', { name: /Apply for Position/ }).waitFor();
    await snap(phone, 'careers-apply-phone', false);
    await phone.getByRole('button', { name: 'Cancel' }).click();
    await phone.getByRole('dialog').waitFor({ state: 'hidden' });
    // A job that is closed sends visitors back to the list.
    await staff('jobs', 'close', 'platform-engineer');
    await phone.goto(`${platform.url}/careers/jobs/platform-engineer`);
    await phone.waitForURL(`${platform.url}/careers`);
    await phone.getByText('1 position found').waitFor();
    await phone.close();
    // The browser logs a failed request (the closed job's 404) as an error; nothing else may fail.
    expect(problems.filter((p) => !/status of 404/.test(p))).to.deep.equal([]);
  });
});
