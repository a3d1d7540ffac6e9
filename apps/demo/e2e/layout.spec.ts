// What people do with the demo beyond the happy path, on a desktop and on a 390x844 phone
// (the `phone` project in playwright.config.ts runs this file too): layout that never
// scrolls sideways, long and rich answers, and the small things chat products get right.
import { mkdirSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { answered, answers, send, stopButton } from './helpers.ts';

/** On a phone the thread list is a drawer behind the "Threads" button. */
async function openThreads(page: Page) {
  if (!(await page.getByRole('navigation', { name: 'Threads' }).isVisible())) await page.getByRole('button', { name: 'Threads' }).click();
}

/** A picture of the page under e2e-artifacts/ (gitignored), named per project. */
async function shot(page: Page, name: string) {
  mkdirSync('e2e-artifacts', { recursive: true });
  await page.screenshot({ path: `e2e-artifacts/${test.info().project.name}-${name}.png`, fullPage: false });
}

/** Nothing on the page is wider than the viewport, so nothing scrolls sideways. */
async function expectNoSidewaysScroll(page: Page) {
  const { scroll, width, pane, paneWidth } = await page.evaluate(() => {
    const messages = document.querySelector<HTMLElement>('[data-testid="messages"]');
    return {
      scroll: document.documentElement.scrollWidth,
      width: window.innerWidth,
      pane: messages?.scrollWidth ?? 0,
      paneWidth: messages?.clientWidth ?? 0,
    };
  });
  expect(scroll).toBeLessThanOrEqual(width);
  expect(pane).toBeLessThanOrEqual(paneWidth);
}

/** The element lies inside the viewport horizontally, so a finger or a mouse can reach it. */
async function expectWithinViewport(page: Page, name: string, box: { x: number; width: number } | null) {
  const width = page.viewportSize()!.width;
  expect(box, `${name} is rendered`).not.toBeNull();
  expect(box!.x, `${name} starts on screen`).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width, `${name} ends on screen`).toBeLessThanOrEqual(width);
}

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
});

test('the chat column takes the screen and nothing scrolls sideways; the thread list is one tap away', async ({ page }) => {
  const width = page.viewportSize()!.width;
  const main = await page.locator('main').boundingBox();
  // On a phone the chat gets the whole width; on a desktop the sidebar sits beside it.
  if (width < 700) expect(main!.width).toBeGreaterThanOrEqual(width - 1);
  else expect(main!.width).toBeGreaterThan(width / 2);
  await expectNoSidewaysScroll(page);
  const threads = page.getByRole('navigation', { name: 'Threads' });
  if (width < 700) {
    await expect(threads).toBeHidden();
    await page.getByRole('button', { name: 'Threads' }).click();
  }
  await expect(threads).toBeVisible();
  await expectWithinViewport(page, 'new chat', await page.getByRole('button', { name: '+ New chat' }).boundingBox());
  await shot(page, 'layout-threads');
});

test('an approval on a phone: the card and its buttons stay on screen', async ({ page }) => {
  await send(page, 'weather in Rome');
  const approve = page.getByRole('button', { name: 'Approve' });
  await expect(approve).toBeVisible({ timeout: 20_000 });
  await expectNoSidewaysScroll(page);
  await expectWithinViewport(page, 'Approve', await approve.boundingBox());
  await expectWithinViewport(page, 'Deny', await page.getByRole('button', { name: 'Deny' }).boundingBox());
  await expectWithinViewport(page, 'Message box', await page.getByRole('textbox', { name: 'Message' }).boundingBox());
  await shot(page, 'approval');
  await approve.click();
  await expect(answers(page).last()).toContainText('°C', { timeout: 20_000 });
});

test('long unbroken text wraps inside the message pane', async ({ page }) => {
  const word = 'x'.repeat(3000);
  await send(page, word);
  await answered(page);
  await expect(answers(page).last()).toContainText('xxxxxxxxxx');
  await expectNoSidewaysScroll(page);
  await shot(page, 'long-text');
});

test('code blocks and tables in answers are styled and scroll inside themselves', async ({ page }) => {
  await send(page, 'show me some code and a table');
  await answered(page);
  const answer = answers(page).last();
  const code = answer.locator('pre > code');
  await expect(code).toContainText('function greet');
  const pre = await answer.locator('pre').first().evaluate((el) => {
    const s = getComputedStyle(el);
    return { overflowX: s.overflowX, background: s.backgroundColor };
  });
  expect(pre.overflowX).toBe('auto');
  expect(pre.background).not.toBe('rgba(0, 0, 0, 0)');
  const table = answer.locator('table');
  await expect(table.locator('th').first()).toHaveText('Dialect');
  const cell = await table.locator('td').first().evaluate((el) => getComputedStyle(el).borderBottomStyle);
  expect(cell).not.toBe('none');
  await expectNoSidewaysScroll(page);
  await shot(page, 'code-and-table');
});

test('a denied tool call reads as denied, not as a red error', async ({ page }) => {
  await send(page, 'weather in Oslo');
  await page.getByRole('button', { name: 'Deny' }).click({ timeout: 20_000 });
  const card = page.getByTestId('tool-call').last();
  await expect(card.locator('.tool-state')).toHaveText('denied', { timeout: 20_000 });
  await expect(card).not.toHaveClass(/is-error/);
  await answered(page);
  await expect(answers(page).last()).toContainText('You denied');
});

