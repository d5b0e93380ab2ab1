package dev.idemlab.lab.scenario;

import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.StoreBackend;

/**
 * Why a scenario cannot be staged on this run's store, in words about that store, for the SKIP line
 * of {@code lab check} and the error of {@code lab scenario}: what the scenario needs, then what this
 * run has instead (another store, a server given by URL, a cluster).
 */
final class CannotStage {

    private CannotStage() { }

    /**
     * For a scenario that reconfigures or pauses the lab's own private single Redis: {@code null} when
     * {@code backend} is one, else the reason it cannot run there.
     *
     * @param does what the scenario does to that server, as a verb phrase: "pauses", "reconfigures ... of"
     * @param onPostgres what the scenario would mean on PostgreSQL, or {@code null}
     */
    static String unlessPrivateRedis(String scenario, String does, StoreBackend backend, String onPostgres) {
        String needs = scenario + " " + does + " the lab's own private single Redis (--store redis)";
        if (!(backend instanceof RedisBackend)) {
            String instead = "; this run's store is " + backend.server().describe();
            return needs + instead + (onPostgres != null && backend.name().equals("postgres") ? "; " + onPostgres : "");
        }
        Origin origin = backend.server().origin();
        if (origin == Origin.URL) {
            return needs + "; this run's Redis was given by URL (" + backend.server().address()
                    + "), and the lab never changes a server it did not start";
        }
        if (origin == Origin.CLUSTER) {
            return needs + "; this run's Redis is a cluster";
        }
        return null;
    }

    /** For a scenario whose holder runs in a child JVM, which needs a store another process can reach. */
    static String childCannotReach(String scenario, StoreBackend backend) {
        return scenario + " runs its holder in a child JVM, which cannot reach this run's store ("
                + backend.server().describe() + "); use --store redis or postgres";
    }

    /** For the Spring sample, a child JVM that reaches a single Redis or a PostgreSQL server only. */
    static String sampleCannotReach(StoreBackend backend) {
        return "the Spring sample runs in a child JVM on a single Redis or a PostgreSQL server, which this run's "
                + "store is not (" + backend.server().describe() + "); use --store redis or postgres";
    }
}
