/** A clock the test moves by hand (connectors, their fakes, the sandbox PSP share it). */
export class ManualClock {
  #ms: number;
  constructor(start = new Date()) {
    this.#ms = start.getTime();
  }
  now(): Date {
    return new Date(this.#ms);
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
}