test('Markdown markers never show raw while an answer streams', async ({ page }) => {
  await send(page, 'bold moves only');
  const answer = answers(page).last();
  const seen: string[] = [];
  // Sample the answer's visible text while it streams; `**` must never be on screen.
  for (let i = 0; i < 200; i++) {
    const text = await answer.innerText().catch(() => '');
    seen.push(text);
    if (!(await stopButton(page).isVisible())) break;
    await page.waitForTimeout(15);
  }
  expect(seen.filter((t) => t.includes('You said')).length).toBeGreaterThan(0);
  expect(seen.filter((t) => t.includes('**'))).toEqual([]);
});

test('reasoning is open while it streams and folds away when the answer is done', async ({ page }) => {
  await send(page, 'tell me something long');
  const reasoning = answers(page).last().locator('details.reasoning');
  await expect(reasoning).toHaveAttribute('open', '');
  await expect(answers(page).last().getByTestId('answer-text')).toBeVisible();
  await answered(page);
  await expect(reasoning).not.toHaveAttribute('open');
});

test('a tool turn shows one usage footer, and usage shows while the answer streams', async ({ page }) => {
  await send(page, 'what time is it');
  await answered(page);
  await expect(page.getByTestId('usage')).toHaveCount(1);
  await send(page, 'tell me something long');
  await expect(stopButton(page)).toBeVisible();
  await expect(answers(page).last().getByTestId('usage')).toContainText(' in', { timeout: 10_000 });
  await expect(stopButton(page)).toBeVisible();
  await stopButton(page).click();
});

test('Regenerate does not narrow the message box', async ({ page }) => {
  const box = page.getByRole('textbox', { name: 'Message' });
  const before = (await box.boundingBox())!.width;
  await send(page, 'hello there');
  await answered(page);
  // `answered` can pass before Stop first shows; Regenerate comes once the answer is done, which on a
  // busy CI machine can take longer than the default 5 s.
  await expect(page.getByRole('button', { name: 'Regenerate' })).toBeVisible({ timeout: 20_000 });
  expect((await box.boundingBox())!.width).toBe(before);
});

test('Escape stops a streaming answer', async ({ page }) => {
  await send(page, 'tell me something long');
  await expect(stopButton(page)).toBeVisible();
  await expect(answers(page).last().getByTestId('answer-text')).toContainText('Sentence 1');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('stopped')).toBeVisible();
});

test('threads can be renamed and deleted, and that survives a reload', async ({ page }) => {
  await send(page, 'first thread');
  await answered(page);
  const nav = page.getByRole('navigation', { name: 'Threads' });
  await openThreads(page);
  await page.getByRole('button', { name: '+ New chat' }).click();
  await send(page, 'second thread');
  await answered(page);
  await openThreads(page);
  await nav.getByRole('button', { name: 'Rename first thread' }).click();
  const name = nav.getByRole('textbox', { name: 'Thread name' });
  await name.fill('Renamed chat');
  await name.press('Enter');
  await expect(nav.getByRole('button', { name: 'Renamed chat', exact: true })).toBeVisible();
  page.once('dialog', (dialog) => void dialog.accept());
  await nav.getByRole('button', { name: 'Delete second thread' }).click();
  await expect(nav.getByRole('button', { name: 'second thread', exact: true })).toHaveCount(0);
  await page.reload();
  await openThreads(page);
  await expect(nav.getByRole('button', { name: 'Renamed chat', exact: true })).toBeVisible();
  await expect(nav.getByRole('button', { name: 'second thread', exact: true })).toHaveCount(0);
});

test('a page load asks for nothing that is not there (favicon included)', async ({ page }) => {
  const missing: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) missing.push(`${response.status()} ${response.url()}`);
  });
  await page.reload();
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
  await page.waitForLoadState('networkidle');
  expect(missing).toEqual([]);
  // Browsers ask for /favicon.ico on their own (headless Chromium does not), and for the linked icon.
  const icon = await page.locator('link[rel="icon"]').getAttribute('href');
  expect(icon).toBeTruthy();
  for (const path of [icon!, '/favicon.ico']) {
    const response = await page.request.get(path);
    expect(response.status(), path).toBe(200);
    expect(response.headers()['content-type'], path).toMatch(/^image\//);
  }
});

test('a tool call that was never run (its run was cancelled) does not claim to be running', async ({ page }) => {
  // A thread as a run cancelled mid-tool leaves it: the call, no result, no pause.
  const thread = {
    version: 1,
    id: 'th_cancelledtool',
    messages: [
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'weather in Rome' }] },
      { id: 'a1', role: 'assistant', parts: [{ type: 'tool-call', id: 'call_1', name: 'get_weather', input: { city: 'Rome' } }] },
    ],
  };
  await page.evaluate((t) => localStorage.setItem(`parlance-demo:thread:${t.id}`, JSON.stringify(t)), thread);
  await page.goto(`/#/t/${thread.id}`);
  const card = page.getByTestId('tool-call');
  await expect(card).toBeVisible();
  await expect(card.locator('.tool-state')).toHaveText('not run');
  await expect(page.getByRole('button', { name: 'Approve' })).toHaveCount(0);
});
