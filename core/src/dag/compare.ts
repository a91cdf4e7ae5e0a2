/**
 * Orders two strings by Unicode code point, the order Postgres's `C` collation and Python's `sorted`
 * give for UTF-8 text. JavaScript's `<` compares UTF-16 code units, which puts characters above U+FFFF
 * before U+E000–U+FFFF; task ids can hold any text, so every id sort in whilly goes through here.
 * @returns a negative number, zero or a positive number, as `Array.prototype.sort` expects.
 */
export function compareIds(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only when both sides are in the surrogate/private-use band can code-unit order be wrong.
    if (x >= 0xd800 && y >= 0xd800) {
      const cx = a.codePointAt(i) ?? x;
      const cy = b.codePointAt(i) ?? y;
      return cx - cy;
    }
    return x - y;
  }
  return a.length - b.length;
}
