import { z } from 'zod';
import { collectionsViewSchema } from './collection-contract';

/** A Postman export to import: a collection (v2.1), its environment, or both, each the text of its JSON file. */
export const postmanImportSchema = z
  .strictObject({
    collection: z
      .string()
      .max(8 * 1024 * 1024)
      .nullable()
      .default(null),
    environment: z
      .string()
      .max(1024 * 1024)
      .nullable()
      .default(null),
    /** Replace saved requests and an environment of the same names; otherwise a name taken is a 409 and nothing changes. */
    replace: z.boolean().default(false),
  })
  .refine(({ collection, environment }) => collection !== null || environment !== null, { message: 'Give a collection, an environment, or both', path: ['collection'] });

/** What an import made: the saved requests by collection, the environment, and what Postman held that could not come. */
export const postmanImportedSchema = z.object({
  collections: z.array(z.object({ name: z.string(), requests: z.array(z.string()) })),
  environment: z.object({ name: z.string(), variables: z.number().int(), secrets: z.array(z.string()) }).nullable(),
  /** Each thing Postman held that has no equivalent here (a script, an auth that signs requests, a file body), in a sentence. */
  not_carried: z.array(z.string()),
  /** What changed on the way (a variable renamed, a form sent another way). */
  notes: z.array(z.string()),
  /** The credentials moved into Secrets, by request (the files refer to them by name). */
  moved_aside: z.array(z.object({ collection: z.string(), request: z.string(), header: z.string(), secret: z.string() })),
  view: collectionsViewSchema,
});
export type PostmanImported = z.output<typeof postmanImportedSchema>;
