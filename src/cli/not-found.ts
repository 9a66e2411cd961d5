/**
 * @module oclif `command_not_found` hook: an unknown command is a usage error (exit 2) with one line
 * that names the fix, like every other kb error.
 */
import type {Hook} from '@oclif/core'

const hook: Hook<'command_not_found'> = async function (opts) {
  const words = opts.id.split(':').join(' ')
  process.stderr.write(`kb: unknown command "${words}"; see \`kb help\` for the commands\n`)
  process.exit(2)
}

export default hook
