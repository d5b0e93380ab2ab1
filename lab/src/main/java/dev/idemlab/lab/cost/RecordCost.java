package dev.idemlab.lab.cost;

import dev.idemlab.lab.infra.ServerInfo;

/**
 * What completed records cost one store, beside the same data written raw on the same server, per
 * record. Immutable.
 *
 * @param server the store's server, with what it promises
 * @param records how many completed records were written, each through the store's reserve and complete
 * @param resultBytes the size of each record's JSON result
 * @param unit what a record takes: keys (Redis) or rows (PostgreSQL)
 * @param unitsPerRecord how many of them each completed record left, every key under the store's prefix counted
 * @param bytesPerRecord what each costs the server, by its own accounting
 * @param baseline the raw writes it is compared with
 * @param baselineBytesPerRecord what each raw write costs the same server
 * @param released how many reservations were released (their action failed)
 * @param leftByReleased how many keys or rows those left behind
 * @param measuredBy how the bytes were counted
 */
public record RecordCost(ServerInfo server, int records, int resultBytes, String unit, double unitsPerRecord,
                         double bytesPerRecord, String baseline, double baselineBytesPerRecord, int released,
                         long leftByReleased, String measuredBy) {

    /** The target of the cost issue: a completed record costs at most this many times its raw write. */
    public static final double TARGET_RATIO = 1.3;

    /** What a record costs against its raw write. */
    public double ratio() {
        return bytesPerRecord / baselineBytesPerRecord;
    }

    /** Whether the ratio is within {@link #TARGET_RATIO} and nothing outlived a released reservation. */
    public boolean met() {
        return ratio() <= TARGET_RATIO && leftByReleased == 0;
    }
}
