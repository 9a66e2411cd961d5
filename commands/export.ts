/**
 * @module `kb export`: everything you may see (all of it, for the owner) as JSON Lines, streamed to
 * stdout or a file — for moves between servers and for backups that outlive the store format.
 */
import {createWriteStream, renameSync, rmSync} from 'node:fs'
import {Transform} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import {Flags} from '@oclif/core'
import {KbCommand} from '../src/cli/base.js'
import {scopeFlag} from '../src/cli/flags.js'
import {streamRequest} from '../src/cli/client/stream.js'

export default class Export extends KbCommand<typeof Export> {
  static override summary = 'Export knowledge as JSON Lines (stdout, or --output)'
  static override description =
    'A first line {"kind":"kb-export","version":1,…}, then one line per project and one per entry with its comments, thought chain, resolution and lineage. The owner exports everything, private entries included; others what they may see. `kb import` reads it back.'
  static override examples = [
    '<%= config.bin %> export -o kb.jsonl',
    '<%= config.bin %> export --scope global | gzip > global.jsonl.gz',
    '<%= config.bin %> export --project github.com/acme/api -o api.jsonl',
  ]
  static override flags = {
    output: Flags.string({char: 'o', description: 'write to this file (default stdout)'}),
    scope: scopeFlag('only entries of this scope'),
  }

  async run(): Promise<{lines: number; bytes: number; output: string}> {
    const {flags} = this
    const client = await this.client()
    // Only an explicit --project narrows an export; a checkout's own project would silently cut a backup short.
    const projectId = flags.project !== undefined ? await this.projectId() : null
    const res = await streamRequest(client, {
      method: 'GET', path: '/export', accept: 'application/x-ndjson',
      query: {...(flags.scope ? {scope: flags.scope} : {}), ...(projectId ? {project_id: projectId} : {})},
    })
    let lines = 0
    let bytes = 0
    let shown = 0
    const progress = process.stderr.isTTY && Boolean(flags.output)
    const count = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++
        if (progress && lines - shown >= 1000) {
          shown = lines
          process.stderr.write(`\rkb: exported ${lines} lines`)
        }
        done(null, chunk)
      },
    })
    if (flags.output) {
      // Written aside and renamed when complete, so an interrupted export never looks like a whole one.
      const partial = `${flags.output}.partial`
      try {
        await pipeline(res, count, createWriteStream(partial, {mode: 0o600}))
        renameSync(partial, flags.output)
      } catch (e) {
        rmSync(partial, {force: true})
        throw e
      }
    } else {
      await pipeline(res, count, process.stdout, {end: false})
    }
    if (progress) process.stderr.write('\r')
    if (flags.output) this.note(`exported ${Math.max(0, lines - 1)} records (${bytes} bytes) to ${flags.output}`)
    return {lines, bytes, output: flags.output ?? '-'}
  }
}
