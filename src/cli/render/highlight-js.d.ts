/** @module highlight.js types its root and its languages, not `lib/core` (the same API with no language registered). */
declare module 'highlight.js/lib/core' {
  import hljs from 'highlight.js'
  export default hljs
}
