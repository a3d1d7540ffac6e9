// Issue #34: one thread open in two tabs (two pages of one browser context: one localStorage, one
// BroadcastChannel, one set of Web Locks, as two tabs of one profile). Nothing written in either is
// lost, each sees the other live, and a deleted thread stays deleted.
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { longSentence } from '../src/server/mock-script.ts';
import { answered, send, stopButton } from './helpers.ts';

const users = (page: Page) => page.getByTestId('user-message');
const answerTexts = (page: Page) => page.getByTestId('assistant-message').getByTestId('answer-text');
const nav = (page: Page) => page.getByRole('navigation', { name: 'Threads' });

/** Two tabs on one new thread: the first sends `first` (which names the thread), the second opens its URL. */
async function twoTabs(context: BrowserContext, page: Page, first: string): Promise<[Page, Page]> {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
  await send(page, first);
  await expect(answerTexts(page).last()).toContainText(`You said: ${first}`, { timeout: 20_000 });
  await answered(page);
  const other = await context.newPage();
  await other.goto(page.url());
  await expect(users(other)).toHaveText([first]);
  return [page, other];
}

/** The thread's stored record in this browser (the demo's localStorage adapter: two slots). */
async function storedRecord(page: Page): Promise<{ deleted?: boolean; thread: { messages: { role: string }[] } } | null> {
  const id = new URL(page.url()).hash.replace('#/t/', '');
  return page.evaluate((id) => {
    const raw = [localStorage.getItem(`parlance-demo:thread:${id}`), localStorage.getItem(`parlance-demo:thread:~2:${id}`)]
      .filter((v): v is string => v !== null)
      .map((v) => JSON.parse(v) as { revision?: number })
      .sort((a, b) => (b.revision ?? 0) - (a.revision ?? 0));
    return (raw[0] as never) ?? null;
  }, id);
}

test('a message sent in one tab shows in the other within a second, with its answer', async ({ context, page }) => {
  const [one, two] = await twoTabs(context, page, 'seed');
  await send(one, 'alpha');
  await expect(users(one)).toHaveText(['seed', 'alpha']);
  // Live, without a reload: it arrives in well under a second on a quiet machine; the bound here is
  // Playwright's default, since CI runs this beside other suites on 2 cores (no timed assertions).
  await expect(users(two)).toHaveText(['seed', 'alpha']);
  await expect(answerTexts(two).last()).toContainText('You said: alpha');
});

test('alternate sends without reloads, then reload both: nothing lost, the same order in both', async ({ context, page }) => {
  const [one, two] = await twoTabs(context, page, 'seed');
  const turns = ['alpha', 'bravo', 'charlie', 'delta'];
  for (const [i, text] of turns.entries()) {
    const tab = i % 2 ? two : one;
    const other = i % 2 ? one : two;
    await send(tab, text);
    await expect(answerTexts(tab).last()).toContainText(`You said: ${text}`);
    await answered(tab);
    await expect(answerTexts(other).last()).toContainText(`You said: ${text}`);
  }
  const all = ['seed', ...turns];
  for (const tab of [one, two]) {
    await tab.reload();
    await expect(users(tab)).toHaveText(all);
    await expect(answerTexts(tab)).toHaveCount(all.length);
    for (const [i, text] of all.entries()) await expect(answerTexts(tab).nth(i)).toContainText(`You said: ${text}`);
  }
  expect((await storedRecord(one))?.thread.messages.map((m) => m.role)).toEqual(all.flatMap(() => ['user', 'assistant']));
});

