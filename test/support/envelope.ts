import type { ApiResponse } from './api';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Asserts a success envelope with the given status and returns its data. */
export function expectSuccess<T = any>(res: ApiResponse, status = 200): T {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text.slice(0, 2000)}`);
  expect(res.body).toMatchObject({ status, error: null, validator: null, support_id: null });
  expect(typeof res.body.message).toBe('string');
  expect(['development', 'production']).toContain(res.body.env);
  expect(res.body.log.request_id).toEqual(expect.any(String));
  return res.body.data as T;
}

/** Asserts an error envelope with all eight interface fields (plus code). */
export function expectError(res: ApiResponse, status: number, expected: { code?: string; field?: string } = {}): Record<string, any> {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text.slice(0, 2000)}`);
  const body = res.body;
  expect(Object.keys(body).sort()).toEqual(['code', 'data', 'env', 'error', 'log', 'message', 'status', 'support_id', 'validator'].sort());
  expect(body.status).toBe(status);
  expect(body.message).toBeNull();
  expect(typeof body.error).toBe('string');
  expect(body.error.length).toBeGreaterThan(0);
  expect(body.support_id).toMatch(UUID);
  expect(body.log.request_id).toEqual(expect.any(String));
  expect(body.data === null || (typeof body.data === 'object' && Object.keys(body.data).length === 0)).toBe(true);
  if (expected.code) expect(body.code).toBe(expected.code);
  if (expected.field) {
    expect(body.validator).not.toBeNull();
    expect(Object.keys(body.validator)).toContain(expected.field);
  }
  return body;
}
