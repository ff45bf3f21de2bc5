import { z } from 'zod';
import { REFERENCE_NAME, REFERENCE_NAME_RULE } from '../secrets/references';

/**
 * Environments (local, staging, the hosted test tenant, …): named sets of variables that saved requests refer to as
 * `${env:NAME}`, kept as files beside the collections. A secret variable's value lives in Secrets; its file names the
 * secret. One environment is active per collections folder, remembered by the engine, not in the folder.
 */

/** An environment's name is its file's: the engine checks the file-name rules (docs/api.md, Saved requests). */
export const environmentNameSchema = z.string().trim().min(1).max(100);
export const variableNameSchema = z.string().regex(REFERENCE_NAME, `Not a variable name: ${REFERENCE_NAME_RULE}`);
/** A value may stand for part of a body, so it may be long. */
export const VARIABLE_VALUE_MAX = 64 * 1024;
export const ENVIRONMENT_VARIABLES_MAX = 500;

/** A variable as an environment's file holds it: its value, or for a secret one the secret's name and no value. */
export const environmentVariableSchema = z.object({
  name: z.string(),
  value: z.string().nullable(),
  /** The secret holding the value (`${secret:NAME}` in the file); null for a variable kept in the file. */
  secret: z.string().nullable(),
});
export type EnvironmentVariable = z.output<typeof environmentVariableSchema>;

/** The environments of the collections folder, and the one requests are sent with (null: none). */
export const environmentsViewSchema = z.object({
  folder: z.string(),
  active: z.string().nullable(),
  environments: z.array(
    z.object({
      name: z.string(),
      /** Null when its file is not an environment (`problem` says why). */
      variables: z.array(environmentVariableSchema.extend({ /** For a secret variable: whether Secrets holds its secret here. */ secret_set: z.boolean() })).nullable(),
      problem: z.string().nullable(),
    }),
  ),
});
export type EnvironmentsView = z.output<typeof environmentsViewSchema>;

/** An environment to save: its variables, under a new name when `from` names the one it was opened as. */
export const environmentChangeSchema = z.strictObject({
  name: environmentNameSchema,
  /** The name it was opened with: a different `name` renames it. Absent: a new environment. */
  from: environmentNameSchema.optional(),
  variables: z
    .array(
      z.strictObject({
        name: variableNameSchema,
        /** The value; for a secret variable it goes to Secrets, and leaving it out keeps the one kept there. */
        value: z.string().max(VARIABLE_VALUE_MAX).optional(),
        secret: z.boolean().default(false),
      }),
    )
    .max(ENVIRONMENT_VARIABLES_MAX)
    .refine((variables) => new Set(variables.map(({ name }) => name)).size === variables.length, 'Each variable is named once'),
});

export const environmentRefSchema = z.strictObject({ name: environmentNameSchema });
/** The environment to send with from now on; null: none. */
export const activeEnvironmentSchema = z.strictObject({ name: environmentNameSchema.nullable() });
