/**
 * @module `prepare-smart --fetch` (`npm run eval:fetch`, docs/search.md "Measurement: more collections"): a SMART
 * archive served over HTTP as the Glasgow page serves it is downloaded, unpacked and converted; a missing archive
 * fails with its URL and leaves the collection that was there untouched.
 */
import {execFileSync, spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

const SCRIPT = resolve(import.meta.dirname, '../../dist/bench/prepare-smart.js')

/** A MED-shaped collection of three abstracts and two questions, packed as `medl/med.tar.gz` packs it (in a folder). */
function medArchive(dir: string): Buffer {
  const files = join(dir, 'files', 'med')
  mkdirSync(files, {recursive: true})
  writeFileSync(
    join(files, 'MED.ALL'),
    '.I 1\n.W\nthe crystalline lens in vertebrates\nincluding humans\n.I 2\n.W\nrenal failure after surgery\n.I 3\n.W\nlens proteins\n',
  )
  writeFileSync(join(files, 'MED.QRY'), '.I 1\n.W\nlens of the eye\n.I 2\n.W\nkidney failure\n')
  writeFileSync(join(files, 'MED.REL'), '1 1 1\r\n1 3 1\r\n2 2 1\r\n')
  const archive = join(dir, 'med.tar.gz')
  execFileSync('tar', ['-czf', archive, '-C', join(dir, 'files'), 'med'])
  return readFileSync(archive)
}

describe('prepare-smart --fetch', () => {
  let dir: string
  let server: Server
  let base: string
  const asked: string[] = []
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kb-fetch-smart-'))
    const med = medArchive(dir)
    server = createServer((req, res) => {
      asked.push(req.url ?? '')
      if (req.url === '/test_collections/medl/med.tar.gz') res.writeHead(200, {'content-type': 'application/gzip'}).end(med)
      else res.writeHead(404).end()
    })
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/test_collections`
  })
  afterAll(async () => {
    await new Promise((ok) => server.close(ok))
    rmSync(dir, {recursive: true, force: true})
  })

  /** Run asynchronously: the archive's server answers from this process's event loop. */
  const run = (...args: string[]): Promise<{status: number | null; stdout: string; stderr: string}> =>
    new Promise((ok) => {
      const child = spawn(process.execPath, [SCRIPT, '--fetch', ...args])
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      child.on('close', (status) => ok({status, stdout, stderr}))
    })

  it('downloads, unpacks and converts a collection into the shared layout', async () => {
    const out = join(dir, 'search-eval')
    const r = await run('--from', `${base}/`, '--to', out, 'med')
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('med: 3 documents, 2 queries (2 judged), 3 judgments')
    const lines = (file: string): unknown[] =>
      readFileSync(join(out, 'med', file), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown)
    expect(lines('docs.jsonl')).toEqual([
      {id: '1', title: '', body: 'the crystalline lens in vertebrates including humans'},
      {id: '2', title: '', body: 'renal failure after surgery'},
      {id: '3', title: '', body: 'lens proteins'},
    ])
    expect(lines('queries.jsonl')).toEqual([
      {id: '1', text: 'lens of the eye'},
      {id: '2', text: 'kidney failure'},
    ])
    expect(readFileSync(join(out, 'med', 'qrels.tsv'), 'utf8')).toBe('query_id\tdoc_id\trelevance\n1\t1\t1\n1\t3\t1\n2\t2\t1\n')
    expect(asked).toContain('/test_collections/medl/med.tar.gz')
  })

  it('fails with the URL when an archive is missing, and leaves the folder that was there', async () => {
    const out = join(dir, 'kept')
    mkdirSync(join(out, 'cisi'), {recursive: true})
    writeFileSync(join(out, 'cisi', 'docs.jsonl'), 'earlier\n')
    const r = await run('--from', base, '--to', out, 'cisi')
    expect(r.status).toBe(1)
    expect(r.stderr).toBe(`prepare-smart: cisi: ${base}/cisi/cisi.tar.gz answered 404\n`)
    expect(readFileSync(join(out, 'cisi', 'docs.jsonl'), 'utf8')).toBe('earlier\n')
  })

  it('refuses a name it does not know with its usage', async () => {
    const r = await run('--to', join(dir, 'x'), 'trec')
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('usage: prepare-smart')
  })
})
