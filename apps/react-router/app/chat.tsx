// The chat component is the Next.js app's (apps/next/app/chat.tsx), unchanged: its 'use client'
// line means nothing to React Router, and useChat reads no randomness or time while rendering,
// so it server-renders here as it prerenders there.
export { Chat } from '../../next/app/chat';
