/**
 * @module oclif `command_not_found` hook: an unknown command is a usage error (exit 2) with one line
 * that names the fix, like every other kb error — with the command it most likely meant (`kb serch` → `kb search`).
 */
import type {Hook} from '@oclif/core'
import {ERROR_CODES} from '../shared/errors.js'
import {closest} from './did-you-mean.js'

const hook: Hook<'command_not_found'> = async function (opts) {
  const parts = opts.id.split(':')
  const topics = new Set(opts.config.topics.map((t) => t.name))
  // The words up to the first that is not a topic: what follows is the arguments (`kb serch foo` → "serch").
  let n = 1
  while (n < parts.length && topics.has(parts.slice(0, n).join(':'))) n++
  const typed = parts.slice(0, n).join(' ')
  const known = [...opts.config.commandIDs, ...topics].map((id) => id.split(':').join(' '))
  const guess = closest(typed, known)
  const hint = guess ? `did you mean \`kb ${guess}\`? (\`kb help\` lists the commands)` : 'see `kb help` for the commands'
  process.stderr.write(`kb: unknown command "${typed}"; ${hint}\n`)
  process.exit(ERROR_CODES.usage.exit)
}

export default hook
