// The normal flows through the server's trust boundary (SECURITY.md): every tool call, result and
// pause the browser holds is signed by the server, and every answer goes back with the signed
// thread. A question, a client tool, a pause reloaded from storage and a thread saved by the
// previous version all still work; an edited call is refused and nothing runs.
import { expect, test } from '@playwright/test';
import { demoWeather } from '../src/server/tools.ts';
import { answered, lastAnswerText, send } from './helpers.ts';

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
});

test('ask-user: the tool asks a question, the answer resumes the run', async ({ page }) => {
  await send(page, 'Please book a table');
  const call = page.locator('[data-testid="tool-call"][data-tool="book_table"]');
  await expect(call).toContainText('For how many people?');
  await call.getByRole('textbox', { name: 'Answer' }).fill('4');
  await call.getByRole('button', { name: 'Answer', exact: true }).click();
  await expect(call.getByTestId('tool-result')).toContainText('4');
  await expect(lastAnswerText(page)).toContainText('Booked a table for 4');
  await answered(page);
});

test('a client tool: the browser answers the call and the run goes on', async ({ page }) => {
  await send(page, 'where am I?');
  const call = page.locator('[data-testid="tool-call"][data-tool="get_location"]');
  await call.getByRole('button', { name: 'Share location', exact: true }).click();
  await expect(call.getByTestId('tool-result')).toContainText('Lisbon');
  await expect(lastAnswerText(page)).toContainText('You are in Lisbon');
  await answered(page);
});

test('a pause survives a reload: the saved, signed thread is approved after it', async ({ page }) => {
  await send(page, 'What is the weather in Oslo?');
  await expect(page.getByRole('button', { name: 'Approve', exact: true })).toBeVisible({ timeout: 20_000 });
  await answered(page);
  await page.reload();
  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  const weather = demoWeather('Oslo');
  await expect(page.getByTestId('tool-result').last()).toContainText(`"temperatureC": ${weather.temperatureC}`);
  await expect(lastAnswerText(page)).toContainText(`${weather.temperatureC} °C and ${weather.conditions} in Oslo`);
});

test('a thread saved by the previous version (no record wrapper, `content` messages) loads and goes on', async ({ page }) => {
  const old = {
    id: 'th_oldversion1',
    messages: [
      { id: 'u_old', role: 'user', content: 'Remember the red fox' },
      { id: 'a_old', role: 'assistant', content: 'I will remember the red fox.' },
    ],
  };
  await page.evaluate((t) => localStorage.setItem(`parlance-demo:thread:${t.id}`, JSON.stringify(t)), old);
  await page.goto(`/#/t/${old.id}`);
  await expect(page.getByTestId('user-message').first()).toHaveText('Remember the red fox');
  await expect(lastAnswerText(page)).toContainText('I will remember the red fox.');
  await send(page, 'and what did I say?');
  await expect(page.getByTestId('user-message')).toHaveCount(2);
  await expect(lastAnswerText(page)).toContainText('You said: and what did I say?', { timeout: 20_000 });
  await answered(page);
  await page.reload();
  await expect(page.getByTestId('user-message')).toHaveCount(2);
});

test('an approval of a call whose arguments were edited in storage is refused, and the tool does not run', async ({ page }) => {
  await send(page, 'What is the weather in Paris?');
  await expect(page.getByRole('button', { name: 'Approve', exact: true })).toBeVisible({ timeout: 20_000 });
  await answered(page);
  // The browser's copy of the thread, edited the way a user with devtools could.
  await page.evaluate(() => {
    const key = Object.keys(localStorage).find((k) => k.startsWith('parlance-demo:thread:'))!;
    localStorage.setItem(key, localStorage.getItem(key)!.replaceAll('"city":"Paris"', '"city":"Mallory"'));
  });
  await page.reload();
  const refused = page.waitForResponse((r) => r.url().endsWith('/api/chat') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  expect((await refused).status()).toBe(403);
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(page.getByTestId('tool-result')).toHaveCount(0);
});
