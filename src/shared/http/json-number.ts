/**
 * A JSON number that cannot be held exactly by a JavaScript number (a fraction, or an integer
 * beyond 2^53). The body parser keeps its source text so money fields read it exactly; every
 * other validator sees an object and rejects it as the wrong type.
 */
export class JsonNumberText {
  constructor(readonly text: string = '') {}
  toString(): string {
    return this.text;
  }
  toJSON(): string {
    return this.text;
  }
}
