/**
 * @module Links from an anchor to the code on a forge (docs/web.md, "Entry page"): when a project's remote is on
 * GitHub, GitLab or Bitbucket (or a host named after one), an anchor with a commit links to the file at that
 * commit, its lines marked as each forge marks them.
 */
import type {Anchor} from '../../src/shared/types.js'

type Forge = 'github' | 'gitlab' | 'bitbucket'

function forgeOf(host: string): Forge | null {
  if (host === 'github.com' || host.includes('github')) return 'github'
  if (host === 'gitlab.com' || host.includes('gitlab')) return 'gitlab'
  if (host === 'bitbucket.org' || host.includes('bitbucket')) return 'bitbucket'
  return null
}

/** `40-62` (or `40`) as the forge's fragment. */
function linesFragment(forge: Forge, lines: string | null): string {
  const m = lines === null ? null : /^(\d{1,9})(?:-(\d{1,9}))?$/.exec(lines)
  if (!m) return ''
  const [a, b] = [m[1]!, m[2]]
  if (forge === 'github') return b ? `#L${a}-L${b}` : `#L${a}`
  if (forge === 'gitlab') return b ? `#L${a}-${b}` : `#L${a}`
  return b ? `#lines-${a}:${b}` : `#lines-${a}`
}

/** The web address of an anchor on its project's forge; null without a known forge or a commit. */
export function anchorUrl(remote: string | null, anchor: Pick<Anchor, 'path' | 'lines' | 'commit'>): string | null {
  if (!remote || !anchor.commit || !/^[0-9a-f]{7,64}$/i.test(anchor.commit)) return null
  const host = remote.split('/', 1)[0]!
  const forge = forgeOf(host)
  if (!forge || host.startsWith('[')) return null
  const path = anchor.path.split('/').map(encodeURIComponent).join('/')
  const base = `https://${remote}`
  const blob = forge === 'github' ? 'blob' : forge === 'gitlab' ? '-/blob' : 'src'
  return `${base}/${blob}/${anchor.commit}/${path}${linesFragment(forge, anchor.lines)}`
}
