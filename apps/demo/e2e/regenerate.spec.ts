// Issue #29, item 4: Regenerate follows one rule for every kind of pause. While the run waits for
// the reader (an approval, a tool's question, a tool the browser answers) it is not offered; once the
// pause is settled and the answer is in, it is. Desktop and phone (playwright.config.ts).
import { expect, test, type Locator, type Page } from '@playwright/test';
import { answered, lastAnswerText, send } from './helpers.ts';

const regenerate = (page: Page) => page.getByRole('button', { name: 'Regenerate', exact: true });
const card = (page: Page, tool: string) => page.locator(`[data-testid="tool-call"][data-tool="${tool}"]`).last();

const pauses: { kind: string; say: string; tool: string; waiting: (call: Locator) => Promise<void>; settle: (call: Locator) => Promise<void>; answer: string }[] = [
  {
    kind: 'approval',
    say: 'weather in Paris',
    tool: 'get_weather',
    waiting: (call) => expect(call.getByRole('button', { name: 'Approve', exact: true })).toBeVisible(),
    settle: (call) => call.getByRole('button', { name: 'Approve', exact: true }).click(),
    answer: 'in Paris',
  },
  {
    kind: 'ask-user',
    say: 'book a table',
    tool: 'book_table',
    waiting: (call) => expect(call).toContainText('For how many people?'),
    settle: async (call) => {
      await call.getByRole('textbox', { name: 'Answer' }).fill('4');
      await call.getByRole('button', { name: 'Answer', exact: true }).click();
    },
    answer: 'Booked a table for 4',
  },
  {
    kind: 'client-tool',
    say: 'where am I?',
    tool: 'get_location',
    waiting: (call) => expect(call.getByRole('button', { name: 'Share location', exact: true })).toBeVisible(),
    settle: (call) => call.getByRole('button', { name: 'Share location', exact: true }).click(),
    answer: 'You are in',
  },
];

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
});

for (const pause of pauses) {
  test(`Regenerate is hidden while the run waits (${pause.kind}), and offered once that is settled`, async ({ page }) => {
    await send(page, pause.say);
    const call = card(page, pause.tool);
    await pause.waiting(call);
    await answered(page);
    await expect(regenerate(page)).toHaveCount(0);
    await pause.settle(call);
    await expect(lastAnswerText(page)).toContainText(pause.answer);
    await answered(page);
    await expect(regenerate(page)).toBeVisible();
  });
}
