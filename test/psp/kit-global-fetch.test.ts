import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { PspIntegrationError } from '../../src/psp/connector.ts';
import { callWithGlobalFetch } from '../../src/psp/kit/global-fetch.ts';

/** A stand-in `fetch` that records the URLs it is given and answers each after a turn of the event loop. */
function recording(name: string): { fetch: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  const f = (async (input: string | URL | Request) => {
    urls.push(String(input));
    await nextTurn();
    return new Response(name, { status: 200 });
  }) as typeof fetch;
  return { fetch: f, urls };
}

/** What an SDK method does that suits the hook: the global `fetch` called before its first await. */
async function sdkCall(url: string): Promise<string> {
  const answer = await fetch(url);
  await nextTurn();
  return answer.text();
}

describe('callWithGlobalFetch (SDKs that send through the global fetch)', () => {
  it('sends the SDK call through our fetch and leaves the global fetch as it was, after a success and after a thrown error', async () => {
    const before = globalThis.fetch;
    const ours = recording('ours');
    expect(await callWithGlobalFetch({ psp: 'acme', sdk: 'Acme SDK', fetch: ours.fetch, call: () => sdkCall('https://psp.example/a') })).toBe('ours');
    expect(globalThis.fetch).toBe(before);
    const thrown = await callWithGlobalFetch({
      psp: 'acme',
      sdk: 'Acme SDK',
      fetch: ours.fetch,
      call: () => {
        throw new Error('the SDK failed at once');
      },
    }).catch((e: unknown) => e);
    expect((thrown as Error).message).toBe('the SDK failed at once');
    expect(globalThis.fetch).toBe(before);
    const failing = (() => Promise.reject(new TypeError('no answer'))) as typeof fetch;
    const rejected = await callWithGlobalFetch({ psp: 'acme', sdk: 'Acme SDK', fetch: failing, call: () => sdkCall('https://psp.example/b') }).catch((e: unknown) => e);
    expect((rejected as Error).message).toBe('no answer');
    expect(globalThis.fetch).toBe(before);
    expect(ours.urls).toEqual(['https://psp.example/a']);
  });

  it('two calls in flight at once (two connectors, interleaved at their awaits) each send only through their own fetch, and set values come back', async () => {
    const before = globalThis.fetch;
    const setting = { base: 'default' };
    const [a, b] = [recording('a'), recording('b')];
    const scoped = (o: { fetch: typeof fetch; base: string; urls: string[] }) =>
      callWithGlobalFetch({
        psp: 'acme',
        sdk: 'Acme SDK',
        fetch: o.fetch,
        call: async () => {
          const base = setting.base;
          const first = await sdkCall(`${base}/1`);
          // Past the first await, whichever call runs, the global is the process's own again.
          o.urls.push(`after await: ${globalThis.fetch === before ? 'the process’s' : 'a scoped one'}`);
          return first;
        },
        enter: () => {
          const saved = setting.base;
          setting.base = o.base;
          return () => {
            setting.base = saved;
          };
        },
      });
    const results = await Promise.all([
      scoped({ fetch: a.fetch, base: 'https://a.example', urls: a.urls }),
      scoped({ fetch: b.fetch, base: 'https://b.example', urls: b.urls }),
      scoped({ fetch: a.fetch, base: 'https://a.example', urls: a.urls }),
    ]);
    expect(results).toEqual(['a', 'b', 'a']);
    expect(a.urls.filter((u) => u.startsWith('https'))).toEqual(['https://a.example/1', 'https://a.example/1']);
    expect(b.urls.filter((u) => u.startsWith('https'))).toEqual(['https://b.example/1']);
    expect([...a.urls, ...b.urls].filter((u) => u.startsWith('after'))).toEqual(Array(3).fill('after await: the process’s'));
    expect(globalThis.fetch).toBe(before);
    expect(setting.base).toBe('default');
  });

  it('fails a call whose SDK awaits before it fetches (the hook does not fit that version), and never hands it our fetch', async () => {
    const before = globalThis.fetch;
    const ours = recording('ours');
    let late: typeof fetch | undefined;
    const err = await callWithGlobalFetch({
      psp: 'acme',
      sdk: 'Acme SDK',
      fetch: ours.fetch,
      call: async () => {
        await nextTurn();
        late = globalThis.fetch;
        return 'never sent through ours';
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PspIntegrationError);
    expect(err).toMatchObject({ code: 'bad_response', message: expect.stringContaining('Acme SDK did not send its request synchronously') });
    await nextTurn();
    expect(late).toBe(before);
    expect(ours.urls).toEqual([]);
    expect(globalThis.fetch).toBe(before);
  });

  it('gives back as is what an SDK decided without a request (its own check of the input)', async () => {
    const ours = recording('ours');
    class InputRefused extends Error {}
    const refusal = await callWithGlobalFetch({
      psp: 'acme',
      sdk: 'Acme SDK',
      fetch: ours.fetch,
      call: async () => {
        await Promise.resolve();
        throw new InputRefused('The currency value is not valid.');
      },
    }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(InputRefused);
    expect(ours.urls).toEqual([]);
  });
});
