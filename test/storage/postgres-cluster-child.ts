// Starts a throwaway cluster, prints where it is and waits to be killed: the cluster test SIGKILLs this process and
// expects the cluster gone all the same.
import { findPostgresBinaries, startPostgresCluster } from '../support/postgres-cluster';

void startPostgresCluster(findPostgresBinaries()!).then(({ folder, pid }) => {
  console.log(JSON.stringify({ folder, pid }));
  setInterval(() => {}, 60_000);
});
