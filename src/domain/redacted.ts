import { inspect } from 'node:util';

/**
 * Holds a secret so that logging, `JSON.stringify` or `console.log` of it (or of an object
 * holding it) prints `[redacted]`. Only {@link Redacted.reveal} gives the value back.
 */
export class Redacted<T = string> {
  readonly #value: T;
  constructor(value: T) {
    this.#value = value;
  }
  reveal(): T {
    return this.#value;
  }
  toJSON(): string {
    return '[redacted]';
  }
  toString(): string {
    return '[redacted]';
  }
  [inspect.custom](): string {
    return '[redacted]';
  }
}
