package dev.idemlab.lab.cost;

import dev.idemlab.lab.infra.ServerInfo;

import java.util.Locale;

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
 * @param targetRatio the most a record may cost against its raw write, or {@code null} where no target
 *     is set (PostgreSQL: its rows are judged by the sweep, not by size)
 * @param note what else was measured, or an empty string
 */
public record RecordCost(ServerInfo server, int records, int resultBytes, String unit, double unitsPerRecord,
                         double bytesPerRecord, String baseline, double baselineBytesPerRecord, int released,
                         long leftByReleased, String measuredBy, Double targetRatio, String note) {

    /** The cost issue's target on Redis: a completed record costs at most this many times its raw {@code SET}. */
    public static final double REDIS_TARGET_RATIO = 1.3;

    /** What a record costs against its raw write. */
    public double ratio() {
        return bytesPerRecord / baselineBytesPerRecord;
    }

    /** Whether the ratio is within its target, if it has one, and nothing outlived a released reservation. */
    public boolean met() {
        return (targetRatio == null || ratio() <= targetRatio) && leftByReleased == 0;
    }

    /** The verdict as the report prints it. */
    public String verdict() {
        String target = targetRatio == null ? "no size target" : String.format(Locale.ROOT, "<= %.1fx", targetRatio);
        return target + ": " + (met() ? "met" : "missed");
    }
}
