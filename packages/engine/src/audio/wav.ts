/**
 * A RIFF/WAVE header around raw little-endian 16-bit PCM (what Gemini's speech models
 * return as `audio/L16;codec=pcm;rate=24000`), so the audio plays in any player.
 * http://soundfile.sapp.org/doc/WaveFormat/
 */
/**
 * @example
 * ```ts
 * const wav = pcmToWav(pcmBytes, 24_000); // playable in an <audio> element as audio/wav
 * ```
 */
export function pcmToWav(pcm: Uint8Array, sampleRate: number, channels = 1): Uint8Array {
  const out = new Uint8Array(44 + pcm.length);
  const view = new DataView(out.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) view.setUint8(at + i, text.charCodeAt(i));
  };
  const bytesPerSample = 2;
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + pcm.length, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // PCM header size
  view.setUint16(20, 1, true); // format: PCM
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * channels * bytesPerSample, true);
  view.setUint16(32, channels * bytesPerSample, true);
  view.setUint16(34, 16, true);
  ascii(36, 'data');
  view.setUint32(40, pcm.length, true);
  out.set(pcm, 44);
  return out;
}

/** The sample rate in a media type such as 'audio/L16;codec=pcm;rate=24000' (default 24 kHz). */
export function sampleRateOf(mediaType: string): number {
  const match = /rate=(\d+)/i.exec(mediaType);
  return match ? Number(match[1]) : 24_000;
}
