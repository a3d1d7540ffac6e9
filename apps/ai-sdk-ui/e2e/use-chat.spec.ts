// useChat, unmodified, against Parlance's AI SDK route on the demo's mock model, in chromium.
import { expect, type Page, test } from '@playwright/test';

async function say(page: Page, text: string) {
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

const assistant = (page: Page) => page.locator('li[data-role="assistant"]').last();

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await page.evaluate(() => sessionStorage.clear());
  await page.reload();
});

test('streams reasoning and text, and regenerates the reply', async ({ page }) => {
  await say(page, 'hello there');
  await expect(assistant(page).locator('[data-part="reasoning"]')).toContainText('The user wrote "hello there"');
  await expect(assistant(page).locator('[data-part="text"]')).toContainText('You said: **hello there**');
  await expect(page.locator('main')).toHaveAttribute('data-status', 'ready');
  await page.getByRole('button', { name: 'Regenerate' }).click();
  await expect(page.locator('main')).toHaveAttribute('data-status', 'ready');
  await expect(page.locator('li[data-role="assistant"]')).toHaveCount(1);
  await expect(assistant(page).locator('[data-part="text"]')).toContainText('You said: **hello there**');
});

test('runs a server tool', async ({ page }) => {
  await say(page, 'what time is it');
  const tool = assistant(page).locator('[data-part="tool"][data-tool="get_time"]');
  await expect(tool).toHaveAttribute('data-state', 'output-available');
  await expect(tool.locator('[data-field="output"]')).toContainText('"timeZone":"UTC"');
  await expect(assistant(page).locator('[data-part="text"]').last()).toContainText('The time in UTC is');
});

test('asks for approval and runs the tool once approved, in the same message', async ({ page }) => {
  await say(page, 'weather in Paris');
  const tool = assistant(page).locator('[data-part="tool"][data-tool="get_weather"]');
  await expect(tool).toHaveAttribute('data-state', 'approval-requested');
  await tool.getByRole('button', { name: 'Approve' }).click();
  await expect(tool).toHaveAttribute('data-state', 'output-available');
  await expect(assistant(page).locator('[data-part="text"]').last()).toContainText('in Paris right now');
  await expect(page.locator('main')).toHaveAttribute('data-status', 'ready');
  await expect(page.locator('li[data-role="assistant"]')).toHaveCount(1);
  // The signed thread went back and verified: the conversation goes on.
  await say(page, 'thanks');
  await expect(page.locator('li[data-role="assistant"]')).toHaveCount(2);
  await expect(assistant(page).locator('[data-part="text"]')).toContainText('You said: **thanks**');
});

test('answers a client tool in the browser and goes on', async ({ page }) => {
  await say(page, 'where am I');
  const tool = assistant(page).locator('[data-part="tool"][data-tool="get_location"]');
  await expect(tool).toHaveAttribute('data-state', 'output-available');
  await expect(assistant(page).locator('[data-part="text"]').last()).toContainText('You are in **Lisbon**, says your browser.');
  await expect(page.locator('li[data-role="assistant"]')).toHaveCount(1);
});

test('stops a reply, keeping what arrived, and the server stops the run', async ({ page }) => {
  await say(page, 'long');
  const text = assistant(page).locator('[data-part="text"]');
  await expect(text).toContainText('Sentence 2 of the long answer.');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.locator('main')).toHaveAttribute('data-status', 'ready');
  expect(await text.textContent()).not.toContain('Sentence 30 of the long answer.');
  // The server cancelled the run once the connection had been gone for a second (CANCEL_AFTER_MS):
  // after a reload the resumed run ends where it was cancelled, long before its last sentence.
  await page.waitForTimeout(1_500);
  await page.reload();
  await expect(text).toContainText('Sentence 2 of the long answer.');
  await expect(page.locator('main')).toHaveAttribute('data-status', 'ready');
  expect(await text.textContent()).not.toContain('Sentence 30 of the long answer.');
  await say(page, 'hello again');
  await expect(assistant(page).locator('[data-part="text"]')).toContainText('You said: **hello again**');
});

test('resumes a reply after a reload', async ({ page }) => {
  await say(page, 'long');
  await expect(assistant(page).locator('[data-part="text"]')).toContainText('Sentence 2 of the long answer.');
  const resumed = page.waitForResponse((r) => /\/api\/chat\/[^/]+\/stream$/.test(r.url()) && r.status() === 200);
  await page.reload();
  await resumed;
  await expect(assistant(page).locator('[data-part="text"]')).toContainText('Sentence 30 of the long answer.', { timeout: 20_000 });
  await expect(page.locator('main')).toHaveAttribute('data-status', 'ready');
  await expect(page.locator('li[data-role="user"]')).toHaveCount(1);
  await expect(page.locator('li[data-role="assistant"]')).toHaveCount(1);
});

// A turn that paused and went on is one UI message over several runs: a reload while the
// continuation streams resumes with every run of it, so useChat (which resets the message on a
// resumed stream's start) gets the whole message back, not a continuation without its tool call.
for (const flow of [
  { name: 'an approval', say: 'weather in Paris', tool: 'get_weather', answer: (page: Page) => assistant(page).getByRole('button', { name: 'Approve' }).click(), done: 'in Paris right now' },
  { name: 'a client tool (addToolOutput)', say: 'where am I', tool: 'get_location', answer: async () => {}, done: 'You are in **Lisbon**, says your browser.' },
]) {
  test(`resumes the whole message after a reload mid-continuation, after ${flow.name}`, async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // The continuation is the second POST of the turn: reload as soon as its stream starts.
    let posts = 0;
    const continuation = page.waitForResponse((r) => r.url().endsWith('/api/chat') && r.request().method() === 'POST' && ++posts === 2);
    await say(page, flow.say);
    const tool = assistant(page).locator(`[data-part="tool"][data-tool="${flow.tool}"]`);
    await expect(tool).toBeVisible();
    await flow.answer(page);
    await continuation;
    const resumed = page.waitForResponse((r) => /\/api\/chat\/[^/]+\/stream$/.test(r.url()) && r.status() === 200);
    await page.reload();
    await resumed;
    await expect(page.locator('main')).toHaveAttribute('data-status', 'ready');
    await expect(page.getByRole('alert')).toHaveCount(0);
    await expect(page.locator('li[data-role="assistant"]')).toHaveCount(1);
    await expect(tool).toHaveAttribute('data-state', 'output-available');
    await expect(assistant(page).locator('[data-part="text"]').last()).toContainText(flow.done);
    expect(errors).toEqual([]);
    // The thread it holds verifies: the conversation goes on.
    await say(page, 'thanks');
    await expect(page.locator('li[data-role="assistant"]')).toHaveCount(2);
    await expect(assistant(page).locator('[data-part="text"]')).toContainText('You said: **thanks**');
  });
}
