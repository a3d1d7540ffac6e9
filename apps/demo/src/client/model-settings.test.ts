import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type ModelSettings, toClientOptions } from './model-settings.ts';

const with_ = (patch: Partial<ModelSettings>) => toClientOptions({ ...DEFAULT_SETTINGS, ...patch });

describe('toClientOptions', () => {
  it('sends nothing for the defaults', () => {
    expect(with_({})).toEqual({ options: {}, errors: {} });
  });

  // Every number field at and beyond its limits (clientOptionsSchema's), and text that is no number.
  it.each([
    ['temperature', '0', 0],
    ['temperature', '2', 2],
    ['temperature', ' 0.7 ', 0.7],
    ['temperature', '2.01', undefined],
    ['temperature', '-0.1', undefined],
    ['temperature', 'warm', undefined],
    ['topP', '1', 1],
    ['topP', '0', 0],
    ['topP', '1.5', undefined],
    ['maxOutputTokens', '1', 1],
    ['maxOutputTokens', '1000000', 1_000_000],
    ['maxOutputTokens', '0', undefined],
    ['maxOutputTokens', '1000001', undefined],
    ['maxOutputTokens', '12.5', undefined],
    ['maxOutputTokens', 'Infinity', undefined],
  ] as const)('%s %j -> %j', (field, text, value) => {
    const { options, errors } = with_({ [field]: text });
    if (value === undefined) {
      expect(options).toEqual({});
      expect(errors[field]).toMatch(/^A (whole )?number from /);
    } else {
      expect(options).toEqual({ [field]: value });
      expect(errors).toEqual({});
    }
  });

  it('maps thinking: the default sends nothing, off sends false, an effort sends it', () => {
    expect(with_({ thinking: '' }).options).toEqual({});
    expect(with_({ thinking: 'off' }).options).toEqual({ thinking: false });
    expect(with_({ thinking: 'high' }).options).toEqual({ thinking: { effort: 'high' } });
  });
});
