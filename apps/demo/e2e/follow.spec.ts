// Issue #29, item 1: the chat follows the conversation. After every send in a mixed session
// (an MCP tool, a failed turn, a short answer, code and a table, a long answer) the newest
// message is in view, on a desktop and on a 390x844 phone; a reader who scrolled up stays where
// they are and gets a "Jump to latest" button instead.
import { expect, test, type Page } from '@playwright/test';
import { answered, send, stopButton } from './helpers.ts';

const messages = (page: Page) => page.getByTestId('messages');
const jump = (page: Page) => page.getByRole('button', { name: 'Jump to latest' });

/** Pixels between the bottom of the message list and the bottom of what is shown. */
const belowView = (page: Page) => messages(page).evaluate((el) => Math.round(el.scrollHeight - el.scrollTop - el.clientHeight));

/** The list is scrolled to its end and the message just sent is on screen. */
async function expectLatestInView(page: Page, sent: string) {
  await expect.poll(() => belowView(page), { message: `the list ends in view after "${sent}"` }).toBeLessThanOrEqual(1);
  await expect(page.locator('.row.user .bubble').filter({ hasText: sent }).last()).toBeInViewport();
}

/** The reader turns the wheel up over the message list. */
async function scrollUp(page: Page) {
  const list = await messages(page).boundingBox();
  await page.mouse.move(list!.x + list!.width / 2, list!.y + list!.height / 2);
  await page.mouse.wheel(0, -600);
}

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
});

/** A part of the long answer (it streams about two sentences a second) has arrived. */
const longReached = (page: Page, n: number) =>
  expect(page.getByTestId('answer-text').last()).toContainText(`Sentence ${n} of`, { timeout: 30_000 });

test('the newest message is in view after every send in a mixed session', async ({ page }) => {
  test.setTimeout(120_000);
  const session = ['roll 2 dice', 'error', 'hi', 'code and a table', 'roll 3 dice', 'error', 'hello'];
  for (const text of session) {
    await send(page, text);
    await answered(page);
    await expectLatestInView(page, text);
    await expect(jump(page)).toHaveCount(0);
  }
  // A long answer is followed while it streams, not only when it ends.
  await send(page, 'long');
  await longReached(page, 12);
  expect(await belowView(page)).toBeLessThanOrEqual(80);
  await stopButton(page).click();
  await answered(page);
  await expectLatestInView(page, 'long');
});

test('a reader who scrolled up stays there, and "Jump to latest" brings them back', async ({ page }) => {
  test.setTimeout(120_000);
  for (const text of ['hi', 'code', 'hello']) {
    await send(page, text);
    await answered(page);
  }
  await send(page, 'long');
  await longReached(page, 4);
  await scrollUp(page);
  await expect(jump(page)).toBeVisible();
  // The answer keeps streaming below; the reader's place does not move.
  await longReached(page, 6);
  const top = await messages(page).evaluate((el) => el.scrollTop);
  await longReached(page, 10);
  expect(await messages(page).evaluate((el) => el.scrollTop)).toBe(top);
  expect(await belowView(page)).toBeGreaterThan(80);
  await jump(page).click();
  await expect.poll(() => belowView(page)).toBeLessThanOrEqual(1);
  await expect(jump(page)).toHaveCount(0);
  await stopButton(page).click();
  // Sending follows again, wherever the reader was.
  await scrollUp(page);
  await expect(jump(page)).toBeVisible();
  await send(page, 'roll 2 dice');
  await answered(page);
  await expectLatestInView(page, 'roll 2 dice');
  await expect(jump(page)).toHaveCount(0);
});
