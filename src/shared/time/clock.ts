/** The service's sense of "now". Domain code takes it as an argument instead of calling new Date(). */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
