import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REQUESTS } from '../../src/psp/payline/requests.ts';

/**
 * Derives the XML Schema the Payline fake validates every request against
 * (test/psp/fixtures/payline/payline-*.xsd) from Payline's WSDL, as Monext publishes it in its SDKs
 * (docs/psp/payline.md, "Request envelopes"):
 *
 *   git --git-dir=<mirror of PaylineByMonext/payline-php-sdk> show 44c39a1:src/Payline/wsdl/DirectPaymentAPI.wsdl > /tmp/DirectPaymentAPI.wsdl
 *   (or https://raw.githubusercontent.com/PaylineByMonext/payline-php-sdk/44c39a1773848f9f996648761cdc681571c27d6e/src/Payline/wsdl/DirectPaymentAPI.wsdl)
 *   npx tsx scripts/psp-documents/derive-payline-xsd.ts /tmp/DirectPaymentAPI.wsdl [out-dir]
 *
 * Only what the connector sends is kept: the request element of each operation of
 * src/psp/payline/requests.ts (`REQUESTS`), checked against the WSDL's bindings (its soapAction,
 * its input message), and the object types they reach, without the WSDL's documentation
 * annotations. Three files are written:
 * - payline-requests.xsd: those request elements (namespace http://impl.ws.payline.experian.com);
 * - payline-objects.xsd: the object types they use (namespace http://obj.ws.payline.experian.com);
 * - payline-envelope.xsd: a SOAP 1.1 envelope whose Body holds exactly one of those requests.
 * The WSDL is read with a small parser of its own (elements, attributes, text; no DTD).
 */

/** What the header says of the document; the script warns when the WSDL given is another. */
const SOURCE = {
  name: 'Payline (Monext) web services WSDL, DirectPaymentAPI.wsdl (its <wsdl:types> hold the schema of all three APIs: DirectPayment, WebPayment, Extended)',
  version: "Payline SDK release 4.77 (PaylineSDK::SDK_RELEASE 'PHP SDK 4.77'; the payline-java-sdk 4.77 ships the same bytes)",
  source:
    'https://github.com/PaylineByMonext/payline-php-sdk, commit 44c39a1773848f9f996648761cdc681571c27d6e, src/Payline/wsdl/DirectPaymentAPI.wsdl (the file last changed in commit 4aa56dd "upgrade 4.76")',
  licence: 'GNU LGPL 3.0 (the repository\'s LICENSE file; composer.json "license": "LGPL-3.0")',
  sha256: '',
};

const IMPL_NS = 'http://impl.ws.payline.experian.com';
const OBJ_NS = 'http://obj.ws.payline.experian.com';
const XSD_NS = 'http://www.w3.org/2001/XMLSchema';

interface Node {
  name: string;
  attrs: [string, string][];
  children: Node[];
  text: string;
}

function attr(n: Node, name: string): string | undefined {
  return n.attrs.find(([k]) => k === name)?.[1];
}

function local(name: string): string {
  return name.includes(':') ? name.slice(name.indexOf(':') + 1) : name;
}

function decode(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos);/g, (_m, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" })[e]!);
}

