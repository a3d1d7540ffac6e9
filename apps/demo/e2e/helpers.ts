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

/**
 * Waits for the answer in flight to end. A message first waits as queued while its run takes the
 * thread's cross-tab lock (no stop button yet), then moves into the thread as the run starts (the
 * stop button shows, in the same render): so wait for the queue to empty, then for the stop button
 * to go. Waiting for the stop button alone returned at once while the lock was being taken.
 */
export async function answered(page: Page) {
  await expect(page.getByTestId('queued-message')).toHaveCount(0, { timeout: 20_000 });
  await expect(stopButton(page)).toBeHidden({ timeout: 20_000 });
}
