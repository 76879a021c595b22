/** A `.wasm` import: wrangler and the vitest plugin load it as a compiled WebAssembly module. */
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
