/**
 * @module The interactive walk of `kb review` (docs/cli.md, "Curation"), like `git add -p`: each item with why it
 * is in the queue, then one key — v)erify e)dit f)lag s)upersede d)elete n)ext q)uit, and for an entry of a similar pair
 * m)erge it into the other, s)upersede it by the other, x) not the same. One line reader for the whole
 * walk (answers typed ahead are not lost between questions); the end of input quits.
 */
import {createInterface} from 'node:readline'
import type {ApiClient} from '../../shared/client.js'
import type {ReviewPage} from '../../shared/curation-schemas.js'
import {KbError} from '../../shared/errors.js'
import {editText} from '../input.js'
import {fitWidth, oneLine, type OutputMode} from '../output/format.js'
import {reviewItem} from '../output/curation.js'
import {shortId} from '../../shared/short-id.js'

const ACTIONS = 'v)erify e)dit f)lag s)upersede d)elete n)ext q)uit'
/** For an entry of a similar pair: merge into the other, supersede by it, or say they are not the same (docs/cli.md, "kb review"). */
const PAIR_ACTIONS = 'v)erify e)dit f)lag m)erge s)upersede x)not same d)elete n)ext q)uit'
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
  // On a terminal every line fits its width (an outcome names the other entry's title).
  const say = (t: string): void =>
    out(
      mode.tty
        ? t
            .split('\n')
            .map((l) => fitWidth(l, mode.width))
            .join('\n')
        : t,
    )
  let acted = 0
  try {
    for (const [i, item] of page.items.entries()) {
      say(reviewItem(item, i + 1, page.items.length, mode))
      const others = item.reasons.flatMap((r) => (r.kind === 'similar' && r.other ? [r.other] : []))
      for (;;) {
        const key = (await prompt.ask(`[${others.length > 0 ? PAIR_ACTIONS : ACTIONS}]`))?.toLowerCase()[0] ?? 'q'
        if (key === 'q') return {acted, quit: true}
        if (key === 'n') break
        const done = await act(client, prompt, {id: item.entry.id, others}, key, say).catch((e: unknown) => {
          say(`  ${oneLine(e instanceof KbError ? e.message : String(e))}`)
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

type Other = {id: string; title: string}

/** The other entry of the pair an action is about: the only one, or the one picked by number; null if none. */
async function otherOf(prompt: Prompter, others: Other[]): Promise<Other | null> {
  if (others.length <= 1) return others[0] ?? null
  const list = others.map((o, i) => `${i + 1}) ${oneLine(o.title)}`).join('  ')
  const n = Number(await prompt.ask(`which one? ${list}`))
  return Number.isInteger(n) && n >= 1 && n <= others.length ? others[n - 1]! : null
}

/** One action on the item's entry; false when the key is none or the person thought better of it. */
async function act(
  client: ApiClient,
  prompt: Prompter,
  item: {id: string; others: Other[]},
  key: string,
  out: (t: string) => void,
): Promise<boolean> {
  const id = item.id
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
    case 'm': {
      const other = await otherOf(prompt, item.others)
      if (!other) return false
      await client.merge(id, {into: other.id})
      out(`  merged into ${shortId(other.id)} ${oneLine(other.title)}`)
      return true
    }
    case 's': {
      // For a similar pair, Enter takes the other entry.
      const suggested = item.others.length === 1 ? item.others[0]! : null
      const typed = await prompt.ask(
        `superseded by which entry (its id, or the start or end of it)?${suggested ? ` [Enter: ${shortId(suggested.id)}]` : ''}`,
      )
      const by = typed ? await client.entryId(typed) : suggested?.id
      if (!by) return false
      await client.supersede(id, {by})
      out(`  superseded by ${shortId(by)}`)
      return true
    }
    case 'x': {
      const other = await otherOf(prompt, item.others)
      if (!other) return false
      await client.dismissSimilar(id, {other: other.id})
      out(`  not the same as ${shortId(other.id)}: the pair leaves the queue`)
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
