import type { Request } from 'express';
import { AppConfig } from '../config/app-config';
import { isLoopbackHost, publicBaseUrl } from './public-url';

function request(host: string | undefined, protocol = 'http'): Request {
  return { protocol, get: (name: string) => (name.toLowerCase() === 'host' ? host : undefined) } as unknown as Request;
}

function config(values: Partial<AppConfig>): AppConfig {
  return Object.assign(new AppConfig(), values);
}

describe('public base URL', () => {
  it.each([
    ['localhost', true],
    ['localhost:3000', true],
    ['LOCALHOST:3000', true],
    ['127.0.0.1:8080', true],
    ['127.1.2.3', true],
    ['[::1]:3000', true],
    ['evil.example', false],
    ['localhost.evil.example', false],
    ['127.0.0.1.evil.example', false],
    ['evil.example:3000', false],
    ['10.0.0.5:3000', false],
    ['[::ffff:127.0.0.1]', false],
    ['', false],
    ['localhost:3000/x', false],
    ['localhost@evil.example', false],
  ])('loopback host %j: %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });

  it('uses PUBLIC_BASE_URL whatever the Host says, without trailing slashes', () => {
    expect(publicBaseUrl(config({ PUBLIC_BASE_URL: 'https://api.example.com/' }), request('evil.example'))).toBe('https://api.example.com');
  });

  it('without PUBLIC_BASE_URL keeps a loopback Host and replaces any other', () => {
    expect(publicBaseUrl(config({ PORT: 3000 }), request('127.0.0.1:4000'))).toBe('http://127.0.0.1:4000');
    expect(publicBaseUrl(config({ PORT: 3000 }), request('evil.example'))).toBe('http://localhost:3000');
    expect(publicBaseUrl(config({ PORT: 3000 }), request(undefined, 'https'))).toBe('https://localhost:3000');
  });
});
