// When a patch's 422 means "the Secret was replaced since it was read": decided on the field
// the API server named, never on words in a message (apply.test.ts meets both answers on the
// real API server).

import { describe, expect, it } from 'vitest';
import type { ApiFailure } from '../connection/api-failure.js';
import { uidPrecondition } from './secret-writer.js';

const invalid = (message: string, fields: readonly string[]): ApiFailure => ({
  kind: 'invalid',
  status: 422,
  message,
  retryable: false,
  causes: fields.map((field) => ({ field, reason: 'FieldValueInvalid' })),
});

describe('uidPrecondition', () => {
  it('reads a refused metadata.uid as a conflict: re-plan from fresh data', () => {
    expect(uidPrecondition(invalid('422 Invalid', ['metadata.uid']))).toMatchObject({
      status: 'conflict',
      failure: { kind: 'conflict', retryable: true },
    });
  });

  it('leaves a rejection whose message mentions metadata.uid for another field a failure', () => {
    const failure = invalid('422 Invalid: metadata.annotations[example.com/metadata.uid]', [
      'metadata.annotations[example.com/metadata.uid]',
    ]);
    expect(uidPrecondition(failure)).toBeUndefined();
  });
});
