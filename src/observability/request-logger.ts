import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

/**
 * The logger of one request (`request.log`), bound to its request id, made only when the request
 * writes a line at an enabled level. Fastify makes a pino child per request otherwise, and most
 * requests write nothing (successes log at debug): that child was a measurable part of the
 * cheapest routes' cost (docs/performance.md). Lines written are the same as a child's.
 */
class RequestLogger {
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  readonly #opts: ChildLoggerOptions;
  #child: Logger | undefined;

  constructor(parent: Logger, bindings: Bindings, opts: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#opts = opts;
  }

  #real(): Logger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#opts));
  }

  #write(level: Level, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    (this.#real()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }
  set level(level: string) {
    this.#real().level = level;
  }
  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level);
  }
  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}
  child(bindings: Bindings, opts?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, opts);
  }
}

/**
 * Fastify's `childLoggerFactory`. A route with a level of its own (`logLevel`) gets a real child
 * at once: the level check above reads the parent's level.
 */
export function requestLogger(this: unknown, logger: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions): FastifyBaseLogger {
  if (opts.level !== undefined) return logger.child(bindings, opts);
  return new RequestLogger(logger as Logger, bindings, opts) as unknown as FastifyBaseLogger;
}
