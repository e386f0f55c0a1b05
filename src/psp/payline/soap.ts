/**
 * The little SOAP 1.1 this connector needs, written by hand: no XML library is a dependency of
 * Chipin, and Payline's answers are plain document/literal messages (WSDL 4.77 of Monext's
 * payline-php-sdk, src/Payline/wsdl/DirectPaymentAPI.wsdl and ExtendedAPI.wsdl). Requests are
 * built from nested records with every text escaped; answers are read element by element with
 * a small parser that keeps local names (namespace prefixes dropped), text and children. It
 * refuses DTDs and entities other than the five predefined ones and numeric references, so an
 * answer cannot make it fetch or expand anything.
 */

/** Payline's request messages' namespace (`impl`) and its objects' namespace (`obj`), from the WSDL. */
const IMPL_NS = 'http://impl.ws.payline.experian.com';
const OBJ_NS = 'http://obj.ws.payline.experian.com';
/** XML Schema instance: `xsi:nil="true"` marks an element sent empty (a nillable one the connector has no value for). */
const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

/** A request element: text, a nested message, nil (`null`: sent as `xsi:nil="true"`) or absent (left out). */
type XmlValue = string | XmlMessage | null | undefined;
export interface XmlMessage {
  readonly [element: string]: XmlValue;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Top-level elements of a request are in the impl namespace, the objects' children in obj (elementFormDefault="qualified"). */
function elements(message: XmlMessage, prefix: 'impl' | 'obj'): string {
  let out = '';
  for (const [name, value] of Object.entries(message)) {
    if (value === undefined) continue;
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw new TypeError(`bad element name ${name}`);
    if (value === null) {
      out += `<${prefix}:${name} xsi:nil="true"/>`;
      continue;
    }
    const inner = typeof value === 'string' ? escapeXml(value) : elements(value, 'obj');
    out += `<${prefix}:${name}>${inner}</${prefix}:${name}>`;
  }
  return out;
}

/** The SOAP envelope of one request message, e.g. `doCaptureRequest`, its elements in the message's order (requests.ts completes it). */
export function soapEnvelope(requestElement: string, message: XmlMessage): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="${XSI_NS}" xmlns:impl="${IMPL_NS}" xmlns:obj="${OBJ_NS}">` +
    `<soapenv:Body><impl:${requestElement}>${elements(message, 'impl')}</impl:${requestElement}></soapenv:Body></soapenv:Envelope>`
  );
}

/** One parsed element: local name, its text (direct character data) and its child elements. */
export interface XmlNode {
  name: string;
  text: string;
  children: XmlNode[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(text: string): string | undefined {
  let bad = false;
  const out = text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (_m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    const v = ENTITIES[e];
    if (v === undefined) bad = true;
    return v ?? '';
  });
  return bad || /&(?!amp;|lt;|gt;|quot;|apos;|#)/.test(text) ? undefined : out;
}

/**
 * Parses an XML document into its root element; undefined when it is not well-formed enough to
 * read (unbalanced tags, a DTD, an unknown entity). CDATA sections are read as text; comments and
 * processing instructions are skipped.
 */
export function parseXml(xml: string): XmlNode | undefined {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return undefined;
  const root: XmlNode = { name: '#document', text: '', children: [] };
  const stack: XmlNode[] = [root];
  const tag = /<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<(\/?)([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)((?:\s+[^\s=>/]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;
  let last = 0;
  for (let m = tag.exec(xml); m; m = tag.exec(xml)) {
    const between = xml.slice(last, m.index);
    if (/[<>]/.test(between)) return undefined;
    const top = stack[stack.length - 1]!;
    const text = unescapeXml(between);
    if (text === undefined) return undefined;
    top.text += text;
    last = tag.lastIndex;
    if (m[1] !== undefined) {
      top.text += m[1];
      continue;
    }
    if (m[4] === undefined) continue; // comment or processing instruction
    const name = m[4];
    if (m[2] === '/') {
      if (top.name !== name || stack.length === 1) return undefined;
      stack.pop();
      continue;
    }
    const node: XmlNode = { name, text: '', children: [] };
    top.children.push(node);
    if (m[6] !== '/') stack.push(node);
  }
  if (stack.length !== 1 || /[<>]/.test(xml.slice(last))) return undefined;
  return root.children.length === 1 ? root.children[0] : undefined;
}

/** The first descendant reached by the path of local names (`['result', 'code']`), depth first from `node`'s children. */
export function child(node: XmlNode | undefined, ...path: string[]): XmlNode | undefined {
  let at = node;
  for (const name of path) {
    at = at?.children.find((c) => c.name === name);
    if (!at) return undefined;
  }
  return at;
}

/** The trimmed text at the path, or undefined when absent or empty. */
export function textAt(node: XmlNode | undefined, ...path: string[]): string | undefined {
  const t = child(node, ...path)?.text.trim();
  return t ? t : undefined;
}

/** The message inside a SOAP envelope's Body (e.g. `doCaptureResponse`), or its Fault. */
export function soapBody(xml: string): { message: XmlNode } | { fault: string } | undefined {
  const env = parseXml(xml);
  if (!env || env.name !== 'Envelope') return undefined;
  const body = child(env, 'Body');
  const first = body?.children[0];
  if (!first) return undefined;
  if (first.name === 'Fault') return { fault: textAt(first, 'faultstring') ?? 'SOAP fault' };
  return { message: first };
}
