// The demo in a real browser (Debian's chromium) against the production-style server and
// the built-in mock model, whose script reacts to the words sent (src/server/mock-script.ts).
import { mkdirSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { ERROR_MESSAGE, LONG_SENTENCES, longSentence } from '../src/server/mock-script.ts';
import { demoWeather } from '../src/server/tools.ts';
import { answered, answers, lastAnswerText, send, stopButton } from './helpers.ts';


/** A picture of the page under e2e-artifacts/ (gitignored), to look at what the tests saw. */
async function shot(page: Page, name: string) {
  mkdirSync('e2e-artifacts', { recursive: true });
  await page.screenshot({ path: `e2e-artifacts/${name}.png` });
}

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
});

test('the mock model is offered and clearly labelled', async ({ page }) => {
  await expect(page.getByRole('combobox').locator('option:checked')).toHaveText('Demo model (mock, no API key)');
  await expect(page.locator('.badge')).toHaveText('mock');
});

test('a sent message streams in incrementally', async ({ page }) => {
  await send(page, 'hello streaming world');
  await expect(page.getByTestId('user-message')).toHaveText('hello streaming world');
  const answer = lastAnswerText(page);
  await expect(answer).toContainText('You said');
  // Part of the answer is on screen while the stream is still running.
  const partial = await answer.innerText();
  await expect(stopButton(page)).toBeVisible();
  expect(partial).not.toContain('a simulated provider error');
  await answered(page);
  await expect(answer).toContainText('a simulated provider error');
  expect((await answer.innerText()).length).toBeGreaterThan(partial.length);
  // Reasoning streamed first, in a collapsed block; usage and cost under the message.
  const reasoning = answers(page).last().locator('details.reasoning');
  await expect(reasoning).not.toHaveAttribute('open');
  await reasoning.locator('summary').click();
  await expect(reasoning).toContainText('hello streaming world');
  await expect(answers(page).last().getByTestId('usage')).toHaveText(/^\d+ in · \d+ out · \$\d/);
});

test('stop mid-stream keeps the partial answer', async ({ page }) => {
  await send(page, 'tell me something long');
  const answer = lastAnswerText(page);
  await expect(answer).toContainText(longSentence(3));
  await stopButton(page).click();
  await expect(page.getByTestId('stopped')).toBeVisible();
  const partial = await answer.innerText();
  expect(partial).toContain(longSentence(1));
  expect(partial).not.toContain(longSentence(LONG_SENTENCES));
  // Nothing more arrives, and the partial answer is what the thread keeps.
  await page.waitForTimeout(800);
  expect(await answer.innerText()).toBe(partial);
  await page.reload();
  await expect(lastAnswerText(page)).toHaveText(partial);
});

test('regenerate replaces the last answer with a new one', async ({ page }) => {
  await send(page, 'hi, then regenerate');
  await expect(answers(page).last().getByTestId('usage')).toBeVisible({ timeout: 20_000 });
  const before = await answers(page).last().getAttribute('data-message-id');
  await page.getByRole('button', { name: 'Regenerate', exact: true }).click();
  await expect(answers(page).last()).not.toHaveAttribute('data-message-id', before!);
  await expect(answers(page).last().getByTestId('usage')).toBeVisible({ timeout: 20_000 });
  await expect(answers(page)).toHaveCount(1);
  await expect(lastAnswerText(page)).toContainText('You said: hi, then regenerate');
});

test('a reload mid-stream resumes without duplicated text', async ({ page }) => {
  await send(page, 'long please');
  await expect(lastAnswerText(page)).toContainText(longSentence(5));
  await page.reload();
  const answer = lastAnswerText(page);
  await expect(answer).toContainText(longSentence(LONG_SENTENCES), { timeout: 20_000 });
  await answered(page);
  const text = await answer.innerText();
  for (let n = 1; n <= LONG_SENTENCES; n++) {
    expect(text.split(longSentence(n)).length - 1, `"${longSentence(n)}" appears once`).toBe(1);
  }
  await expect(answers(page)).toHaveCount(1);
  await expect(page.getByTestId('user-message')).toHaveCount(1);
});

