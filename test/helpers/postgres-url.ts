/** `url` pointing at database `name` on the same server, with the same user and options. */
export function databaseUrlNamed(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
