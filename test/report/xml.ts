/**
 * A small strict XML parser for the JUnit tests (no XML dependency in the project):
 * elements, attributes, text, CDATA and the predefined and numeric entities. It throws
 * on anything not well-formed that matters here: a raw `<` or `&` in text or
 * attributes, unquoted attributes, mismatched or unclosed tags.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(raw: string, where: string): string {
  if (/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(raw)) throw new Error(`bare & in ${where}: ${raw.slice(0, 80)}`);
  return raw.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (_, e: string) =>
    e.startsWith('#x') ? String.fromCodePoint(parseInt(e.slice(2), 16)) : e.startsWith('#') ? String.fromCodePoint(parseInt(e.slice(1), 10)) : ENTITIES[e],
  );
}

export function parseXml(xml: string): XmlElement {
  let i = 0;
  const src = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  while (i < src.length) {
    if (src.startsWith('<![CDATA[', i)) {
      const end = src.indexOf(']]>', i);
      if (end < 0) throw new Error('unclosed CDATA');
      stack[stack.length - 1].text += src.slice(i + 9, end);
      i = end + 3;
    } else if (src.startsWith('<!--', i)) {
      const end = src.indexOf('-->', i);
      if (end < 0) throw new Error('unclosed comment');
      i = end + 3;
    } else if (src.startsWith('</', i)) {
      const end = src.indexOf('>', i);
      const name = src.slice(i + 2, end).trim();
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`mismatched </${name}> (open: ${open?.name})`);
      i = end + 1;
    } else if (src[i] === '<') {
      const m = /^<([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.:-]*\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>/.exec(src.slice(i));
      if (!m) throw new Error(`malformed tag at ${i}: ${src.slice(i, i + 60)}`);
      const attrs: Record<string, string> = {};
      for (const a of m[2].matchAll(/([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
        if (a[1] in attrs) throw new Error(`duplicate attribute ${a[1]}`);
        attrs[a[1]] = decode(a[2] ?? a[3], `attribute ${a[1]}`);
      }
      const el: XmlElement = { name: m[1], attrs, children: [], text: '' };
      if (stack.length) stack[stack.length - 1].children.push(el);
      else if (root) throw new Error('more than one root element');
      else root = el;
      if (!m[3]) stack.push(el);
      i += m[0].length;
    } else {
      const next = src.indexOf('<', i);
      const raw = src.slice(i, next < 0 ? src.length : next);
      if (stack.length) stack[stack.length - 1].text += decode(raw, `text of <${stack[stack.length - 1].name}>`);
      else if (raw.trim()) throw new Error('text outside the root element');
      i = next < 0 ? src.length : next;
    }
  }
  if (stack.length) throw new Error(`unclosed <${stack[stack.length - 1].name}>`);
  if (!root) throw new Error('no root element');
  return root;
}

/** Every descendant element with this name, document order. */
export function findAll(el: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement) => {
    for (const c of e.children) {
      if (c.name === name) out.push(c);
      walk(c);
    }
  };
  walk(el);
  return out;
}
