import { describe, expect, it } from 'vitest';
import { REDACTED, createLogger, resolveLogFormat } from './logging.js';

const at = new Date(2026, 10, 29, 17, 5, 9, 42);

function capture(
  format: 'text' | 'json',
  level: 'debug' | 'info' = 'info',
): { lines: string[]; log: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const log = createLogger({ format, level, write: (line) => lines.push(line), now: () => at });
  return { lines, log };
}

describe('logger', () => {
  it('writes JSON lines with time, level, message and fields', () => {
    const { lines, log } = capture('json');
    log.child({ component: 'daemon' }).info('pass complete', { actions: 2, skipped: undefined });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      time: at.toISOString(),
      level: 'info',
      msg: 'pass complete',
      component: 'daemon',
      actions: 2,
    });
  });

  it('writes readable text with key=value fields, quoting where needed', () => {
    const { lines, log } = capture('text');
    log.warn('namespace refused', { namespace: 'k3k-a', detail: 'has a "quote" and spaces', n: 3 });
    expect(lines[0]).toBe(
      '17:05:09.042 WARN  namespace refused namespace=k3k-a detail="has a \\"quote\\" and spaces" n=3\n',
    );
  });

  it('drops messages below the level', () => {
    const { lines, log } = capture('text', 'info');
    log.debug('hidden');
    expect(lines).toEqual([]);
    const verbose = capture('text', 'debug');
    verbose.log.debug('shown');
    expect(verbose.lines).toHaveLength(1);
  });

  it('never writes credential fields, at any depth', () => {
    const { lines, log } = capture('json');
    log.info('x', {
      bearerToken: 'abc',
      nested: { keyData: 'k', certData: 'c', password: 'p', ok: 'visible' },
      list: [{ token: 't' }],
    });
    const text = lines.join('');
    for (const secret of ['"abc"', '"k"', '"c"', '"p"', '"t"']) expect(text).not.toContain(secret);
    expect(text).toContain(REDACTED);
    expect(text).toContain('visible');
  });

  it('logs an error by its message only', () => {
    const { lines, log } = capture('json');
    log.error('failed', { error: new Error('boom') });
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ error: 'boom' });
  });

  it('chooses json in-cluster and text elsewhere for auto', () => {
    expect(resolveLogFormat('auto', { KUBERNETES_SERVICE_HOST: '10.0.0.1' })).toBe('json');
    expect(resolveLogFormat('auto', {})).toBe('text');
    expect(resolveLogFormat('text', { KUBERNETES_SERVICE_HOST: '10.0.0.1' })).toBe('text');
    expect(resolveLogFormat('json', {})).toBe('json');
  });
});
