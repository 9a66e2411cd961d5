/**
 * @module The hook scripts `kb hook install` writes (docs/cli.md, "Git hook"): small POSIX sh that never
 * blocks or fails git. Each starts `kb check --changed-in <what git just changed>` in the background, every
 * stdio on /dev/null and the daemon never autostarted from there, and returns at once; post-commit then
 * resolves the entries named in `Resolves-KB:` trailers (only when the message has one).
 */

export const HOOK_NAMES = ['post-commit', 'post-merge', 'post-checkout'] as const
export type HookName = (typeof HOOK_NAMES)[number]

/** Every version of kb's scripts carries this, so an older one is updated rather than chained. */
export const MARKER_PREFIX = '# kb-hook v'
const MARKER = `${MARKER_PREFIX}2`

const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

/** How to run kb: the node and bin/run.js of the kb that installed the hook, else `kb` on PATH. */
function runner(node: string, bin: string): string {
  return `KB_NODE=${shQuote(node)}
KB_BIN=${shQuote(bin)}
kb_run() {
  if [ -x "$KB_NODE" ] && [ -f "$KB_BIN" ]; then "$KB_NODE" "$KB_BIN" "$@"
  elif command -v kb >/dev/null 2>&1; then kb "$@"
  else return 127
  fi
}
# kb check in the background: nothing waits for it, nothing is printed, no daemon is started for it.
kb_check() {
  ( trap '' HUP; KB_NO_AUTOSTART=1 kb_run check --changed-in "$1" ) </dev/null >/dev/null 2>&1 &
}
`
}

/** What each hook checks: the commit just made, what a merge brought, what a branch checkout changed. */
const CHECKS: Record<HookName, string> = {
  'post-commit': 'kb_check HEAD',
  'post-merge': 'kb_check ORIG_HEAD..HEAD',
  // $1 old HEAD, $2 new HEAD, $3 1 for a branch checkout (0: files only); a clone's old HEAD is all zeros.
  'post-checkout': `case "$3:$1" in
  1:0000000000000000000000000000000000000000) ;;
  1:*) [ "$1" = "$2" ] || kb_check "$1..$2" ;;
esac`,
}

const RESOLVE = `git log -1 --format=%B HEAD 2>/dev/null | grep -qi '^Resolves-KB:' || exit 0
kb_run hook run post-commit </dev/null
status=$?
if [ "$status" = 127 ]; then echo "kb hook: kb is not installed, so the Resolves-KB trailer was not applied" >&2
elif [ "$status" != 0 ]; then echo "kb hook: kb failed (exit $status); the Resolves-KB trailer was not applied" >&2
fi
`

/** The script of hook `name`; `node` and `bin` are the kb that installed it. */
export function hookScript(name: HookName, node: string, bin: string): string {
  const what =
    name === 'post-commit'
      ? 'checks the anchors the commit touched (kb check, in the background) and resolves entries named in "Resolves-KB: <id>" trailers'
      : `checks the anchors the ${name === 'post-merge' ? 'merge' : 'checkout'} touched (kb check, in the background)`
  return `#!/bin/sh
${MARKER}: ${what}.
# Installed by \`kb hook install\`, removed by \`kb hook uninstall\`. It never blocks or fails git.
${runner(node, bin)}${CHECKS[name]}
${name === 'post-commit' ? RESOLVE : ''}exit 0
`
}
