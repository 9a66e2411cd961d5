/**
 * @module The request schemas by name: what the operations table (`operations.ts`) names for each operation's path
 * parameters, query and body. It loads TypeBox, so only the daemon imports it as a value (server/http/operation.ts);
 * the API client reads its types only, and loads nothing of it (test/cli/startup.test.ts).
 */
import {DismissSimilarBody, HistoryQuery, ReviewQuery} from './curation-schemas.js'
import {IdRefParams} from './id-schemas.js'
import {EmptyBody, InvitationBody, MemberParams, RequestParams, RoleBody} from './membership-schemas.js'
import {RecallBody, RecallsQuery} from './recall-schemas.js'
import {
  AnchorCheckBody,
  CommentBody,
  CommentsQuery,
  CreateApiKeyBody,
  CreateEntryBody,
  CreateEntryQuery,
  FlagBody,
  ForkBody,
  GetEntryQuery,
  GrantIdParams,
  IdParams,
  JoinProjectBody,
  ListQuery,
  MergeBody,
  PatchEntryBody,
  ProjectSettingsBody,
  ProjectsQuery,
  PublishBody,
  PublishPreviewQuery,
  ResolveBody,
  RevokeApiKeyBody,
  SearchQuery,
  SupersedeBody,
  VerifyBody,
  WebLinkBody,
} from './schemas.js'
import {ExportQuery, ImportQuery} from './transfer-schemas.js'

export const REQUEST_SCHEMAS = {
  AnchorCheckBody,
  CommentBody,
  CommentsQuery,
  CreateApiKeyBody,
  CreateEntryBody,
  CreateEntryQuery,
  DismissSimilarBody,
  EmptyBody,
  ExportQuery,
  FlagBody,
  ForkBody,
  GetEntryQuery,
  GrantIdParams,
  HistoryQuery,
  IdParams,
  IdRefParams,
  ImportQuery,
  InvitationBody,
  JoinProjectBody,
  ListQuery,
  MemberParams,
  MergeBody,
  PatchEntryBody,
  ProjectSettingsBody,
  ProjectsQuery,
  PublishBody,
  PublishPreviewQuery,
  RecallBody,
  RecallsQuery,
  RequestParams,
  ResolveBody,
  ReviewQuery,
  RevokeApiKeyBody,
  RoleBody,
  SearchQuery,
  SupersedeBody,
  VerifyBody,
  WebLinkBody,
}
export type RequestSchemas = typeof REQUEST_SCHEMAS
