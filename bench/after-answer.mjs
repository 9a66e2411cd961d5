// A preload for measuring `kb show` (docs/performance.md, "Rendering an entry's Markdown"): appends to
// $AFTER_FILE the wall and CPU milliseconds from the end of the last HTTP answer to kb's first write to
// stdout — the time the document took once the entry had arrived. Usage, on a pseudo-terminal:
//   AFTER_FILE=/tmp/after.txt script -qec "node --import ./bench/after-answer.mjs bin/run.js show ID --no-pager" /dev/null
// On a machine shared with other work, as root, the measured session can be given a core as on an idle machine
// (docs/performance.md says when figures were taken so): script -qec "echo -20 > /proc/self/autogroup; exec nice -n -20 node …"
import {appendFileSync} from 'node:fs'
import http from 'node:http'
import {syncBuiltinESMExports} from 'node:module'

const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
let answeredAt = 0
let answeredCpu = 0
let written = false
const request = http.request
http.request = function (...args) {
  const req = request.apply(this, args)
  req.on('response', (res) => res.on('end', () => ((answeredAt = performance.now()), (answeredCpu = cpu()))))
  return req
}
// kb imports `request` by name: make the ES module binding see the wrapper.
syncBuiltinESMExports()
const write = process.stdout.write.bind(process.stdout)
process.stdout.write = (chunk, ...rest) => {
  if (!written && answeredAt > 0) {
    written = true
    appendFileSync(process.env.AFTER_FILE, `${(performance.now() - answeredAt).toFixed(2)} ${(cpu() - answeredCpu).toFixed(2)}\n`)
  }
  return write(chunk, ...rest)
}
