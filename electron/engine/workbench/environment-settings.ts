import type { EnvironmentsView, EnvironmentVariable } from '../../../shared/workbench/environment-contract';
import type { Request } from '../../../shared/workbench/methods';
import type { Environments } from '../environments/environments';
import { madeName } from '../secrets/saved-credentials';
import type { SecretStore, SecretWrites } from '../secrets/secret-store';
import { ApiProblem } from '../server/problem';

/** A variable to save: its value (for a secret one, absent keeps the value kept in Secrets), and whether it is secret. */
export type GivenVariable = Request<'saveEnvironment'>['variables'][number];

/**
 * The variables as an environment's file keeps them: each secret one's value set in Secrets (under the secret it is
 * kept in already, else a name made from the environment and the variable, numbered when taken), the others as given.
 * Stage it in `secrets.atomically`, whose write writes the file.
 */
export function keptVariables(secrets: SecretWrites, environment: string, given: readonly GivenVariable[], before: readonly EnvironmentVariable[]): EnvironmentVariable[] {
  const was = new Map(before.map((variable) => [variable.name, variable]));
  return given.map(({ name, value, secret }) => {
    const previous = was.get(name)?.secret ?? null;
    if (!secret) {
      if (value === undefined) throw new ApiProblem(400, `Give a value for “${name}”`);
      return { name, value, secret: null };
    }
    if (value === undefined) {
      if (previous === null) throw new ApiProblem(400, `“${name}” is secret: give its value, which goes to Secrets (never into the folder)`);
      return { name, value: null, secret: previous };
    }
    let kept = previous;
    for (let n = 1; kept === null; n++) {
      const candidate = madeName(environment, name, n);
      if (!secrets.has(candidate)) kept = candidate;
    }
    secrets.set(kept, value);
    return { name, value: null, secret: kept };
  });
}

/**
 * The environments as Settings and the Composer see them: listed with whether each secret variable's secret is set
 * here, saved with their secret values moved into Secrets first (the two together or neither), renamed, deleted, and
 * the one requests are sent with chosen.
 */
export function environmentSettings(environments: Environments, secrets: SecretStore) {
  const { store } = environments;

  function view(): EnvironmentsView {
    return {
      folder: environments.folder(),
      active: environments.active(),
      environments: store.list().map(({ name, variables, problem }) => ({
        name,
        variables: variables && variables.map((variable) => ({ ...variable, secret_set: variable.secret === null || secrets.has(variable.secret) })),
        problem,
      })),
    };
  }

  return {
    view,

    async save({ name, from, variables }: Request<'saveEnvironment'>): Promise<EnvironmentsView> {
      const renaming = from !== undefined && from !== name;
      const before = from === undefined ? [] : store.read(from);
      if (renaming && store.has(name)) throw new ApiProblem(409, `There is an environment named “${name}” already`);
      // A file that cannot be written leaves no secret value behind.
      await secrets.atomically(
        (staged) => keptVariables(staged, name, variables, before),
        (written) => {
          store.write(name, written, from === name);
          if (!renaming) return;
          try {
            store.delete(from);
          } catch (error) {
            store.delete(name);
            throw error;
          }
        },
      );
      if (renaming) await environments.changed(from, name);
      return view();
    },

    async remove({ name }: Request<'deleteEnvironment'>): Promise<EnvironmentsView> {
      store.delete(name);
      await environments.changed(name, null);
      return view();
    },

    async choose({ name }: Request<'setActiveEnvironment'>): Promise<EnvironmentsView> {
      await environments.choose(name);
      return view();
    },
  };
}