test('tool approval: approve runs the tool, deny does not', async ({ page }) => {
  await send(page, 'What is the weather in Paris?');
  const first = page.getByTestId('tool-call').first();
  await expect(first).toContainText('needs approval');
  await expect(first.locator('.tool-args')).toContainText('"city": "Paris"');
  await shot(page, 'approval');
  await first.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(first.getByTestId('tool-result')).toContainText(`"temperatureC": ${demoWeather('Paris').temperatureC}`);
  await expect(first.locator('.tool-state')).toHaveText('done');
  await expect(lastAnswerText(page)).toContainText(`${demoWeather('Paris').temperatureC} °C and ${demoWeather('Paris').conditions} in Paris`);
  await answered(page);

  await send(page, 'and the weather in Oslo?');
  const second = page.getByTestId('tool-call').nth(1);
  await expect(second).toContainText('needs approval');
  await second.getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(second.getByTestId('tool-result')).toContainText('The user denied this tool call');
  // A denial is the user's choice, not a failure: labelled as such, not as a red error.
  await expect(second.locator('.tool-state')).toHaveText('denied');
  await expect(lastAnswerText(page)).toContainText('You denied the get_weather call');
  await expect(page.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);
});

test('a thread survives a reload and is listed in the sidebar', async ({ page }) => {
  await send(page, 'Remember the blue whale');
  await expect(answers(page).last().getByTestId('usage')).toBeVisible({ timeout: 20_000 });
  const url = page.url();
  await page.reload();
  expect(page.url()).toBe(url);
  await expect(page.getByTestId('user-message')).toHaveText('Remember the blue whale');
  await expect(lastAnswerText(page)).toContainText('You said: Remember the blue whale');
  const threads = page.getByRole('navigation', { name: 'Threads' });
  await expect(threads.getByRole('button', { name: 'Remember the blue whale', exact: true })).toBeVisible();

  await page.getByRole('button', { name: '+ New chat' }).click();
  await expect(page.getByTestId('user-message')).toHaveCount(0);
  await threads.getByRole('button', { name: 'Remember the blue whale', exact: true }).click();
  await expect(page.getByTestId('user-message')).toHaveText('Remember the blue whale');
});

test('a provider error is shown with a readable message', async ({ page }) => {
  await send(page, 'please show an error');
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('The model could not answer.');
  await expect(alert).toContainText(ERROR_MESSAGE);
  const text = await alert.innerText();
  expect(text).not.toMatch(/\[object|undefined|\bat \S+:\d+/);
  await expect(alert.getByRole('button', { name: 'Retry' })).toBeVisible();
  await shot(page, 'error');
});

test('a finished conversation, as a screenshot artifact', async ({ page }, testInfo) => {
  await send(page, 'Hi! What can you do?');
  await answered(page);
  await expect(answers(page).last().getByTestId('usage')).toBeVisible();
  await send(page, 'weather in Lisbon');
  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(lastAnswerText(page)).toContainText('in Lisbon right now');
  await answered(page);
  await send(page, 'what time is it?');
  await expect(lastAnswerText(page)).toContainText('The time in UTC is');
  await answered(page);
  // get_time ran without asking.
  await expect(page.getByTestId('tool-call').last().locator('.tool-state')).toHaveText('done');
  await page.locator('details.reasoning summary').first().click();
  await expect(page.getByRole('button', { name: 'Regenerate', exact: true })).toBeVisible();

  // The messages scroll inside their column: grow the window so the whole conversation is in the picture.
  const overflow = await page.getByTestId('messages').evaluate((el) => el.scrollHeight - el.clientHeight);
  await page.setViewportSize({ width: 1200, height: 860 + Math.max(0, overflow) });
  mkdirSync('e2e-artifacts', { recursive: true });
  const path = 'e2e-artifacts/conversation.png';
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach('conversation', { path, contentType: 'image/png' });
});
