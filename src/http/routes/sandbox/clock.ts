import { Type } from 'typebox';
import { ClockLimitError, MAX_ADVANCE_SECONDS, type SandboxClock } from '../../../clock/sandbox-clock.ts';
import type { Services } from '../../../services.ts';
import { ApiError } from '../../errors.ts';
import type { App } from '../../types.ts';
import { BearerErrors, TokenApiError } from '../schemas.ts';

/** How long an advance waits for due jobs other processes are still running. */
const SETTLE_TIMEOUT_MS = 10_000;

const ClockState = {
  now: Type.String({ format: 'date-time', description: 'The service clock, ISO 8601 UTC', examples: ['2026-03-04T10:15:00.000Z'] }),
  offset_seconds: Type.Number({ description: 'How far the sandbox clock is ahead of real time', examples: [259_200] }),
};

/**
 * Sandbox only (not registered in production): the service clock
 * (docs/jobs-and-clock.md#the-service-clock).
 *
 * - `GET /api/sandbox/clock`: what time the service thinks it is.
 * - `POST /api/sandbox/clock` `{advance_seconds}`: moves it forward for the whole service (every
 *   merchant of this sandbox, every process) and runs what fell due before answering.
 */
export function registerSandboxClock(app: App, services: Services, clock: SandboxClock): void {
  const state = () => ({ now: clock.now().toISOString(), offset_seconds: clock.offsetMs / 1000 });

  app.get(
    '/api/sandbox/clock',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['sandbox'],
        summary: 'Read the sandbox clock (sandbox only)',
        security: [{ bearerToken: [] }],
        response: { 200: Type.Object(ClockState, { description: 'The service clock' }), ...BearerErrors },
      },
    },
    async () => {
      await clock.refresh(); // another process may have moved it within the last second
      return state();
    },
  );

  app.post(
    '/api/sandbox/clock',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['sandbox'],
        summary: 'Move the sandbox clock forward and run what falls due (sandbox only)',
        description:
          'Moves the service clock forward by `advance_seconds` (never backwards) for the whole sandbox — every merchant account and every ' +
          'process share one clock — then runs the work that fell due (pot deadlines, installments, deferred captures, retries) before ' +
          'answering. `ran` counts the items handled. Not available in production.',
        security: [{ bearerToken: [] }],
        body: Type.Object(
          {
            advance_seconds: Type.Integer({ minimum: 1, maximum: MAX_ADVANCE_SECONDS, description: '1 second to 1 year', examples: [259_200] }),
          },
          { additionalProperties: false, examples: [{ advance_seconds: 259_200 }] },
        ),
        response: {
          200: Type.Object({ ...ClockState, ran: Type.Integer({ description: 'Due items handled after the move', examples: [2] }) }, { description: 'The moved clock' }),
          400: { ...TokenApiError, description: 'advance_seconds missing, not an integer, or outside 1..31536000; or the clock would be more than 100 years ahead' },
          ...BearerErrors,
        },
      },
    },
    async (request) => {
      try {
        await clock.advance(request.body.advance_seconds);
      } catch (err) {
        if (err instanceof ClockLimitError) throw new ApiError(400, 'invalid_request', `field advance_seconds: ${err.message}`);
        throw err;
      }
      // Another process may have claimed some of what fell due: settle waits for it, so that
      // the caller sees the outcome.
      const ran = await services.dueWork.settle(SETTLE_TIMEOUT_MS);
      return { ...state(), ran };
    },
  );
}
