import { type PreflightCheck, preflightLine, preflightReport, preflightSummary, serviceSettingsChecks, settingStatus, statusCounts } from './preflight-check';

const check = (status: PreflightCheck['status'], name = `c.${status}`): PreflightCheck => ({ name, status, detail: `${status} detail` });

describe('the preflight report', () => {
  it.each([
    [['ok', 'ok'], true],
    [['ok', 'warn'], true],
    [['warn', 'fail'], false],
    [[], true],
  ] as const)('%j is ok: %s', (statuses, ok) => {
    expect(preflightReport(statuses.map((s, i) => check(s, `c${i}`))).ok).toBe(ok);
  });

  it('counts, prints one line per check and a summary that says what to do', () => {
    const report = preflightReport([check('ok'), check('warn'), check('fail'), check('fail', 'c.other')]);
    expect(statusCounts(report.checks)).toEqual({ ok: 1, warn: 1, fail: 2 });
    expect(preflightLine(report.checks[2])).toBe('fail  c.fail  fail detail');
    expect(preflightLine(report.checks[0])).toBe('ok    c.ok  ok detail');
    expect(preflightSummary(report)).toBe('4 checks: 1 ok, 1 warn, 2 fail; fix the failed checks before going live');
    expect(preflightSummary(preflightReport([check('warn')]))).toContain('no check failed');
    expect(preflightSummary(preflightReport([check('ok')]))).toContain('every check passed');
  });
});

describe("the service's own settings", () => {
  it('fail in production and warn elsewhere', () => {
    expect(settingStatus(true)).toBe('fail');
    expect(settingStatus(false)).toBe('warn');
  });

  it.each([
    [true, undefined, false, ['fail', 'fail']],
    [false, undefined, false, ['warn', 'warn']],
    [true, 'http://pay.example.com', true, ['fail', 'ok']],
    [false, 'http://127.0.0.1:3000', true, ['warn', 'ok']],
    [true, 'https://pay.example.com', true, ['ok', 'ok']],
  ])('production %s, PUBLIC_BASE_URL %s, SECRETS_KEY set %s: %j', (production, publicBaseUrl, secretsKeySet, statuses) => {
    const checks = serviceSettingsChecks({ production, publicBaseUrl, secretsKeySet });
    expect(checks.map((c) => c.name)).toEqual(['settings.public_base_url', 'settings.secrets_key']);
    expect(checks.map((c) => c.status)).toEqual(statuses);
  });

  it('says what to do: an http address names https', () => {
    const [base] = serviceSettingsChecks({ production: true, publicBaseUrl: 'http://pay.example.com', secretsKeySet: true });
    expect(base.detail).toContain('not https');
  });
});
