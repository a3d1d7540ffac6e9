// Attachments in a real browser: drop an image and a PDF on the composer, send, and the mock model
// describes them by the SHA-256 of the bytes it received (src/server/describe-files.ts: the engine
// resolved the thread's signed references into the request); a reload keeps both in the thread.
import { createHash } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { answered, lastAnswerText, send } from './helpers.ts';

/** A 1x1 PNG (a real image, so the browser can make its thumbnail) and a small PDF. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PDF = '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const PNG_SHA = sha256(Buffer.from(PNG, 'base64'));
const PDF_SHA = sha256(Buffer.from(PDF));

/** Drops files on the composer the way a browser does (a DataTransfer with Files). */
async function drop(page: Page) {
  await page.evaluate(
    ({ png, pdf }) => {
      const data = new DataTransfer();
      data.items.add(new File([Uint8Array.from(atob(png), (c) => c.charCodeAt(0))], 'dot.png', { type: 'image/png' }));
      data.items.add(new File([new TextEncoder().encode(pdf)], 'report.pdf', { type: 'application/pdf' }));
      const form = document.querySelector('form.composer')!;
      form.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      form.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    },
    { png: PNG, pdf: PDF },
  );
}

async function expectBothFiles(page: Page) {
  const files = page.getByTestId('message-file');
  await expect(files).toHaveCount(2);
  // The image as a thumbnail, the PDF as a chip with its name and size.
  await expect(files.nth(0).locator('img')).toBeVisible();
  await expect(files.nth(1)).toContainText('report.pdf');
  await expect(files.nth(1)).toContainText(`${Buffer.byteLength(PDF)} B`);
  const answer = lastAnswerText(page);
  await expect(answer).toContainText('I received 2 files');
  await expect(answer).toContainText(`image/png, ${Buffer.from(PNG, 'base64').length} bytes, sha256 ${PNG_SHA}`);
  await expect(answer).toContainText(`application/pdf, ${Buffer.byteLength(PDF)} bytes, sha256 ${PDF_SHA}`);
}

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('combobox')).toHaveValue('demo:mock');
});

test('drop an image and a PDF: previews, the model reads their bytes, and a reload keeps both', async ({ page }) => {
  await drop(page);
  const previews = page.getByTestId('composer-file');
  await expect(previews).toHaveCount(2);
  await expect(previews.nth(0).locator('img')).toBeVisible();
  await expect(previews.nth(1)).toContainText('report.pdf');
  await send(page, 'What are these?');
  await expect(page.getByTestId('composer-file')).toHaveCount(0);
  await answered(page);
  await expectBothFiles(page);
  await page.reload();
  await expectBothFiles(page);
});

test('attach by the button and by paste; remove one before sending', async ({ page }) => {
  await page.getByTestId('attach-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
  await page.getByRole('textbox', { name: 'Message' }).focus();
  await page.evaluate((png) => {
    const data = new DataTransfer();
    data.items.add(new File([Uint8Array.from(atob(png), (c) => c.charCodeAt(0))], 'pasted.png', { type: 'image/png' }));
    document.querySelector('textarea[aria-label="Message"]')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, PNG);
  await expect(page.getByTestId('composer-file')).toHaveCount(2);
  await page.getByRole('button', { name: 'Remove notes.txt' }).click();
  await expect(page.getByTestId('composer-file')).toHaveCount(1);
  await page.getByRole('button', { name: 'Send' }).click();
  await answered(page);
  await expect(lastAnswerText(page)).toContainText(`I received 1 file`);
  await expect(lastAnswerText(page)).toContainText(PNG_SHA);
});

test('a model that reads no images refuses the file before anything is sent, and keeps it in the composer', async ({ page }) => {
  await page.getByRole('combobox').selectOption('demo:mock-small');
  await drop(page);
  await send(page, 'What are these?');
  await expect(page.getByTestId('attach-error')).toContainText('does not read image/png');
  await expect(page.getByTestId('composer-file')).toHaveCount(2);
  await expect(page.getByTestId('user-message-row')).toHaveCount(0);
});

test('editing a message with files sends them again with the new text; a file removed in the editor is left out', async ({ page }) => {
  await drop(page);
  await send(page, 'What are these?');
  await answered(page);
  await expectBothFiles(page);

  // A new text only: both files go with it (before, an edit resent the text alone).
  await page.getByTestId('user-message-row').getByRole('button', { name: 'Edit' }).click();
  const editor = page.getByTestId('user-message-editor');
  await expect(editor.getByTestId('message-file')).toHaveCount(2);
  await editor.getByRole('textbox', { name: 'Edit message' }).fill('Describe them again');
  await editor.getByRole('button', { name: 'Save & send' }).click();
  await expect(page.getByTestId('user-message')).toHaveText('Describe them again');
  await expect(page.getByTestId('versions')).toContainText('2/2');
  await answered(page);
  await expectBothFiles(page);

  // Remove the PDF in the editor: only the image is sent.
  await page.getByTestId('user-message-row').getByRole('button', { name: 'Edit' }).click();
  await editor.getByRole('button', { name: 'Remove report.pdf' }).click();
  await expect(editor.getByTestId('message-file')).toHaveCount(1);
  await editor.getByRole('button', { name: 'Save & send' }).click();
  await expect(page.getByTestId('versions')).toContainText('3/3');
  await answered(page);
  await expect(page.getByTestId('message-file')).toHaveCount(1);
  await expect(lastAnswerText(page)).toContainText('I received 1 file');
  await expect(lastAnswerText(page)).toContainText(PNG_SHA);
  await expect(lastAnswerText(page)).not.toContainText(PDF_SHA);
});
