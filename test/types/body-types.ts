/**
 * The request body types the routes are written against must not drift from the JSON Schemas that
 * validate the bodies: the same property names, and the same ones required. `npm run typecheck`
 * (run in CI) fails when they differ. The schemas are `as const`, so their keys are literal types.
 */
import type { NodeCreateInput, NodePatchInput } from '../../src/domain/nodes.ts';
import type { TranslationInput } from '../../src/domain/translations.ts';
import type { FilesBody, ImportBody } from '../../src/routes/import.ts';
import type { ReorderBody } from '../../src/routes/nodes.ts';
import type { DuplicateBody, VersionCreateBody, VersionPatchBody } from '../../src/routes/versions.ts';
import type { ImportFilesRequest, ImportRequest } from '../../src/schemas/transfer.ts';
import type { VersionCreate, VersionDuplicate, VersionPatch } from '../../src/schemas/versions.ts';
import type { NodeCreate, NodePatch, Reorder, TranslationPut } from '../../src/schemas/writes.ts';
import type { WebhookCreate } from '../../src/schemas/webhooks.ts';
import type { NewSubscription } from '../../src/webhooks/subscriptions.ts';
import type { FeedbackBody } from '../../src/routes/feedback.ts';
import type { FeedbackSubmit } from '../../src/schemas/feedback.ts';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;

type PropertiesOf<S> = S extends { properties: infer P } ? keyof P & string : never;
type RequiredOf<S> = S extends { required: ReadonlyArray<infer R> } ? R & string : never;
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T] & string;

/** `Body` has exactly the schema's properties, and requires exactly the ones it requires. */
type Matches<Body, Schema> = Equal<keyof Body & string, PropertiesOf<Schema>> extends true ? Equal<RequiredKeys<Body>, RequiredOf<Schema>> : false;

export type Checks = [
  Expect<Matches<VersionCreateBody, typeof VersionCreate>>,
  Expect<Matches<VersionPatchBody, typeof VersionPatch>>,
  Expect<Matches<DuplicateBody, typeof VersionDuplicate>>,
  Expect<Matches<NodeCreateInput, typeof NodeCreate>>,
  Expect<Matches<NodePatchInput & { expectedUpdatedAt?: string; minorEdit?: boolean }, typeof NodePatch>>,
  Expect<Matches<TranslationInput & { expectedUpdatedAt?: string; minorEdit?: boolean }, typeof TranslationPut>>,
  Expect<Matches<ReorderBody, typeof Reorder>>,
  Expect<Matches<ImportBody, typeof ImportRequest>>,
  Expect<Matches<FilesBody, typeof ImportFilesRequest>>,
  Expect<Matches<NewSubscription, typeof WebhookCreate>>,
  Expect<Matches<FeedbackBody, typeof FeedbackSubmit>>,
];
