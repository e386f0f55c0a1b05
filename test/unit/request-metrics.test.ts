import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestMetrics } from '../../src/observability/request-metrics.ts';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const COUNTER = { name: 'chipin_http_requests_total', help: 'HTTP requests answered' };
const HISTOGRAM = { name: 'chipin_http_request_duration_seconds', help: 'Time to answer' };

/** The same two metrics as prom-client's own classes write them: what /metrics showed before. */
function promClientPair(registry: Registry) {
  const labelNames = ['method', 'route', 'status_code'] as const;
  const counter = new Counter({ ...COUNTER, labelNames, registers: [registry] });
  const histogram = new Histogram({ ...HISTOGRAM, labelNames, buckets: BUCKETS, registers: [registry] });
  return (method: string, route: string, status: number, seconds: number) => {
    const labels = { method, route, status_code: String(status) };
    counter.inc(labels);
    histogram.observe(labels, seconds);
  };
}

const request = fc.record({
  method: fc.constantFrom('GET', 'POST', 'DELETE'),
  // Route templates, and text the exposition format must escape (quote, backslash, new line).
  route: fc.oneof(fc.constantFrom('/api/whoami', '/api/merchants/v1/purchases/:id', 'unmatched'), fc.string({ maxLength: 12 })),
  status: fc.constantFrom(200, 201, 400, 404, 500),
  // Every bucket, its bounds exactly, and beyond the last one.
  seconds: fc.oneof(fc.constantFrom(...BUCKETS, 0, 12.5), fc.double({ min: 0, max: 20, noNaN: true })),
});

describe('request metrics', () => {
  it('writes the same /metrics text as prom-client Counter and Histogram for any sequence of requests', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(request, { maxLength: 60 }), async (requests) => {
        const expected = new Registry();
        const theirs = promClientPair(expected);
        const actual = new Registry();
        const ours = new RequestMetrics(actual, { counter: COUNTER, histogram: HISTOGRAM }, BUCKETS);
        for (const r of requests) {
          theirs(r.method, r.route, r.status, r.seconds);
          ours.observe(r.method, r.route, r.status, r.seconds);
        }
        expect(await actual.metrics()).toBe(await expected.metrics());
        // The JSON form too, but for prom-client's exemplar slots (always empty: exemplars are off).
        const withoutExemplars = (json: unknown) => JSON.parse(JSON.stringify(json, (key, value: unknown) => (key === 'exemplar' ? undefined : value))) as unknown;
        expect(withoutExemplars(await actual.getMetricsAsJSON())).toEqual(withoutExemplars(await expected.getMetricsAsJSON()));
      }),
      { numRuns: 200 },
    );
  });

  it('starts again from nothing when the registry is reset, as prom-client metrics do', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics(registry, { counter: COUNTER, histogram: HISTOGRAM }, BUCKETS);
    metrics.observe('GET', '/api/whoami', 200, 0.002);
    expect(await registry.metrics()).toContain('chipin_http_requests_total{method="GET",route="/api/whoami",status_code="200"} 1');
    registry.resetMetrics();
    metrics.observe('GET', '/api/whoami', 200, 0.002);
    const text = await registry.metrics();
    expect(text).toContain('chipin_http_requests_total{method="GET",route="/api/whoami",status_code="200"} 1');
    expect(text).toContain('chipin_http_request_duration_seconds_bucket{le="0.0025",method="GET",route="/api/whoami",status_code="200"} 1');
    expect(text).toContain('chipin_http_request_duration_seconds_bucket{le="0.001",method="GET",route="/api/whoami",status_code="200"} 0');
  });
});
