import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'chipin-config-'));

describe('job and simulation settings', () => {
  it('default to polling every second and 60 simulations a minute per address', () => {
    expect(loadConfig({ DATA_DIR: dir() })).toMatchObject({ jobPollIntervalMs: 1_000, simulationRateLimit: 60 });
  });

  it('keep risk decisions 400 days unless RISK_DECISION_RETENTION_DAYS says otherwise', () => {
    expect(loadConfig({ DATA_DIR: dir() }).riskDecisionRetentionDays).toBe(400);
    expect(loadConfig({ DATA_DIR: dir(), RISK_DECISION_RETENTION_DAYS: '730' }).riskDecisionRetentionDays).toBe(730);
  });

  it('accept 0 (no polling) and explicit values', () => {
    expect(loadConfig({ DATA_DIR: dir(), JOB_POLL_INTERVAL_MS: '0', SIMULATION_RATE_LIMIT: '600' })).toMatchObject({
      jobPollIntervalMs: 0,
      simulationRateLimit: 600,
    });
  });

  it.each([
    [{ JOB_POLL_INTERVAL_MS: '10' }, 'JOB_POLL_INTERVAL_MS'],
    [{ JOB_POLL_INTERVAL_MS: '-1' }, 'JOB_POLL_INTERVAL_MS'],
    [{ JOB_POLL_INTERVAL_MS: 'soon' }, 'JOB_POLL_INTERVAL_MS'],
    [{ JOB_POLL_INTERVAL_MS: '600000' }, 'JOB_POLL_INTERVAL_MS'],
    [{ SIMULATION_RATE_LIMIT: '0' }, 'SIMULATION_RATE_LIMIT'],
    [{ SIMULATION_RATE_LIMIT: '1.5' }, 'SIMULATION_RATE_LIMIT'],
    [{ RISK_DECISION_RETENTION_DAYS: '0' }, 'RISK_DECISION_RETENTION_DAYS'],
    [{ RISK_DECISION_RETENTION_DAYS: 'a year' }, 'RISK_DECISION_RETENTION_DAYS'],
  ])('refuse %o with one line naming %s', (env, name) => {
    let error: unknown;
    try {
      loadConfig({ DATA_DIR: dir(), ...env });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([expect.stringMatching(new RegExp(`^${name} `))]);
  });
});
