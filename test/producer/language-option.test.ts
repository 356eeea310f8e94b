import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { InvalidArgumentError } from '../../src/errors.js';
import { LanguageCode } from '../../src/protocol/codes.js';
import { resolveProducerOptions } from '../../src/producer/options.js';

const base = { namesrvAddr: '127.0.0.1:9876', producerGroup: 'PG' };

describe('language option', () => {
  it('a language name outside the LanguageCode table is rejected (older brokers reject unknown names)', () => {
    for (const language of ['TYPESCRIPT', 'NODE', 'JAVA_', 'java']) {
      assert.throws(
        () => resolveProducerOptions({ ...base, language }),
        (err: unknown) => err instanceof InvalidArgumentError && err.field === 'language',
        language,
      );
    }
  });

  it('every LanguageCode name is accepted', () => {
    for (const language of Object.keys(LanguageCode))
      assert.equal(resolveProducerOptions({ ...base, language }).language, language);
  });
});
