import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startInProcessDaemon, type TestDaemon} from '../helpers/daemon.js'

describe('daemon smoke', () => {
  let d: TestDaemon
  beforeAll(async () => {
    d = await startInProcessDaemon()
  })
  afterAll(async () => {
    await d.stop()
  })

  it('creates, reads back and finds an entry', async () => {
    const created = await d.request('POST', '/knowledge', {
      body: {title: 'EADDRINUSE on start', body: 'The daemon crashes when port 7411 is taken.'},
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('etag')).toBe('"1"')
    const got = await d.request('GET', `/knowledge/${created.body.id}`)
    expect(got.body.title).toBe('EADDRINUSE on start')
    const found = await d.request('GET', '/search', {query: {q: 'crashed daemons'}})
    expect(found.body.items.map((i: {id: string}) => i.id)).toEqual([created.body.id])
  })
})
