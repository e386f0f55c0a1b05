/**
 * The text of an XML attribute or element with its entities decoded: the five predefined ones and
 * character references (decimal and hexadecimal), as Monetico's and Ogone's answers use them. Any
 * other `&…;` is left as it stands: these are lenient readers of one PSP's own answers, not XML
 * parsers (Payline's SOAP reader, which refuses an unknown entity, keeps its own).
 */
export function decodeXmlEntities(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-f]+);/gi, (_m, e: string) => {
    switch (e.toLowerCase()) {
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
      case 'amp':
        return '&';
      default:
        return e[1] === 'x' || e[1] === 'X' ? String.fromCodePoint(parseInt(e.slice(2), 16)) : String.fromCodePoint(Number(e.slice(1)));
    }
  });
}
