import { BadRequestError, NotFoundError, ServiceUnavailableError, ValidationFailedError } from '../errors/domain-error';
import { describeError } from './describe-error';

const request = { method: 'GET', path: '/invoices/inv_1' };

/** Stand-in with the shape of the framework's HttpException (this file is framework-free). */
class FakeHttpException extends Error {
  constructor(
    private readonly status: number,
    private readonly response: string | object,
  ) {
    super(typeof response === 'string' ? response : 'http error');
  }
  getStatus() {
    return this.status;
  }
  getResponse() {
    return this.response;
  }
}

describe('describeError', () => {
  const secret = 'password=hunter2 at /srv/app/dist/src/modules/x.js:12 relation "invoices" does not exist';

  it.each([
    ['an Error', new Error(secret)],
    ['a TypeError', new TypeError(`Cannot read properties of undefined (${secret})`)],
    ['a thrown string', secret],
    ['a thrown object', { detail: secret, code: 'XX000' }],
    ['null', null],
    ['a query failure', Object.assign(new Error(secret), { code: '42P01', query: 'SELECT secret FROM invoices' })],
    ['a 5xx HttpException', new FakeHttpException(502, { message: secret })],
  ])('hides %s behind a bare 500 internal_error', (_label, thrown) => {
    const described = describeError(thrown, request);
    expect(described.status).toBeGreaterThanOrEqual(500);
    expect(described.status).toBeLessThan(503);
    expect(described).toMatchObject({ code: 'internal_error', error: 'Internal server error', validator: null });
    expect(JSON.stringify(described)).not.toMatch(/hunter2|relation|SELECT|\.js|XX000|42P01/);
  });

  it.each([
    ['a refused connection', Object.assign(new Error(`connect ECONNREFUSED 10.0.0.5:5432 ${secret}`), { code: 'ECONNREFUSED' })],
    ['an admin shutdown', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['a dropped connection', new Error('Connection terminated unexpectedly')],
    ['a pool timeout', new Error('timeout exceeded when trying to connect')],
    ['a wrapped driver error', Object.assign(new Error('query failed'), { driverError: { code: 'ECONNRESET' } })],
    ['too many connections', Object.assign(new Error('sorry, too many clients already'), { code: '53300' })],
  ])('maps %s to 503 service_unavailable without details', (_label, thrown) => {
    const described = describeError(thrown, request);
    expect(described).toEqual({ status: 503, code: 'service_unavailable', error: 'The database is unreachable; retry shortly', validator: null });
  });

  it.each([
    [new ValidationFailedError({ 'items.0.price': 'must be a decimal' }), 400, 'validation_failed', { 'items.0.price': 'must be a decimal' }],
    [new BadRequestError('HTTPS is required', 'https_required'), 400, 'https_required', null],
    [new NotFoundError('invoice'), 404, 'invoice_not_found', null],
    [new ServiceUnavailableError('The database is unreachable'), 503, 'service_unavailable', null],
  ])('keeps the status, code and fields of domain error %#', (thrown, status, code, validator) => {
    const described = describeError(thrown, request);
    expect(described).toEqual({ status, code, error: thrown.message, validator });
  });

  it('turns a framework 404 into route_not_found naming the route', () => {
    expect(describeError(new FakeHttpException(404, 'Cannot GET /x'), { method: 'DELETE', path: '/nope' })).toEqual({
      status: 404,
      code: 'route_not_found',
      error: 'No route for DELETE /nope',
      validator: null,
    });
  });

  it.each([
    [405, { message: 'Method not allowed' }, 'method_not_allowed', 'Method not allowed'],
    [400, { message: ['a must be a string', 'b is required'] }, 'bad_request', 'a must be a string; b is required'],
    [418, 'I am a teapot', 'bad_request', 'I am a teapot'],
  ])('maps a framework %i to its code and readable text', (status, response, code, text) => {
    expect(describeError(new FakeHttpException(status, response), request)).toEqual({ status, code, error: text, validator: null });
  });
});
