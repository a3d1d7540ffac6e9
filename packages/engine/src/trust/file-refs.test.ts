import { createThread, type FileRef, type Part, type Thread } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { createThreadTrust } from './thread-trust.ts';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const trust = createThreadTrust({ secret: SECRET });
const FIELDS = { id: 'file_abc', mediaType: 'image/png', size: 512_000, sha256: 'ab'.repeat(32) };

const threadWith = (part: Part): Thread => createThread('t1', [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'look' }, part] }]);
const filePart = (ref: FileRef, mediaType = ref.mediaType): Part => ({ type: 'file', mediaType, ref });

async function refusal(thread: Thread, principal: string | undefined) {
  return trust.verifyThread(thread, { principal }).then(
    () => undefined,
    (e) => ({ code: e.code, status: e.status, path: e.path }),
  );
}

describe('signed file references', () => {
  it('verifies a reference signed for the same principal, in any thread', async () => {
    const ref = await trust.signFile(FIELDS, { principal: 'carol' });
    expect(ref).toMatchObject(FIELDS);
    expect(ref.signature).toMatch(/^p3\./);
    expect(await refusal(threadWith(filePart(ref)), 'carol')).toBeUndefined();
    expect(await refusal({ ...threadWith(filePart(ref)), id: 'another-thread' }, 'carol')).toBeUndefined();
  });

  it.each<[string, (ref: FileRef) => Part, string | undefined]>([
    ['another principal', (ref) => filePart(ref), 'mallory'],
    ['no principal', (ref) => filePart(ref), undefined],
    ['an unsigned reference', (ref) => filePart({ ...ref, signature: '' }), 'carol'],
    ['a made-up signature', (ref) => filePart({ ...ref, signature: 'p2.xxxxxxxx.' + 'A'.repeat(43) }), 'carol'],
    ['an edited id', (ref) => filePart({ ...ref, id: 'file_other' }), 'carol'],
    ['an edited size', (ref) => filePart({ ...ref, size: 1 }), 'carol'],
    ['an edited hash', (ref) => filePart({ ...ref, sha256: 'cd'.repeat(32) }), 'carol'],
    ['an edited media type', (ref) => filePart({ ...ref, mediaType: 'application/pdf' }), 'carol'],
    ['a part typed differently from its reference', (ref) => filePart(ref, 'application/pdf'), 'carol'],
    ['a size that is not a whole number', (ref) => filePart({ ...ref, size: 1.5 }), 'carol'],
    ['a hash that is not hex', (ref) => filePart({ ...ref, sha256: 'zz'.repeat(32) }), 'carol'],
    ['a p1 signature', (ref) => filePart({ ...ref, signature: `p1.${ref.signature.slice(3)}` }), 'carol'],
  ])('refuses %s with 403 permission at the part', async (_name, edit, principal) => {
    const ref = await trust.signFile(FIELDS, { principal: 'carol' });
    expect(await refusal(threadWith(edit(ref)), principal)).toEqual({ code: 'permission', status: 403, path: ['messages', 0, 'parts', 1] });
  });

  it('is not a tool-call signature: a reference signature does not verify as anything else, nor one from another key', async () => {
    const other = createThreadTrust({ secret: 'another-secret-that-is-long-enough-987654321' });
    const foreign = await other.signFile(FIELDS, { principal: 'carol' });
    expect(await refusal(threadWith(filePart(foreign)), 'carol')).toMatchObject({ code: 'permission' });
  });
});
