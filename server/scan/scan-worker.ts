/**
 * @module The thread long texts are scanned on (server/scan/off-thread.ts): each message is one text, each
 * answer its findings packed in typed arrays (start, end, kind as an index of KIND_NAMES), transferred.
 */
import {parentPort} from 'node:worker_threads'
import {KIND_NAMES, scanText} from './scanner.js'

parentPort?.on('message', (message: {id: number; text: string}) => {
  const found = scanText(message.text)
  const starts = new Int32Array(found.length)
  const ends = new Int32Array(found.length)
  const kinds = new Uint8Array(found.length)
  found.forEach((m, i) => {
    starts[i] = m.start
    ends[i] = m.end
    kinds[i] = KIND_NAMES.indexOf(m.kind)
  })
  parentPort!.postMessage({id: message.id, starts, ends, kinds}, [starts.buffer, ends.buffer, kinds.buffer])
})