test('two tabs sending at once: both turns kept, one after the other; the second run starts from a thread holding the first', async ({ context, page }) => {
  const [one, two] = await twoTabs(context, page, 'seed');
  const posted: { tab: string; texts: string[] }[] = [];
  for (const [name, tab] of [['one', one], ['two', two]] as const)
    tab.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/chat') {
        const body = r.postDataJSON() as { thread: { messages: { parts: { type: string; text?: string }[] }[] } };
        posted.push({ tab: name, texts: body.thread.messages.map((m) => m.parts.map((p) => p.text ?? '').join('')) });
      }
    });
  await one.getByRole('textbox', { name: 'Message' }).fill('alpha');
  await two.getByRole('textbox', { name: 'Message' }).fill('bravo');
  await Promise.all([one.getByRole('textbox', { name: 'Message' }).press('Enter'), two.getByRole('textbox', { name: 'Message' }).press('Enter')]);
  // The two runs go one after the other and each demo answer takes ~7 s: the bounds are for both, not a timing claim.
  for (const tab of [one, two]) {
    await expect(users(tab)).toHaveCount(3, { timeout: 20_000 });
    await expect(answerTexts(tab)).toHaveCount(3, { timeout: 20_000 });
    await answered(tab);
  }
  const order = await users(one).allTextContents();
  expect(order.slice(1).sort()).toEqual(['alpha', 'bravo']);
  // Neither tab's saves gave up (a tab waiting to send lost the compare-and-set to each streamed frame of the other, 8 times).
  for (const tab of [one, two]) await expect(tab.getByRole('alert').filter({ hasText: 'not being saved' })).toHaveCount(0);
  await expect(users(two)).toHaveText(order);
  // Two runs; the second was sent the first turn, question and answer.
  expect(posted).toHaveLength(2);
  const [first, second] = [order[1]!, order[2]!];
  expect(posted[0]!.texts).toHaveLength(3);
  expect(posted[0]!.texts[2]).toBe(first);
  expect(posted[1]!.texts).toHaveLength(5);
  expect(posted[1]!.texts[2]).toBe(first);
  expect(posted[1]!.texts[3]).toMatch(new RegExp(`You said: \\W*${first}`));
  expect(posted[1]!.texts[4]).toBe(second);
  for (const tab of [one, two]) {
    await tab.reload();
    await expect(users(tab)).toHaveText(order);
    await expect(answerTexts(tab)).toHaveCount(3);
  }
});

test('a reply streaming in one tab streams in the other (the same run), and Stop there stops it', async ({ context, page }) => {
  const [one, two] = await twoTabs(context, page, 'seed');
  let posts = 0;
  two.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/chat') posts++;
  });
  await send(one, 'long please');
  await expect(users(two)).toHaveText(['seed', 'long please']);
  // The bound is the reply's pace on a loaded machine (the run is followed, not re-posted: `posts` below).
  await expect(answerTexts(two).last()).toContainText(longSentence(2), { timeout: 20_000 });
  await expect(stopButton(two)).toBeVisible();
  await stopButton(two).click();
  await expect(stopButton(one)).toBeHidden();
  await expect(stopButton(two)).toBeHidden();
  await expect(one.getByTestId('stopped')).toBeVisible();
  const text = await answerTexts(one).last().textContent();
  await expect(answerTexts(two).last()).toHaveText(text ?? '');
  expect(posts).toBe(0);
});

test('rename and delete in one tab show in the other; a stale tab that sends after the delete does not bring the thread back', async ({ context, page }) => {
  const [one, two] = await twoTabs(context, page, 'seed');
  await nav(one).getByRole('button', { name: 'Rename seed' }).click();
  await nav(one).getByRole('textbox', { name: 'Thread name' }).fill('Renamed in one');
  await nav(one).getByRole('textbox', { name: 'Thread name' }).press('Enter');
  await expect(nav(two).getByRole('button', { name: 'Renamed in one', exact: true })).toBeVisible();

  // The second tab has a message ready to send when the first deletes the thread.
  await two.getByRole('textbox', { name: 'Message' }).fill('sent after the delete');
  one.once('dialog', (dialog) => void dialog.accept());
  await nav(one).getByRole('button', { name: 'Delete Renamed in one' }).click();
  await two.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(nav(one).getByRole('button', { name: 'Renamed in one', exact: true })).toHaveCount(0);
  await expect(nav(two).getByRole('button', { name: 'Renamed in one', exact: true })).toHaveCount(0);
  await expect(two.getByTestId('deleted')).toBeVisible();
  await expect(two.getByRole('button', { name: 'Send', exact: true })).toBeDisabled();
  // Stored: a tombstone, no message; a reload of either tab does not bring it back.
  const record = await storedRecord(two);
  expect(record).toMatchObject({ deleted: true, thread: { messages: [] } });
  await two.reload();
  await expect(users(two)).toHaveCount(0);
  await expect(two.getByTestId('deleted')).toBeVisible();
  await one.reload();
  await expect(nav(one).getByRole('button', { name: /seed|Renamed in one/ })).toHaveCount(0);
});
