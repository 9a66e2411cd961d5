/**
 * @module The actions of a signed-in person (docs/web.md, "Actions"): each form's fields become the body of the API call
 * it stands for, checked against that call's schema and handed to the same service with the session's caller, after
 * the form's token is checked. Done, the browser is sent back to the entry (303); refused, the page is shown again
 * with the API's words.
 */
import type {TSchema} from '@sinclair/typebox'
import type {FastifyInstance, FastifyReply} from 'fastify'
import {UUID_PATTERN} from '../../src/shared/contract.js'
import {KbError} from '../../src/shared/errors.js'
import type {BodyOf} from '../../src/shared/operations.js'
import {createValidator} from '../../src/shared/validator.js'
import {bodySchema, type BodyOperation} from '../http/operation.js'
import {fieldErrors} from '../http/problem.js'
import type {Caller} from '../services/context.js'
import type {CurationService} from '../services/curation.js'
import type {PublishService} from '../services/publish.js'
import type {TrustService} from '../services/trust.js'
import {entryPage} from './pages/entry.js'
import {actionForms, DONE, publishPage} from './pages/actions.js'
import {entryView, type SignedIn, type WebServices} from './read-pages.js'
import {checkFormToken, param, queryOf} from './request.js'
import {formOf, inWords, type WebRequest} from './routes.js'

/** The services only actions call. */
export interface ActionServices {
  trust: TrustService
  curation: CurationService
  publish: PublishService
}

const ajv = createValidator('json')
const compiled = new Map<TSchema, ReturnType<typeof ajv.compile>>()

/** A form's fields as the body of its API operation, refused with the API's 422 when they break its rules. */
function body<Id extends BodyOperation>(op: Id, fields: Record<string, unknown>): BodyOf<Id> {
  const schema = bodySchema(op)
  let validate = compiled.get(schema)
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)))
  const b = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== ''))
  if (!validate(b)) {
    const errors = fieldErrors(validate.errors ?? [])
    throw new KbError('validation_failed', errors.map((x) => `${x.path}: ${x.message}`).join('; '), {errors})
  }
  return b as BodyOf<Id>
}

const UUID = new RegExp(UUID_PATTERN)

type Act = (caller: Caller, id: string, form: URLSearchParams) => Promise<string | void>

export function actionRoutes(scope: FastifyInstance, s: WebServices & ActionServices, signedIn: SignedIn): void {
  /** An entry's page with its action forms and, after a refusal, the refusal in words. */
  const showEntry = async (w: WebRequest, id: string, error?: KbError): Promise<string> => {
    const view = await entryView(s, w.session.caller, id)
    const done = doneNotice(param(queryOf(w.req), 'done', 20))
    const notice = error ? {kind: 'error' as const, text: inWords(error)} : done ? {kind: 'ok' as const, text: done} : undefined
    return entryPage(w.ctx, {...view, actions: actionForms(w.ctx, view.entry), ...(notice ? {notice} : {})})
  }
  scope.get<{Params: {id: string}}>(
    '/e/:id',
    signedIn(async (w) => {
      const id = (w.req.params as {id: string}).id
      if (UUID.test(id)) return showEntry(w, id)
      // A short id (the start or end of one, as kb prints it) leads to the permanent link; one naming no entry the
      // caller may see is the same 404 page, and an ambiguous one the error page listing nothing hidden.
      const found = await s.ids.resolve(w.session.caller, id).catch((e: unknown) => {
        throw e instanceof KbError && e.status === 400 ? new KbError('not_found', 'no such entry') : e
      })
      return w.reply.code(303).header('Location', `${w.ctx.root}/e/${found.id}`).send()
    }),
  )

  const post = (name: string, act: Act): void => {
    scope.post<{Params: {id: string}}>(
      `/e/:id/${name}`,
      signedIn(async (w): Promise<FastifyReply | string> => {
        const id = (w.req.params as {id: string}).id
        const form = formOf(w.req)
        checkFormToken(form, w.session.csrf)
        try {
          const goTo = (await act(w.session.caller, id, form)) ?? id
          return w.reply.code(303).header('Location', `${w.ctx.root}/e/${goTo}?done=${name}`).send()
        } catch (e) {
          // A hidden entry stays a 404 page; any other refusal is said on the entry's page, with the API's status.
          if (!(e instanceof KbError) || e.code === 'not_found' || e.status >= 500) throw e
          if (name === 'publish')
            return w.reply
              .code(e.status)
              .type('text/html; charset=utf-8')
              .send(await showPublish(w, id, form.get('scope'), e))
          return w.reply
            .code(e.status)
            .type('text/html; charset=utf-8')
            .send(await showEntry(w, id, e))
        }
      }),
    )
  }
  post('comment', async (caller, id, f) => {
    await s.knowledge.comment(caller, id, body('addComment', {body: f.get('body') ?? '', type: f.get('type') ?? undefined}))
  })
  post('verify', async (caller, id, f) => {
    await s.trust.verify(caller, id, body('verifyEntry', {note: f.get('note') ?? undefined}))
  })
  post('flag', async (caller, id, f) => {
    await s.trust.flag(caller, id, body('flagEntry', {reason: f.get('reason') ?? undefined, note: f.get('note') ?? undefined}))
  })
  post('resolve', async (caller, id, f) => {
    await s.knowledge.resolve(caller, id, body('resolveEntry', {note: f.get('note') ?? undefined, url: f.get('url') ?? undefined}))
  })
  post('fork', async (caller, id, f) => (await s.knowledge.fork(caller, id, body('forkEntry', {title: f.get('title') ?? undefined}))).id)
  post('supersede', async (caller, id, f) => {
    await s.curation.supersede(
      caller,
      id,
      body('supersedeEntry', {by: (f.get('by') ?? '').trim().toLowerCase(), note: f.get('note') ?? undefined}),
    )
  })
  post('publish', async (caller, id, f) => {
    const choice = f.get('choice')
    const input = body('publishEntry', {
      scope: f.get('scope') ?? undefined,
      ...(choice === 'redact' ? {redact: true} : {}),
      ...(choice === 'acknowledge' ? {acknowledge: f.getAll('acknowledge')} : {}),
    })
    await s.publish.publish(caller, id, input)
  })

  /** The preview before publishing: the findings and the redaction diff, and the ways on. */
  const showPublish = async (w: WebRequest, id: string, scope: string | null, error?: KbError): Promise<string> => {
    const view = await entryView(s, w.session.caller, id)
    const wanted = body('publishEntry', {scope: scope ?? undefined}).scope
    const preview = await s.publish.preview(w.session.caller, view.entry.id, wanted)
    return publishPage(w.ctx, view.entry, preview, error ? inWords(error) : undefined)
  }
  scope.get<{Params: {id: string}}>(
    '/e/:id/publish',
    signedIn(async (w) => {
      const id = (w.req.params as {id: string}).id
      try {
        return await showPublish(w, id, param(queryOf(w.req), 'scope', 10) || null)
      } catch (e) {
        if (!(e instanceof KbError) || e.code === 'not_found' || e.status >= 500) throw e
        return w.reply
          .code(e.status)
          .type('text/html; charset=utf-8')
          .send(await showEntry(w, id, e))
      }
    }),
  )
}

function doneNotice(word: string): string | undefined {
  return Object.hasOwn(DONE, word) ? DONE[word] : undefined
}
