/**
 * The chat follows the conversation: while the reader is at the bottom, every change to the
 * message list (a new message, a streamed delta, a tool card, an error) scrolls it back to the
 * bottom. Scrolling up leaves it where the reader put it and reports `away`, so the page can offer
 * "Jump to latest"; scrolling back down (or jumping, or sending) follows again.
 */
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';

/** How close to the bottom (px) still counts as "at the bottom" when the reader scrolls down. */
const NEAR_BOTTOM = 80;

/** The reader's own input on the list: a scroll up this soon after one is theirs (the first move of a drag or a fling comes sooner). */
const READER_INPUT = ['pointerdown', 'touchstart', 'touchmove', 'keydown'] as const;
const READER_INPUT_MS = 1_000;

/**
 * Follows the newest content of `scroller`; `key` restarts it (a new thread starts at the bottom).
 *
 * @example
 * const { away, follow } = useFollowLatest(scroller, chat.store);
 * // on send: follow(); render a "Jump to latest" button while `away`
 */
export function useFollowLatest(scroller: RefObject<HTMLElement | null>, key: unknown) {
  const [away, setAway] = useState(false);
  const followRef = useRef<() => void>(() => {});

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is the restart signal (another thread), not read inside
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    let stuck = true;
    let last = el.scrollTop;
    let frame = 0;
    const setStuck = (value: boolean) => {
      stuck = value;
      setAway(!value);
    };
    const toBottom = () => {
      frame = 0;
      if (stuck) el.scrollTop = el.scrollHeight;
    };
    const schedule = () => {
      if (stuck && !frame) frame = requestAnimationFrame(toBottom);
    };
    // Only the reader moving up un-sticks. Recomputing "near the bottom" on every scroll event was
    // wrong (issue #29): the event that follows the chat's own scroll arrives a frame later, and a
    // block taller than NEAR_BOTTOM added in that frame made it read as the reader leaving.
    // A move up un-sticks only when the reader did it (touch, keys, the scroll bar: input on the list
    // just before): the list itself moves up when a block is replaced in one frame (a failed turn's
    // empty answer by its error card: the browser clamps the scroll, then the card grows the list),
    // and that read as the reader leaving (a CI run of follow.spec after "error").
    const onScroll = () => {
      const top = el.scrollTop;
      if (el.scrollHeight - top - el.clientHeight < NEAR_BOTTOM) setStuck(true);
      else if (top < last && performance.now() - input < READER_INPUT_MS) setStuck(false);
      last = top;
    };
    let input = Number.NEGATIVE_INFINITY;
    const onInput = () => {
      input = performance.now();
    };
    // A wheel turned up un-sticks at once: its scroll event could otherwise come after a follow
    // already pulled the list back down, and the reader's move would be lost.
    const onWheel = (event: WheelEvent) => {
      if (event.deltaY < 0 && el.scrollHeight > el.clientHeight) setStuck(false);
    };
    // Every change of the rendered list (React commits, Markdown re-renders) is one observer callback.
    const observer = new MutationObserver(schedule);
    observer.observe(el, { childList: true, subtree: true, characterData: true });
    el.addEventListener('scroll', onScroll, { passive: true });
    el.addEventListener('wheel', onWheel, { passive: true });
    for (const type of READER_INPUT) el.addEventListener(type, onInput, { passive: true });
    followRef.current = () => {
      setStuck(true);
      el.scrollTop = el.scrollHeight;
      schedule();
    };
    setStuck(true);
    el.scrollTop = el.scrollHeight;
    return () => {
      observer.disconnect();
      el.removeEventListener('scroll', onScroll);
      el.removeEventListener('wheel', onWheel);
      for (const type of READER_INPUT) el.removeEventListener(type, onInput);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [scroller, key]);

  /** Back to the bottom, following again (after a send, or from "Jump to latest"). */
  const follow = useCallback(() => followRef.current(), []);
  return { away, follow };
}
