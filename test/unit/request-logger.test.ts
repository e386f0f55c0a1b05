import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { requestLogger } from '../../src/observability/request-logger.ts';

function logged(): { lines: Record<string, unknown>[]; logger: pino.Logger } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
  return { lines, logger };
}

describe('request logger', () => {
  it('writes the lines a child would, bound to the request, and nothing below the level', () => {
    const { lines, logger } = logged();
    const log = requestLogger.call(undefined, logger, { reqId: 'r-1' }, {});
    log.debug('hidden');
    log.info({ a: 1 }, 'shown');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ reqId: 'r-1', a: 1, msg: 'shown', level: 30 });
  });

  it("follows a level set on the request's logger, not its parent's", () => {
    const { lines, logger } = logged();
    const log = requestLogger.call(undefined, logger, { reqId: 'r-2' }, {});
    log.level = 'debug';
    log.debug('now shown');
    expect(lines.map((l) => l.msg)).toEqual(['now shown']);
    expect(logger.isLevelEnabled('debug')).toBe(false);
  });
});
