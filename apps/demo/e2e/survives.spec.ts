// Issue #12, items 1-4: the chat survives what people do (a reload during an approval,
// a message sent while the run waits, a failed turn, messages sent while a reply
// streams). Runs in the desktop and the 390x844 phone project (playwright.config.ts);
// the pictures are kept under e2e-artifacts/<project>/ and attached to the report.
import { mkdirSync } from 'node:fs';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { ERROR_MESSAGE, longSentence } from '../src/server/mock-script.ts';
import { demoWeather } from '../src/server/tools.ts';
import { answered, lastAnswerText, send, stopButton } from './helpers.ts';

const box = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const sendButton = (page: Page) => page.getByRole('button', { name: 'Send', exact: true });
const approveButton = (page: Page) => page.getByRole('button', { name: 'Approve', exact: true });

async function shot(page: Page, testInfo: TestInfo, name: string) {
  const dir = `e2e-artifacts/${testInfo.project.name || 'default'}`;
  mkdirSync(dir, { recursive: true });
  const path = `${dir}/${name}.png`;
  await page.screenshot({ path });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

/** Counts POST /api/chat requests (a new run or a resume). */
function countChatPosts(page: Page): () => number {
  let n = 0;
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/chat') n++;
  });
  return () => n;
}

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
});

test('1. a reload while an approval is pending keeps the approval, and approving then works', async ({ page }, testInfo) => {
  await send(page, 'weather in Rome');
  const card = page.getByTestId('tool-call').first();
  await expect(card.locator('.tool-state')).toHaveText('needs approval');
  await expect(stopButton(page)).toBeHidden();
  await page.reload();
  await expect(card.locator('.tool-state')).toHaveText('needs approval');
  await expect(approveButton(page)).toBeVisible();
  await shot(page, testInfo, 'approval-after-reload');
  await approveButton(page).click();
  await expect(card.getByTestId('tool-result')).toContainText(`"temperatureC": ${demoWeather('Rome').temperatureC}`);
  await expect(card.locator('.tool-state')).toHaveText('done');
  await expect(lastAnswerText(page)).toContainText(`${demoWeather('Rome').conditions} in Rome`);
  await expect(approveButton(page)).toHaveCount(0);
});

test('2. sending while an approval is pending is refused visibly; the text stays in the box', async ({ page }, testInfo) => {
  const posts = countChatPosts(page);
  await send(page, 'weather in Rome');
  await expect(approveButton(page)).toBeVisible();
  expect(posts()).toBe(1);
  await box(page).fill('and in Oslo?');
  await expect(sendButton(page)).toBeDisabled();
  await box(page).press('Enter');
  await expect(page.getByTestId('send-blocked')).toBeVisible();
  await expect(page.getByTestId('send-blocked')).toContainText('Approve or deny');
  await expect(box(page)).toHaveValue('and in Oslo?');
  await expect(page.getByTestId('user-message')).toHaveCount(1);
  await shot(page, testInfo, 'send-blocked');
  expect(posts()).toBe(1);
  // Nothing was saved either: a reload shows one message and the approval still pending.
  await page.reload();
  await expect(page.getByTestId('user-message')).toHaveCount(1);
  await expect(approveButton(page)).toBeVisible();
  // Deny, and the message can be sent; the card is not left "running".
  await page.getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(lastAnswerText(page)).toContainText('You denied the get_weather call');
  await answered(page);
  await send(page, 'and in Oslo, no tools');
  await expect(lastAnswerText(page)).toContainText('You said: and in Oslo, no tools');
  await expect(page.getByTestId('tool-call').first().locator('.tool-state')).not.toHaveText('running…');
});

test('3. after a failed turn the next message is answered', async ({ page }, testInfo) => {
  await send(page, 'please show an error');
  await expect(page.getByTestId('error')).toContainText(ERROR_MESSAGE);
  await send(page, 'hello after the failure');
  await expect(lastAnswerText(page)).toContainText('You said: hello after the failure');
  await answered(page);
  await expect(page.getByTestId('error')).toHaveCount(0);
  await shot(page, testInfo, 'after-failed-turn');
  // The failed turn stays in the thread (marked) and a reload changes nothing.
  await page.reload();
  await expect(page.getByTestId('user-message')).toHaveCount(2);
  await expect(page.getByTestId('failed-turn')).toContainText(ERROR_MESSAGE);
  await send(page, 'and once more');
  await expect(lastAnswerText(page)).toContainText('You said: and once more');
});

test('4. a message sent while a reply streams shows at once as queued, then is sent', async ({ page }, testInfo) => {
  await send(page, 'long please');
  await expect(lastAnswerText(page)).toContainText(longSentence(2));
  await send(page, 'a queued question');
  const queued = page.getByTestId('queued-message');
  await expect(queued).toHaveCount(1);
  await expect(queued).toContainText('a queued question');
  await expect(queued).toContainText(/queued/i);
  await expect(box(page)).toHaveValue('');
  await shot(page, testInfo, 'queued');
  await expect(queued).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByTestId('user-message').last()).toHaveText('a queued question');
  await expect(lastAnswerText(page)).toContainText('You said: a queued question', { timeout: 20_000 });
});
