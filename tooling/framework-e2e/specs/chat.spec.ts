// What a user of a framework app relies on, in a real browser against the app's production
// server and the demo's mock model (apps/demo/src/server/mock-script.ts): the answer streams,
// Stop keeps what arrived, a tool waits for approval, and a reload mid-answer resumes it.
import { LONG_SENTENCES, longSentence } from '@parlance/demo/mock-script';
import { demoWeather } from '@parlance/demo/tools';
import { expect, test, type Page } from '@playwright/test';

async function send(page: Page, text: string) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await expect(box).toBeEnabled();
  await box.fill(text);
  await box.press('Enter');
}

const stopButton = (page: Page) => page.getByRole('button', { name: 'Stop', exact: true });
const lastAnswer = (page: Page) => page.locator('[data-role="assistant"]').last();

test.beforeEach(async ({ page }) => {
  await page.goto('/');
});

test('the answer streams in, then Send comes back', async ({ page }) => {
  await send(page, 'hello streaming world');
  await expect(page.locator('[data-role="user"]')).toContainText('hello streaming world');
  await expect(lastAnswer(page)).toContainText('You said');
  // Part of the answer is on screen while the stream still runs.
  await expect(stopButton(page)).toBeVisible();
  const partial = await lastAnswer(page).innerText();
  expect(partial).not.toContain('a simulated provider error');
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible({ timeout: 20_000 });
  await expect(lastAnswer(page)).toContainText('a simulated provider error');
});

test('Stop ends the answer and keeps what arrived', async ({ page }) => {
  await send(page, 'tell me something long');
  await expect(lastAnswer(page)).toContainText(longSentence(3));
  await stopButton(page).click();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  const partial = await lastAnswer(page).innerText();
  expect(partial).toContain(longSentence(1));
  expect(partial).not.toContain(longSentence(LONG_SENTENCES));
  await page.waitForTimeout(800);
  expect(await lastAnswer(page).innerText()).toBe(partial);
});

test('a tool call waits for approval, then runs and is answered', async ({ page }) => {
  await send(page, 'weather in Paris');
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(lastAnswer(page)).toContainText(`${demoWeather('Paris').temperatureC} °C`, { timeout: 20_000 });
  await expect(page.getByRole('button', { name: 'Approve' })).toHaveCount(0);
});

test('a reload mid-answer shows the thread and resumes the stream, each sentence once', async ({ page }) => {
  await send(page, 'a long one');
  await expect(lastAnswer(page)).toContainText(longSentence(3));
  await page.reload();
  await expect(lastAnswer(page)).toContainText(longSentence(LONG_SENTENCES), { timeout: 30_000 });
  const text = await lastAnswer(page).innerText();
  for (let n = 1; n <= LONG_SENTENCES; n++) expect(text.split(longSentence(n)).length - 1, `sentence ${n}`).toBe(1);
  await expect(page.locator('[data-role="user"]')).toHaveText(/a long one/);
});
