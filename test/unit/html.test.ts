import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { html, raw } from '../../src/html/html.ts';

const unescape = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);

describe('html template', () => {
  it('escapes each of & < > " \' in an interpolated value', () => {
    expect(html`${'&'}|${'<'}|${'>'}|${'"'}|${"'"}`.toString()).toBe('&amp;|&lt;|&gt;|&quot;|&#39;');
    expect(html`<a title="${`"><script>alert('x')</script>`}">`.toString()).toBe('<a title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;">');
  });

  it('leaves the literal parts of the template as written', () => {
    expect(html`<p class="a">x & y</p>`.toString()).toBe('<p class="a">x & y</p>');
  });

  it('inserts a nested template once, without escaping it again', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner}</p>`.toString()).toBe('<p><b>&lt;i&gt;</b></p>');
    expect(html`${html`${html`${'&'}`}`}`.toString()).toBe('&amp;');
  });

  it('concatenates arrays, escaping the strings in them and not the templates', () => {
    expect(html`<ul>${['a', 'b'].map((x) => html`<li>${x}</li>`)}</ul>`.toString()).toBe('<ul><li>a</li><li>b</li></ul>');
    expect(html`${['<', html`<br>`, ['>']]}`.toString()).toBe('&lt;<br>&gt;');
    expect(html`${[]}`.toString()).toBe('');
  });

  it('renders null, undefined and false as nothing, other values as their text', () => {
    expect(html`[${null}${undefined}${false}]`.toString()).toBe('[]');
    expect(html`${0} ${12.5} ${true}`.toString()).toBe('0 12.5 true');
  });

  it('inserts raw() markup as is', () => {
    expect(html`<style>${raw('a>b{color:"red"}')}</style>`.toString()).toBe('<style>a>b{color:"red"}</style>');
  });

  it('is a string where one is needed (reply.send, template literals)', () => {
    const page = html`<p>${'&'}</p>`;
    expect(`${page}`).toBe('<p>&amp;</p>');
    expect(String(page)).toBe('<p>&amp;</p>');
  });

  it('property: any interpolated string unescapes back to itself and holds no markup character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const out = html`${s}`.toString();
        expect(unescape(out)).toBe(s);
        expect(out).not.toMatch(/[<>"']/);
        expect(out.replace(/&(amp|lt|gt|quot|#39);/g, '')).not.toContain('&');
      }),
    );
  });

  it('property: wrapping in another template changes nothing (no double escaping)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (s, t) => {
        expect(html`${html`${s}`}${[html`${t}`]}`.toString()).toBe(html`${s}${t}`.toString());
      }),
    );
  });
});
