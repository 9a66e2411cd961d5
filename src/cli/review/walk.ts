/**
 * @module The interactive walk of `kb review` (docs/cli.md, "Curation"), like `git add -p`: each item with why it
 * is in the queue, then one key — v)erify e)dit f)lag s)upersede d)elete n)ext q)uit. One line reader for the whole
 * walk (answers typed ahead are not lost between questions); the end of input quits.
 */
import {createInterface} from 'node:readline'
import type {ApiClient} from '../../shared/client.js'
import type {ReviewPage} from '../../shared/curation-schemas.js'
import {KbError} from '../../shared/errors.js'
import {editText} from '../input.js'
import {oneLine, type OutputMode} from '../output/format.js'
import {reviewItem} from '../output/curation.js'

const ACTIONS = 'v)erify e)dit f)lag s)upersede d)elete n)ext q)uit'
const FLAG_REASONS = {s: 'stale', i: 'incorrect', o: 'obsolete', d: 'duplicate'} as const

/** Questions on stderr, answers from stdin, a line each; null once input ends. */
class Prompter {
  private readonly lines: AsyncIterator<string>

  constructor() {
    this.lines = createInterface({input: process.stdin, terminal: false})[Symbol.asyncIterator]()
  }

  async ask(question: string): Promise<string | null> {
    process.stderr.write(`${question} `)
    const next = await this.lines.next()
    return next.done ? null : next.value.trim()
  }

  close(): void {
    void this.lines.return?.()
  }
}

export async function walkQueue(
  client: ApiClient,
  page: ReviewPage,
  mode: OutputMode,
  out: (text: string) => void,
): Promise<{acted: number; quit: boolean}> {
  const prompt = new Prompter()
  let acted = 0
  try {
    for (const [i, item] of page.items.entries()) {
      out(reviewItem(item, i + 1, page.items.length, mode))
      for (;;) {
        const key = (await prompt.ask(`[${ACTIONS}]`))?.toLowerCase()[0] ?? 'q'
        if (key === 'q') return {acted, quit: true}
        if (key === 'n') break
        const done = await act(client, prompt, item.entry.id, key, out).catch((e: unknown) => {
          out(`  ${oneLine(e instanceof KbError ? e.message : String(e))}`)
          return false
        })
        if (done) {
          acted++
          break
        }
      }
    }
    return {acted, quit: false}
  } finally {
    prompt.close()
  }
}

/** One action on entry `id`; false when the key is none or the person thought better of it. */
async function act(client: ApiClient, prompt: Prompter, id: string, key: string, out: (t: string) => void): Promise<boolean> {
  switch (key) {
    case 'v':
      await client.verify(id, {})
      out('  verified')
      return true
    case 'e': {
      const {entry, etag} = await client.getEntry(id, 'standard')
      const body = editText(entry.body)
      if (body.trim() === '' || body === entry.body) {
        out('  unchanged')
        return false
      }
      await client.patchEntry(id, {body}, etag ?? undefined)
      out('  edited')
      return true
    }
    case 'f': {
      const r = (await prompt.ask('reason? s)tale i)ncorrect o)bsolete d)uplicate'))?.toLowerCase()[0]
      const reason = r && r in FLAG_REASONS ? FLAG_REASONS[r as keyof typeof FLAG_REASONS] : null
      if (!reason) return false
      await client.flag(id, {reason})
      out(`  flagged ${reason}`)
      return true
    }
    case 's': {
      const by = await prompt.ask('superseded by which entry (id)?')
      if (!by) return false
      await client.supersede(id, {by})
      out(`  superseded by ${oneLine(by)}`)
      return true
    }
    case 'd': {
      const yes = await prompt.ask('delete it? [y/N]')
      if (!yes || !/^y/i.test(yes)) return false
      await client.deleteEntry(id)
      out('  deleted')
      return true
    }
    default:
      return false
  }
}