/** Elements with their attributes and text; comments, processing instructions and CDATA dropped; a DTD refused. */
function parse(xml: string): Node {
  if (/<!DOCTYPE/i.test(xml)) throw new Error('a DTD in the WSDL');
  const root: Node = { name: '#document', attrs: [], children: [], text: '' };
  const stack = [root];
  const tag = /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[[\s\S]*?\]\]>|<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[^\s=>/]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;
  let last = 0;
  for (let m = tag.exec(xml); m; m = tag.exec(xml)) {
    stack[stack.length - 1]!.text += decode(xml.slice(last, m.index));
    last = tag.lastIndex;
    if (m[2] === undefined) continue;
    if (m[1] === '/') {
      const top = stack.pop();
      if (!top || top.name !== m[2]) throw new Error(`unbalanced </${m[2]}>`);
      continue;
    }
    const attrs: [string, string][] = [...(m[3] ?? '').matchAll(/([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)].map((a) => [a[1]!, decode(a[2] ?? a[3] ?? '')]);
    const node: Node = { name: m[2], attrs, children: [], text: '' };
    stack[stack.length - 1]!.children.push(node);
    if (m[4] !== '/') stack.push(node);
  }
  if (stack.length !== 1) throw new Error('unclosed elements');
  return root.children[0]!;
}

function findAll(n: Node, test: (x: Node) => boolean, out: Node[] = []): Node[] {
  if (test(n)) out.push(n);
  for (const c of n.children) findAll(c, test, out);
  return out;
}

function escapeAttr(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

/** The node as XML, two spaces a level, without its `annotation`s (the WSDL's prose). */
function write(n: Node, depth: number): string {
  const pad = '  '.repeat(depth);
  const attrs = n.attrs.map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('');
  const kids = n.children.filter((c) => local(c.name) !== 'annotation');
  if (kids.length === 0) return `${pad}<${n.name}${attrs}/>\n`;
  return `${pad}<${n.name}${attrs}>\n${kids.map((c) => write(c, depth + 1)).join('')}${pad}</${n.name}>\n`;
}

/** The object types (`tns1:` in the WSDL) a node refers to, anywhere inside it. */
function objectTypes(n: Node): string[] {
  return findAll(n, (x) => local(x.name) === 'element' || local(x.name) === 'restriction' || local(x.name) === 'extension')
    .flatMap((x) => [attr(x, 'type'), attr(x, 'base')])
    .filter((t): t is string => t?.startsWith('tns1:') === true)
    .map((t) => t.slice(5));
}

function header(file: string, what: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!--
  ${file}: ${what}
  GENERATED by scripts/psp-documents/derive-payline-xsd.ts; do not edit. Regenerate (docs/psp/payline.md, "Request envelopes"):
    npx tsx scripts/psp-documents/derive-payline-xsd.ts DirectPaymentAPI.wsdl [test/psp/fixtures/payline]
  Derived from: ${SOURCE.name}
  Version: ${SOURCE.version}
  Source: ${SOURCE.source}
  SHA-256 of the WSDL read: ${SOURCE.sha256}
  Licence of the source: ${SOURCE.licence}; this file, a part of it reordered and cut, is under the same licence.
  Kept: the request elements of the operations the connector sends (src/psp/payline/requests.ts) and the types they reach; the WSDL's documentation annotations are left out.
-->
`;
}

/** SHA-256 of the WSDL SOURCE names. */
const EXPECTED_SHA256 = '7233b59ec064549d742ade9efa6f81456b9b49f24ecdea2dd95a286afdb0b19a';

function main(): void {
  const [wsdlPath, outDir = 'test/psp/fixtures/payline'] = process.argv.slice(2);
  if (!wsdlPath) {
    console.error('usage: npx tsx scripts/psp-documents/derive-payline-xsd.ts <DirectPaymentAPI.wsdl> [out-dir]');
    process.exit(2);
  }
  const bytes = readFileSync(wsdlPath);
  SOURCE.sha256 = createHash('sha256').update(bytes).digest('hex');
  if (EXPECTED_SHA256 && SOURCE.sha256 !== EXPECTED_SHA256) console.warn(`warning: not the WSDL the header names (sha256 ${SOURCE.sha256}): update SOURCE in this script`);
  const wsdl = parse(bytes.toString('utf8'));
  const schemas = findAll(wsdl, (n) => local(n.name) === 'schema');
  const impl = schemas.find((s) => attr(s, 'targetNamespace') === IMPL_NS);
  const obj = schemas.find((s) => attr(s, 'targetNamespace') === OBJ_NS);
  if (!impl || !obj) throw new Error('the WSDL has no impl or obj schema');
  const objTypes = new Map(obj.children.filter((c) => attr(c, 'name') !== undefined).map((c) => [attr(c, 'name')!, c]));

  // Each operation: bound with its own name as soapAction, its input message's part the request element.
  const bindings = findAll(wsdl, (n) => n.name === 'wsdl:binding').flatMap((b) => b.children.filter((c) => c.name === 'wsdl:operation'));
  const messages = findAll(wsdl, (n) => n.name === 'wsdl:message');
  const elements: Node[] = [];
  for (const op of Object.keys(REQUESTS)) {
    const bound = bindings.find((b) => attr(b, 'name') === op);
    const action = bound && findAll(bound, (n) => n.name === 'wsdlsoap:operation')[0];
    if (!action || attr(action, 'soapAction') !== op) throw new Error(`${op}: no binding with soapAction "${op}"`);
    const part = messages.find((m) => attr(m, 'name') === `${op}Request`)?.children.find((c) => c.name === 'wsdl:part');
    if (attr(part ?? { name: '', attrs: [], children: [], text: '' }, 'element') !== `impl:${op}Request`) throw new Error(`${op}: input message is not impl:${op}Request`);
    const el = impl.children.find((c) => local(c.name) === 'element' && attr(c, 'name') === `${op}Request`);
    if (!el) throw new Error(`${op}: no element ${op}Request`);
    elements.push(el);
  }

  // The object types the requests reach, in the WSDL's order.
  const needed = new Set<string>();
  const queue = elements.flatMap(objectTypes);
  while (queue.length > 0) {
    const t = queue.pop()!;
    if (needed.has(t)) continue;
    const def = objTypes.get(t);
    if (!def) throw new Error(`type tns1:${t} is not in the obj schema`);
    needed.add(t);
    queue.push(...objectTypes(def));
  }
  const types = obj.children.filter((c) => needed.has(attr(c, 'name') ?? ''));

  // The WSDL's own prefixes: xsd and the default namespace for XML Schema, tns1 for the objects, wsdl (wsdl:required="true" on a few elements).
  const ns = `xmlns="${XSD_NS}" xmlns:xsd="${XSD_NS}" xmlns:tns1="${OBJ_NS}" xmlns:impl="${IMPL_NS}" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"`;
  const requests =
    header('payline-requests.xsd', `the request elements of the ${elements.length} operations Chipin's Payline connector sends`) +
    `<schema ${ns} elementFormDefault="qualified" targetNamespace="${IMPL_NS}">\n` +
    `  <import namespace="${OBJ_NS}" schemaLocation="payline-objects.xsd"/>\n` +
    elements.map((e) => write(e, 1)).join('') +
    '</schema>\n';
  const objects =
    header('payline-objects.xsd', `the ${types.length} object types those requests use`) +
    `<schema ${ns} elementFormDefault="qualified" targetNamespace="${OBJ_NS}">\n` +
    types.map((t) => write(t, 1)).join('') +
    '</schema>\n';
  // SOAP 1.1 (W3C Note, 8 May 2000, section 4): Envelope, an optional Header, a Body; the WSDL's
  // bindings are document/literal, so the Body holds the operation's request element itself.
  const envelope =
    header('payline-envelope.xsd', 'a SOAP 1.1 envelope whose Body holds exactly one of the request elements (document/literal, as the WSDL binds them)') +
    `<schema xmlns="${XSD_NS}" xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" elementFormDefault="qualified" targetNamespace="http://schemas.xmlsoap.org/soap/envelope/">\n` +
    `  <import namespace="${IMPL_NS}" schemaLocation="payline-requests.xsd"/>\n` +
    '  <element name="Envelope">\n' +
    '    <complexType>\n' +
    '      <sequence>\n' +
    '        <element name="Header" minOccurs="0">\n' +
    '          <complexType>\n' +
    '            <sequence>\n' +
    '              <any namespace="##other" minOccurs="0" maxOccurs="unbounded" processContents="lax"/>\n' +
    '            </sequence>\n' +
    '          </complexType>\n' +
    '        </element>\n' +
    '        <element name="Body">\n' +
    '          <complexType>\n' +
    '            <sequence>\n' +
    `              <any namespace="${IMPL_NS}" processContents="strict"/>\n` +
    '            </sequence>\n' +
    '          </complexType>\n' +
    '        </element>\n' +
    '      </sequence>\n' +
    '    </complexType>\n' +
    '  </element>\n' +
    '</schema>\n';
  writeFileSync(join(outDir, 'payline-requests.xsd'), requests);
  writeFileSync(join(outDir, 'payline-objects.xsd'), objects);
  writeFileSync(join(outDir, 'payline-envelope.xsd'), envelope);
  console.log(`${elements.length} request elements, ${types.length} object types → ${outDir}/payline-{envelope,requests,objects}.xsd`);
}

main();
