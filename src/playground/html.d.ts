/** An `.html` import: wrangler and the vitest plugin load it as text (their default module rules). */
declare module "*.html" {
  const text: string;
  export default text;
}
