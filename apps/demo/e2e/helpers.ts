// What every demo spec does: type a message, find the answers, wait for the answer in flight.
import { expect, type Page } from '@playwright/test';

export async function send(page: Page, text: string) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

export const stopButton = (page: Page) => page.getByRole('button', { name: 'Stop', exact: true });
export const answers = (page: Page) => page.getByTestId('assistant-message');
export const lastAnswerText = (page: Page) => answers(page).last().getByTestId('answer-text').last();

/** Waits for the answer in flight to end (the stop button goes away). */
export async function answered(page: Page) {
  await expect(stopButton(page)).toBeHidden({ timeout: 20_000 });
}
